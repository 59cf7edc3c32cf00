#pragma once
// Reads small kernel files (/proc/...) with one open and read, no iostreams: cheap enough for a
// sampler at 50 Hz.
//
//   std::string text;
//   if (stageload::readSmallFile("/proc/meminfo", text)) parse(text);
//
// Thread-safe (no shared state). Returns false (errno kept) when the file cannot be opened or
// read; throws nothing.

#include <string>

namespace stageload {

/// Replaces `out` with the whole file (up to `limit` bytes). Reuses out's capacity.
bool readSmallFile(const char* path, std::string& out, std::size_t limit = 1 << 20);

}  // namespace stageload

namespace stageload {

/// A small kernel file kept open and re-read from offset 0 each time (/proc files regenerate
/// their text on each read): saves the open and close of readSmallFile() for a 50 Hz sampler.
/// read() is thread-safe (pread); the object is move-only. A file that cannot be opened makes
/// every read() return false.
class KeptFile {
public:
    explicit KeptFile(const char* path);
    ~KeptFile();
    KeptFile(const KeptFile&) = delete;
    KeptFile& operator=(const KeptFile&) = delete;

    bool read(std::string& out, std::size_t limit = 1 << 20) const;
    bool isOpen() const { return fd_ >= 0; }

private:
    int fd_ = -1;
};

}  // namespace stageload
