#include "guard/base/small_file.h"

#include <cerrno>

#include <fcntl.h>
#include <unistd.h>

namespace stageload {

bool readSmallFile(const char* path, std::string& out, std::size_t limit) {
    out.clear();
    const int fd = ::open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return false;
    char buf[4096];
    bool ok = true;
    while (out.size() < limit) {
        const ssize_t n = ::read(fd, buf, sizeof buf);
        if (n < 0) {
            if (errno == EINTR) continue;
            ok = false;
            break;
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
    }
    const int saved = errno;
    ::close(fd);
    errno = saved;
    return ok;
}

}  // namespace stageload

namespace stageload {

KeptFile::KeptFile(const char* path) : fd_(::open(path, O_RDONLY | O_CLOEXEC)) {}

KeptFile::~KeptFile() {
    if (fd_ >= 0) ::close(fd_);
}

bool KeptFile::read(std::string& out, std::size_t limit) const {
    out.clear();
    if (fd_ < 0) return false;
    char buf[4096];
    off_t offset = 0;
    while (out.size() < limit) {
        const ssize_t n = ::pread(fd_, buf, sizeof buf, offset);
        if (n < 0) {
            if (errno == EINTR) continue;
            return false;
        }
        if (n == 0) break;
        out.append(buf, static_cast<std::size_t>(n));
        offset += n;
    }
    return true;
}

}  // namespace stageload
