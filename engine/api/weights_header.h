#pragma once
// What a safetensors weight file holds, read from its header alone: each tensor's name, dtype,
// shape and byte range, checked against the file's size. No Torch: the UI and the forecast can
// tell a model's size without loading it, and a fuzz target can feed it any bytes.
//
//   auto header = stageload::readSafetensorsHeader("unet.safetensors");
//   for (const auto& t : header.tensors) printf("%s %s %llu\n", t.name.c_str(),
//                                              t.dtypeName.c_str(), t.nbytes());
//
// Format: 8-byte little-endian header length N, N bytes of JSON header
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data section; offsets are relative to it.
//
// Every lie a header can tell (a length past the file, a shape whose size overflows, offsets
// that run backwards, overlap or end past the file, an unknown dtype) is a WeightFileError
// naming the file and the tensor; nothing else escapes. Pure functions, thread-safe.

#include <cstdint>
#include <filesystem>
#include <map>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace stageload {

/// The safetensors dtypes this project reads, with their element sizes: F64 F32 F16 BF16 I64
/// I32 I16 I8 U8 BOOL. 0 for any other name.
std::size_t safetensorsElementSize(std::string_view dtypeName);

struct WeightsEntry {
    std::string name;
    std::string dtypeName;             ///< as written in the file, e.g. "BF16"
    std::vector<std::int64_t> shape;   ///< every size fits an int64; their product too
    std::uint64_t begin = 0;           ///< absolute byte offset in the file
    std::uint64_t end = 0;             ///< one past the last byte

    std::uint64_t nbytes() const { return end - begin; }
};

struct WeightsHeader {
    std::vector<WeightsEntry> tensors;  ///< in the order of their data in the file
    std::map<std::string, std::string> metadata;
    std::uint64_t dataBytes() const;    ///< all tensors' bytes
};

/// Parses the header at the start of `bytes`, a file of `fileSize` bytes (bytes may be the
/// whole file or only its first 8 + N bytes); `name` is used in messages.
WeightsHeader parseSafetensorsHeader(std::span<const std::uint8_t> bytes, std::uint64_t fileSize,
                                     const std::string& name);

/// Reads only the header of the file at `path` (FileError when it cannot be read).
WeightsHeader readSafetensorsHeader(const std::filesystem::path& path);

}  // namespace stageload
