#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include "engine/api/errors.h"
#include "engine/api/weights_header.h"
#include "engine/load/mapped_file.h"
#include "engine/load/safetensors.h"

namespace stageload {
namespace {

constexpr std::array<std::pair<std::string_view, torch::Dtype>, 10> kDtypes{{
    {"F64", torch::kFloat64},
    {"F32", torch::kFloat32},
    {"F16", torch::kFloat16},
    {"BF16", torch::kBFloat16},
    {"I64", torch::kInt64},
    {"I32", torch::kInt32},
    {"I16", torch::kInt16},
    {"I8", torch::kInt8},
    {"U8", torch::kUInt8},
    {"BOOL", torch::kBool},
}};

// Copies read the file in chunks of this size into a staging buffer and copy each on into the
// tensor. Reading straight into the tensor would make the kernel write to pages it has not
// written before, and first writes are slow under some hypervisors (on a 2-core KVM guest, 0.4 GiB/s
// against 5 GiB/s through the staging buffer: README, Measured); copying
// from a mapping of the file faults in every page of the source instead (1.1 GiB/s there). A
// staging chunk stays in the CPU cache, so the second copy costs little on any machine.
constexpr std::uint64_t kStagingBytes = 1ull << 20;

// One staging buffer per thread, kept for the thread's life: reused buffers are already mapped,
// which is the point, and per-thread keeps concurrent reads safe.
std::unique_ptr<std::uint8_t[]>& stagingBuffer() {
    thread_local auto buffer = std::make_unique_for_overwrite<std::uint8_t[]>(kStagingBytes);
    return buffer;
}

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

}  // namespace

std::optional<torch::Dtype> dtypeFromSafetensors(std::string_view name) {
    for (const auto& [n, d] : kDtypes)
        if (n == name) return d;
    return std::nullopt;
}

std::string safetensorsDtypeName(torch::Dtype dtype) {
    for (const auto& [n, d] : kDtypes)
        if (d == dtype) return std::string(n);
    throw Error(std::string("dtype ") + c10::toString(dtype) + " cannot be stored in safetensors");
}

SafetensorsFile SafetensorsFile::open(const std::filesystem::path& path) {
    SafetensorsFile f;
    f.file_ = std::make_shared<MappedFile>(path);
    const auto& file = *f.file_;
    auto header = parseSafetensorsHeader({file.data(), file.size()}, file.size(), path.string());
    f.metadata_ = std::move(header.metadata);
    f.tensors_.reserve(header.tensors.size());
    for (auto& entry : header.tensors) {
        // Every dtype the header parser accepts has a Torch dtype.
        const auto dtype = dtypeFromSafetensors(entry.dtypeName);
        if (!dtype) throw WeightFileError(path.string(), entry.name, "unknown dtype " + entry.dtypeName);
        f.tensors_.push_back({std::move(entry.name), std::move(entry.dtypeName), *dtype,
                              std::move(entry.shape), entry.begin, entry.end});
    }
    for (std::size_t i = 0; i < f.tensors_.size(); ++i) f.index_[f.tensors_[i].name] = i;
    return f;
}

const std::filesystem::path& SafetensorsFile::path() const { return file_->path(); }

const TensorEntry* SafetensorsFile::find(const std::string& name) const {
    auto it = index_.find(name);
    return it == index_.end() ? nullptr : &tensors_[it->second];
}

const TensorEntry& SafetensorsFile::at(const std::string& name) const {
    if (const auto* t = find(name)) return *t;
    throw WeightFileError(path().string(), name,
                          "not in the file (it has " + std::to_string(tensors_.size()) +
                              " tensors); the weights do not match this model");
}

std::uint64_t SafetensorsFile::dataBytes() const {
    std::uint64_t total = 0;
    for (const auto& t : tensors_) total += t.nbytes();
    return total;
}

torch::Tensor SafetensorsFile::map(const std::string& name) const {
    const auto& t = at(name);
    auto keep = file_;  // the view keeps the mapping alive
    void* ptr = const_cast<std::uint8_t*>(file_->data() + t.begin);
    if (t.nbytes() == 0) return torch::empty(t.shape, torch::TensorOptions().dtype(t.dtype));
    return torch::from_blob(ptr, t.shape, [keep](void*) {}, torch::TensorOptions().dtype(t.dtype));
}

torch::Tensor SafetensorsFile::read(const std::string& name) const {
    const auto& t = at(name);
    auto out = torch::empty(t.shape, torch::TensorOptions().dtype(t.dtype));
    readInto(name, out);
    return out;
}

void SafetensorsFile::readInto(const std::string& name, torch::Tensor& dst) const {
    const auto& t = at(name);
    if (dst.sizes() != c10::IntArrayRef(t.shape))
        throw WeightFileError(path().string(), name,
                              "shape " + shapeText(t.shape) + " in the file, but the model expects " +
                                  shapeText(dst.sizes().vec()));
    if (t.nbytes() == 0) return;

    torch::NoGradGuard noGrad;
    auto& staging = stagingBuffer();
    const bool direct = dst.device().is_cpu() && dst.is_contiguous() && dst.dtype() == t.dtype;
    if (direct) {
        auto* out = static_cast<std::uint8_t*>(dst.data_ptr());
        for (std::uint64_t off = 0; off < t.nbytes(); off += kStagingBytes) {
            const auto n = std::min<std::uint64_t>(kStagingBytes, t.nbytes() - off);
            file_->read(t.begin + off, n, staging.get(), name);
            std::memcpy(out + off, staging.get(), n);
        }
        return;
    }
    // Converting dtype and/or device: each staged chunk is copied (converted) into its place.
    const auto elem = static_cast<std::int64_t>(c10::elementSize(t.dtype));
    const std::int64_t numel = static_cast<std::int64_t>(t.nbytes()) / elem;
    const std::int64_t chunk = static_cast<std::int64_t>(kStagingBytes) / elem;
    auto target = dst.is_contiguous() ? dst.view({-1}) : torch::empty({numel}, dst.options());
    for (std::int64_t first = 0; first < numel; first += chunk) {
        const auto count = std::min(chunk, numel - first);
        file_->read(t.begin + static_cast<std::uint64_t>(first * elem),
                    static_cast<std::uint64_t>(count * elem), staging.get(), name);
        // A synchronous copy: the staging buffer is free again when it returns.
        target.narrow(0, first, count)
            .copy_(torch::from_blob(staging.get(), {count}, torch::TensorOptions().dtype(t.dtype)));
    }
    if (!dst.is_contiguous()) dst.copy_(target.view(dst.sizes()));
}

}  // namespace stageload
