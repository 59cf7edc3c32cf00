#pragma once
// The physical floor of a weight load: reading a file into a freshly allocated buffer of its
// size (SPEC §4.1), so load speeds can be set against it in the same run.
//
//   auto r = stageload::measureRawRead("unet.safetensors");
//   std::printf("%.2f GiB/s\n", r.bytes / r.seconds / (1 << 30));

#include <cstdint>
#include <filesystem>

namespace stageload {

struct RawRead {
    std::int64_t bytes = 0;
    double seconds = 0.0;
};

/// Reads the whole file once into a new buffer (freed before returning). Throws FileError.
RawRead measureRawRead(const std::filesystem::path& file);

}  // namespace stageload
