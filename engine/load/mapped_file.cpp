#include "engine/load/mapped_file.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "engine/api/errors.h"

namespace stageload {

MappedFile::MappedFile(const std::filesystem::path& path) : path_(path) {
    fd_ = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd_ < 0)
        throw WeightFileError(path.string(), "", std::string("cannot open: ") + std::strerror(errno));
    struct stat st {};
    if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
        ::close(fd_);
        throw WeightFileError(path.string(), "", "not a regular file");
    }
    size_ = static_cast<std::uint64_t>(st.st_size);
    if (size_ > 0) {
        void* p = ::mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd_, 0);
        if (p == MAP_FAILED) {
            const int err = errno;
            ::close(fd_);
            throw WeightFileError(path.string(), "", std::string("cannot map: ") + std::strerror(err));
        }
        data_ = static_cast<const std::uint8_t*>(p);
    }
    // Loads read front to back: let the kernel read ahead generously on a cold cache.
    ::posix_fadvise(fd_, 0, 0, POSIX_FADV_SEQUENTIAL);
}

MappedFile::~MappedFile() {
    if (data_) ::munmap(const_cast<std::uint8_t*>(data_), size_);
    ::close(fd_);
}

void MappedFile::read(std::uint64_t offset, std::uint64_t length, void* dst,
                      const std::string& tensor) const {
    auto* out = static_cast<std::uint8_t*>(dst);
    while (length > 0) {
        const auto n = ::pread(fd_, out, length, static_cast<off_t>(offset));
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0)
            throw WeightFileError(
                path_.string(), tensor,
                "reading byte " + std::to_string(offset) + " failed: " +
                    (n == 0 ? std::string("the file ends there (it shrank while being loaded)")
                            : std::string(std::strerror(errno))));
        out += n;
        offset += static_cast<std::uint64_t>(n);
        length -= static_cast<std::uint64_t>(n);
    }
}

}  // namespace stageload
