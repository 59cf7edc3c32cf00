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
