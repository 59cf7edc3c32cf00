#include "engine/load/raw_read.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <memory>
#include <sys/stat.h>
#include <unistd.h>

#include "guard/core/error.h"

namespace stageload {

RawRead measureRawRead(const std::filesystem::path& file) {
    const int fd = ::open(file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) throw FileError(file.string() + ": cannot open: " + std::strerror(errno));
    struct stat st {};
    ::fstat(fd, &st);
    const auto size = static_cast<std::size_t>(st.st_size);
    const auto start = std::chrono::steady_clock::now();
    std::unique_ptr<char[]> buffer(new char[size]);  // fresh pages, as a load's destination
    std::size_t done = 0;
    while (done < size) {
        const auto n = ::pread(fd, buffer.get() + done, size - done, static_cast<off_t>(done));
        if (n <= 0) {
            const int err = errno;
            ::close(fd);
            throw FileError(file.string() + ": read failed: " +
                            (n == 0 ? std::string("unexpected end of file") : std::strerror(err)));
        }
        done += static_cast<std::size_t>(n);
    }
    RawRead r;
    r.bytes = static_cast<std::int64_t>(size);
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    ::close(fd);
    return r;
}

}  // namespace stageload
