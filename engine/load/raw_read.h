#pragma once
// The physical floor of a weight load: reading a file into a freshly allocated buffer of its
// size, so load speeds can be set against it in the same run.
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

/// Reads the whole file once into a new buffer (freed before returning). Throws WeightFileError (a
/// FileError) naming the file.
RawRead measureRawRead(const std::filesystem::path& file);

/// Reads the whole file once through a small reused buffer, untimed, so that later reads find it
/// in the page cache (as far as memory allows): loads and the raw read are then compared on the
/// same footing, whether or not the files were cached before. Throws WeightFileError.
void readThrough(const std::filesystem::path& file);

}  // namespace stageload
