#include "engine/load/raw_read.h"

#include <algorithm>
#include <chrono>
#include <memory>

#include "engine/load/mapped_file.h"

namespace stageload {

RawRead measureRawRead(const std::filesystem::path& file) {
    const MappedFile f(file);  // read() uses pread(); the mapping is never touched
    const auto start = std::chrono::steady_clock::now();
    // Fresh pages, as a load's destination tensors are.
    std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[f.size()]);
    f.read(0, f.size(), buffer.get());
    RawRead r;
    r.bytes = static_cast<std::int64_t>(f.size());
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    return r;
}

void readThrough(const std::filesystem::path& file) {
    constexpr std::uint64_t kBuffer = 1 << 20;
    const MappedFile f(file);
    std::unique_ptr<std::uint8_t[]> buffer(new std::uint8_t[kBuffer]);
    for (std::uint64_t off = 0; off < f.size(); off += kBuffer)
        f.read(off, std::min(kBuffer, f.size() - off), buffer.get());
}

}  // namespace stageload
