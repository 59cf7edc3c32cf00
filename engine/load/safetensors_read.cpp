#include <algorithm>
#include <array>
#include <cstring>
#include <memory>

#include <nlohmann/json.hpp>

#include "engine/api/errors.h"
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

// Header larger than this is not a weight file we should trust (real ones are kilobytes).
constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;
// Copies read the file in chunks of this size into a staging buffer and copy each on into the
// tensor. Reading straight into the tensor would make the kernel write to pages it has not
// written before, and first writes are slow under some hypervisors (on the 2-core VM this project
// is measured on, 0.4 GiB/s against 5 GiB/s through the staging buffer: README, Measured); copying
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
    const std::string name = path.string();
    auto fail = [&name](const std::string& tensor, const std::string& problem) -> WeightFileError {
        return WeightFileError(name, tensor, problem);
    };

    if (file.size() < 8)
        throw fail("", "is " + std::to_string(file.size()) +
                           " bytes, too short for a safetensors file (truncated or not weights)");
    std::uint64_t headerLen = 0;
    for (int i = 7; i >= 0; --i) headerLen = (headerLen << 8) | file.data()[i];
    if (headerLen > file.size() - 8)
        throw fail("", "header length " + std::to_string(headerLen) + " exceeds the file size (" +
                           std::to_string(file.size()) +
                           " bytes): the file is truncated or not a safetensors file");
    if (headerLen > kMaxHeaderBytes)
        throw fail("", "header length " + std::to_string(headerLen) + " is implausibly large");

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(file.data() + 8, file.data() + 8 + headerLen);
    } catch (const nlohmann::json::exception& e) {
        throw fail("", std::string("header is not valid JSON (") + e.what() + ")");
    }
    if (!header.is_object()) throw fail("", "header is not a JSON object");

    const std::uint64_t dataStart = 8 + headerLen;
    const std::uint64_t dataSize = file.size() - dataStart;
    for (const auto& [key, value] : header.items()) {
        if (key == "__metadata__") {
            if (!value.is_object()) throw fail("", "__metadata__ is not an object");
            for (const auto& [mk, mv] : value.items())
                f.metadata_[mk] = mv.is_string() ? mv.get<std::string>() : mv.dump();
            continue;
        }
        if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
            !value.contains("data_offsets"))
            throw fail(key, "entry lacks dtype, shape or data_offsets");
        const auto& jd = value["dtype"];
        const auto& js = value["shape"];
        const auto& jo = value["data_offsets"];
        if (!jd.is_string()) throw fail(key, "dtype is not a string");
        TensorEntry t;
        t.name = key;
        t.dtypeName = jd.get<std::string>();
        const auto dtype = dtypeFromSafetensors(t.dtypeName);
        if (!dtype)
            throw fail(key, "unknown dtype '" + t.dtypeName +
                                "' (supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
        t.dtype = *dtype;
        if (!js.is_array()) throw fail(key, "shape is not a list");
        std::uint64_t numel = 1;
        for (const auto& d : js) {
            if (!d.is_number_unsigned()) throw fail(key, "shape has a non-integer or negative size");
            const auto n = d.get<std::uint64_t>();
            if (n != 0 && numel > (std::uint64_t(1) << 62) / n)
                throw fail(key, "shape is implausibly large");
            numel *= n;
            t.shape.push_back(static_cast<std::int64_t>(n));
        }
        if (!jo.is_array() || jo.size() != 2 || !jo[0].is_number_unsigned() ||
            !jo[1].is_number_unsigned())
            throw fail(key, "data_offsets is not a pair of non-negative integers");
        const auto begin = jo[0].get<std::uint64_t>();
        const auto end = jo[1].get<std::uint64_t>();
        if (begin > end)
            throw fail(key, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                                "] run backwards");
        const auto need = numel * c10::elementSize(t.dtype);
        if (end - begin != need)
            throw fail(key, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                                "] hold " + std::to_string(end - begin) + " bytes but " +
                                t.dtypeName + " " + shapeText(t.shape) + " needs " +
                                std::to_string(need));
        if (end > dataSize)
            throw fail(key, "data ends at byte " + std::to_string(end) +
                                " of the data section, which has only " +
                                std::to_string(dataSize) + " bytes: the file is truncated");
        t.begin = dataStart + begin;
        t.end = dataStart + end;
        f.tensors_.push_back(std::move(t));
    }

    std::sort(f.tensors_.begin(), f.tensors_.end(), [](const auto& a, const auto& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    for (std::size_t i = 1; i < f.tensors_.size(); ++i) {
        const auto& prev = f.tensors_[i - 1];
        const auto& cur = f.tensors_[i];
        if (cur.begin < prev.end && cur.nbytes() > 0 && prev.nbytes() > 0)
            throw fail(cur.name, "its data overlaps tensor '" + prev.name + "'");
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
