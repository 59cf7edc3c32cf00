#include "engine/api/weights_header.h"

#include <algorithm>
#include <array>
#include <cstdint>
#include <cerrno>
#include <cstring>
#include <fstream>

#include <nlohmann/json.hpp>

#include "engine/api/errors.h"

namespace stageload {
namespace {

constexpr std::array<std::pair<std::string_view, std::size_t>, 10> kElementSizes{{
    {"F64", 8}, {"F32", 4}, {"F16", 2}, {"BF16", 2}, {"I64", 8},
    {"I32", 4}, {"I16", 2}, {"I8", 1},  {"U8", 1},   {"BOOL", 1},
}};

// A header larger than this is not a weight file to trust (real ones are kilobytes).
constexpr std::uint64_t kMaxHeaderBytes = 100ull << 20;

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string s = "[";
    for (std::size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
    return s + "]";
}

std::uint64_t headerLength(std::span<const std::uint8_t> bytes) {
    std::uint64_t n = 0;
    for (int i = 7; i >= 0; --i) n = (n << 8) | bytes[std::size_t(i)];
    return n;
}

}  // namespace

std::size_t safetensorsElementSize(std::string_view dtypeName) {
    for (const auto& [n, size] : kElementSizes)
        if (n == dtypeName) return size;
    return 0;
}

std::uint64_t WeightsHeader::dataBytes() const {
    std::uint64_t total = 0;
    for (const auto& t : tensors) total += t.nbytes();  // ranges do not overlap: no overflow
    return total;
}

WeightsHeader parseSafetensorsHeader(std::span<const std::uint8_t> bytes, std::uint64_t fileSize,
                                     const std::string& name) {
    auto fail = [&name](const std::string& tensor, const std::string& problem) {
        return WeightFileError(name, tensor, problem);
    };
    if (fileSize < 8 || bytes.size() < 8)
        throw fail("", "is " + std::to_string(fileSize) +
                           " bytes, too short for a safetensors file (truncated or not weights)");
    const std::uint64_t headerLen = headerLength(bytes);
    if (headerLen > fileSize - 8)
        throw fail("", "header length " + std::to_string(headerLen) + " exceeds the file size (" +
                           std::to_string(fileSize) +
                           " bytes): the file is truncated or not a safetensors file");
    if (headerLen > kMaxHeaderBytes)
        throw fail("", "header length " + std::to_string(headerLen) + " is implausibly large");
    if (headerLen > bytes.size() - 8)
        throw fail("", "the header could not be read whole (" + std::to_string(bytes.size()) +
                           " of " + std::to_string(8 + headerLen) + " bytes)");

    nlohmann::json header;
    try {
        header = nlohmann::json::parse(bytes.data() + 8, bytes.data() + 8 + headerLen);
    } catch (const nlohmann::json::exception& e) {
        throw fail("", std::string("header is not valid JSON (") + e.what() + ")");
    }
    if (!header.is_object()) throw fail("", "header is not a JSON object");

    WeightsHeader out;
    const std::uint64_t dataStart = 8 + headerLen;
    const std::uint64_t dataSize = fileSize - dataStart;
    for (const auto& [key, value] : header.items()) {
        if (key == "__metadata__") {
            if (!value.is_object()) throw fail("", "__metadata__ is not an object");
            for (const auto& [mk, mv] : value.items())
                out.metadata[mk] = mv.is_string() ? mv.get<std::string>() : mv.dump();
            continue;
        }
        if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
            !value.contains("data_offsets"))
            throw fail(key, "entry lacks dtype, shape or data_offsets");
        const auto& jd = value["dtype"];
        const auto& js = value["shape"];
        const auto& jo = value["data_offsets"];
        if (!jd.is_string()) throw fail(key, "dtype is not a string");
        WeightsEntry t;
        t.name = key;
        t.dtypeName = jd.get<std::string>();
        const std::size_t elementSize = safetensorsElementSize(t.dtypeName);
        if (elementSize == 0)
            throw fail(key, "unknown dtype '" + t.dtypeName +
                                "' (supported: F64 F32 F16 BF16 I64 I32 I16 I8 U8 BOOL)");
        if (!js.is_array()) throw fail(key, "shape is not a list");
        // Sizes and their product are checked as they grow, even past a 0 size (an empty
        // tensor): everything that later multiplies them stays within an int64.
        const std::string& tensor = key;  // clang 14 cannot capture a structured binding
        const auto implausible = [&] { return fail(tensor, "shape " + js.dump() + " is implausibly large"); };
        std::uint64_t count = 1;  // product of the nonzero sizes
        bool empty = false;
        for (const auto& d : js) {
            if (!d.is_number_unsigned()) throw fail(key, "shape has a non-integer or negative size");
            const auto n = d.get<std::uint64_t>();
            if (n > std::uint64_t(INT64_MAX)) throw implausible();
            if (n == 0) empty = true;
            else if (__builtin_mul_overflow(count, n, &count) || count > std::uint64_t(INT64_MAX))
                throw implausible();
            t.shape.push_back(static_cast<std::int64_t>(n));
        }
        std::uint64_t need = 0;
        if (!empty && (__builtin_mul_overflow(count, elementSize, &need) ||
                       need > std::uint64_t(INT64_MAX)))
            throw implausible();
        if (!jo.is_array() || jo.size() != 2 || !jo[0].is_number_unsigned() ||
            !jo[1].is_number_unsigned())
            throw fail(key, "data_offsets is not a pair of non-negative integers");
        const auto begin = jo[0].get<std::uint64_t>();
        const auto end = jo[1].get<std::uint64_t>();
        if (begin > end)
            throw fail(key, "data_offsets [" + std::to_string(begin) + ", " + std::to_string(end) +
                                "] run backwards");
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
        out.tensors.push_back(std::move(t));
    }

    std::sort(out.tensors.begin(), out.tensors.end(), [](const auto& a, const auto& b) {
        return a.begin != b.begin ? a.begin < b.begin : a.end < b.end;
    });
    for (std::size_t i = 1; i < out.tensors.size(); ++i) {
        const auto& prev = out.tensors[i - 1];
        const auto& cur = out.tensors[i];
        if (cur.begin < prev.end && cur.nbytes() > 0 && prev.nbytes() > 0)
            throw fail(cur.name, "its data overlaps tensor '" + prev.name + "'");
    }
    return out;
}

WeightsHeader readSafetensorsHeader(const std::filesystem::path& path) {
    const std::string name = path.string();
    std::ifstream in(path, std::ios::binary);
    std::error_code ec;
    const auto size = std::filesystem::file_size(path, ec);
    if (!in || ec)
        throw FileError("cannot read weights '" + name + "': " +
                        (ec ? ec.message() : std::string(std::strerror(errno))));
    std::vector<std::uint8_t> bytes(std::min<std::uint64_t>(size, 8));
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(bytes.size()));
    if (bytes.size() == 8) {
        const std::uint64_t n = headerLength(bytes);
        if (n <= size - 8 && n <= kMaxHeaderBytes) {
            bytes.resize(8 + n);
            in.read(reinterpret_cast<char*>(bytes.data() + 8), std::streamsize(n));
        }
    }
    if (!in) throw FileError("cannot read weights '" + name + "': " + std::strerror(errno));
    return parseSafetensorsHeader(bytes, size, name);
}

}  // namespace stageload
