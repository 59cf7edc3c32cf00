#include "guard/base/atomic_file.h"

#include <cerrno>
#include <cstring>
#include <unistd.h>

namespace stageload {

AtomicFile::AtomicFile(std::filesystem::path path)
    : final_(std::move(path)), temp_(final_.string() + ".tmp-" + std::to_string(::getpid())) {
    file_ = std::fopen(temp_.c_str(), "wb");
    if (!file_) fail(std::string("cannot create ") + temp_.string() + ": " + std::strerror(errno));
}

AtomicFile::~AtomicFile() {
    if (file_) std::fclose(file_);
    if (!committed_) std::remove(temp_.c_str());
}

void AtomicFile::write(const void* data, std::size_t size) {
    if (size && std::fwrite(data, 1, size, file_) != size)
        fail(std::string("write failed: ") + std::strerror(errno) + " (disk full?)");
}

void AtomicFile::commit() {
    const bool ok = std::fflush(file_) == 0 && ::fsync(::fileno(file_)) == 0;
    const int err = errno;
    std::fclose(file_);
    file_ = nullptr;
    if (!ok) fail(std::string("write failed: ") + std::strerror(err) + " (disk full?)");
    std::error_code ec;
    std::filesystem::rename(temp_, final_, ec);
    if (ec) fail("cannot rename the finished file into place: " + ec.message());
    committed_ = true;
}

void AtomicFile::fail(const std::string& problem) const { throw AtomicWriteError(final_, problem); }

void writeFileAtomically(const std::filesystem::path& path, std::string_view text) {
    AtomicFile out(path);
    out.write(text);
    out.commit();
}

}  // namespace stageload
