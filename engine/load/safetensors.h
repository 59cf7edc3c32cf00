#pragma once
// Safetensors weight files: the header and zero-copy views through a memory mapping, copies with
// pread() through a small staging buffer; written atomically.
//
//   auto file = stageload::SafetensorsFile::open("unet.safetensors");   // validates the header
//   stageload::loadWeights(*unet, file);       // copies each tensor once into the module
//   torch::Tensor w = file.read("proj.weight");                 // a fresh CPU tensor
//   torch::Tensor v = file.map("proj.weight");                  // zero-copy view of the file
//
//   stageload::writeSafetensors("out.safetensors", {{"w", w}}); // temp file, then rename
//
// Format: 8-byte little-endian header length N, N bytes of JSON header
// {"name": {"dtype": "F32", "shape": [..], "data_offsets": [begin, end]}, "__metadata__": {..}},
// then the data section. Offsets are relative to the data section.
//
// Every format problem (truncated file, offsets that lie, unknown dtype, missing tensor, shape
// mismatch) is a WeightFileError naming the file and the tensor. A SafetensorsFile is immutable
// after open() and safe to read from several threads.

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "engine/core/torch_nn.h"

namespace stageload {

class MappedFile;

/// The safetensors dtype names this engine reads and writes: F64 F32 F16 BF16 I64 I32 I16 I8
/// U8 BOOL.
std::optional<torch::Dtype> dtypeFromSafetensors(std::string_view name);
/// The safetensors name of a dtype; throws stageload::Error for dtypes the format lacks.
std::string safetensorsDtypeName(torch::Dtype dtype);

struct TensorEntry {
    std::string name;
    std::string dtypeName;            ///< as written in the file, e.g. "BF16"
    torch::Dtype dtype;
    std::vector<std::int64_t> shape;
    std::uint64_t begin = 0;          ///< absolute byte offset in the file
    std::uint64_t end = 0;            ///< one past the last byte

    std::uint64_t nbytes() const { return end - begin; }
};

class SafetensorsFile {
public:
    /// Maps the file and validates its header against the file size.
    static SafetensorsFile open(const std::filesystem::path& path);

    const std::filesystem::path& path() const;
    /// Tensors in the order of their data in the file.
    const std::vector<TensorEntry>& tensors() const { return tensors_; }
    const std::map<std::string, std::string>& metadata() const { return metadata_; }
    /// nullptr if absent.
    const TensorEntry* find(const std::string& name) const;
    /// WeightFileError ("not in the file") if absent.
    const TensorEntry& at(const std::string& name) const;
    /// Sum of all tensors' bytes.
    std::uint64_t dataBytes() const;

    /// A new CPU tensor holding a copy of the tensor's data.
    torch::Tensor read(const std::string& name) const;
    /// A CPU tensor that uses the mapped file pages directly (no copy; pages count as resident
    /// once touched). Keeps the mapping alive while the tensor lives. Read-only: writing to it
    /// is undefined.
    torch::Tensor map(const std::string& name) const;
    /// Copies the tensor into `dst` (same shape; any dtype and device: converted as it goes)
    /// through a 1 MiB staging buffer per thread, so a load holds no more than the tensors it
    /// fills (plus one temporary for a non-contiguous `dst`). WeightFileError on shape mismatch
    /// or a failed read.
    void readInto(const std::string& name, torch::Tensor& dst) const;

private:
    SafetensorsFile() = default;

    std::shared_ptr<const MappedFile> file_;
    std::vector<TensorEntry> tensors_;
    std::map<std::string, std::size_t> index_;
    std::map<std::string, std::string> metadata_;
};

/// Writes tensors (any device, any layout; converted to contiguous CPU one at a time) to `path`
/// through a temporary file in the same folder that is renamed into place, so a failed write
/// (disk full, bad folder) never leaves a half-written file. WeightFileError naming the file.
void writeSafetensors(const std::filesystem::path& path,
                      const std::vector<std::pair<std::string, torch::Tensor>>& tensors,
                      const std::map<std::string, std::string>& metadata = {});

struct LoadWeightsOptions {
    /// Tensors in the file that the module does not have are an error (listing them).
    bool strict = true;
};

struct LoadWeightsReport {
    std::int64_t tensors = 0;
    std::int64_t bytes = 0;
};

/// Copies every parameter and buffer of `module` (names as in named_parameters(), recursive)
/// from `file`, under NoGradGuard, each tensor once into its existing storage. WeightFileError
/// for missing tensors, shape mismatches and (strict) unexpected tensors.
LoadWeightsReport loadWeights(torch::nn::Module& module, const SafetensorsFile& file,
                              LoadWeightsOptions options = {});

/// The named parameters and buffers of `module`, in the order the module lists them.
std::vector<std::pair<std::string, torch::Tensor>> namedWeights(const torch::nn::Module& module);

}  // namespace stageload
