// Reading a Stanford PLY (ascii, binary little- or big-endian) into a TexturedMesh.
#include <algorithm>
#include <array>
#include <bit>
#include <cctype>
#include <charconv>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string_view>

#include "guard/base/text.h"
#include "guard/base/units.h"
#include "engine/media/mesh_files.h"

namespace stageload {
namespace {

enum class Scalar { Int8, UInt8, Int16, UInt16, Int32, UInt32, Float32, Float64 };

std::optional<Scalar> scalarNamed(std::string_view name) {
    static constexpr std::pair<std::string_view, Scalar> kNames[] = {
        {"char", Scalar::Int8},     {"int8", Scalar::Int8},       {"uchar", Scalar::UInt8},
        {"uint8", Scalar::UInt8},   {"short", Scalar::Int16},     {"int16", Scalar::Int16},
        {"ushort", Scalar::UInt16}, {"uint16", Scalar::UInt16},   {"int", Scalar::Int32},
        {"int32", Scalar::Int32},   {"uint", Scalar::UInt32},     {"uint32", Scalar::UInt32},
        {"float", Scalar::Float32}, {"float32", Scalar::Float32}, {"double", Scalar::Float64},
        {"float64", Scalar::Float64}};
    for (const auto& [n, s] : kNames)
        if (n == name) return s;
    return std::nullopt;
}

std::size_t sizeOf(Scalar s) {
    switch (s) {
        case Scalar::Int8:
        case Scalar::UInt8: return 1;
        case Scalar::Int16:
        case Scalar::UInt16: return 2;
        case Scalar::Int32:
        case Scalar::UInt32:
        case Scalar::Float32: return 4;
        case Scalar::Float64: return 8;
    }
    return 1;
}

struct Property {
    std::string name;
    Scalar type = Scalar::Float32;
    bool list = false;
    Scalar countType = Scalar::UInt8;
};

struct Element {
    std::string name;
    std::uint64_t count = 0;
    std::vector<Property> properties;
};

enum class Encoding { Ascii, LittleEndian, BigEndian };

// Reads the body's values one at a time, whatever the encoding; every failure names the file,
// the element and its index.
class BodyReader {
public:
    BodyReader(const std::string& data, std::size_t offset, Encoding encoding, const std::filesystem::path& path)
        : data_(data), pos_(offset), encoding_(encoding), path_(path) {}

    double value(Scalar type) {
        return encoding_ == Encoding::Ascii ? asciiValue() : binaryValue(type);
    }
    /// Ascii: the rest of an element's line must be empty.
    void endElement() {
        if (encoding_ != Encoding::Ascii) return;
        while (pos_ < data_.size() && (data_[pos_] == ' ' || data_[pos_] == '\t' || data_[pos_] == '\r')) ++pos_;
        if (pos_ < data_.size() && data_[pos_] != '\n') fail("more values than its properties");
        if (pos_ < data_.size()) ++pos_;
    }
    std::size_t remaining() const { return data_.size() - pos_; }
    void setContext(std::string context) { context_ = std::move(context); }
    [[noreturn]] void fail(const std::string& problem) const {
        throw FileError(path_.string() + ": " + context_ + ": " + problem + "; the file is not a PLY mesh Stageload can read");
    }

private:
    double asciiValue() {
        while (pos_ < data_.size() && (data_[pos_] == ' ' || data_[pos_] == '\t' || data_[pos_] == '\r')) ++pos_;
        if (pos_ >= data_.size() || data_[pos_] == '\n') fail("fewer values than its properties");
        std::size_t end = pos_;
        while (end < data_.size() && !std::isspace(static_cast<unsigned char>(data_[end]))) ++end;
        const char* first = data_.data() + pos_;
        double v = 0.0;
        const auto [stop, ec] = std::from_chars(first, data_.data() + end, v);
        if (ec != std::errc() || stop != data_.data() + end)
            fail("'" + std::string(first, data_.data() + end) + "' is not a number");
        pos_ = end;
        return v;
    }

    double binaryValue(Scalar type) {
        const std::size_t n = sizeOf(type);
        if (remaining() < n) fail("the file ends early (truncated)");
        unsigned char b[8];
        std::memcpy(b, data_.data() + pos_, n);
        pos_ += n;
        if ((encoding_ == Encoding::BigEndian) != (std::endian::native == std::endian::big)) std::reverse(b, b + n);
        switch (type) {
            case Scalar::Int8: return static_cast<std::int8_t>(b[0]);
            case Scalar::UInt8: return b[0];
            case Scalar::Int16: return load<std::int16_t>(b);
            case Scalar::UInt16: return load<std::uint16_t>(b);
            case Scalar::Int32: return load<std::int32_t>(b);
            case Scalar::UInt32: return load<std::uint32_t>(b);
            case Scalar::Float32: return load<float>(b);
            case Scalar::Float64: return load<double>(b);
        }
        return 0.0;
    }
    template <class T>
    static double load(const unsigned char* b) {
        T v;
        std::memcpy(&v, b, sizeof v);
        return static_cast<double>(v);
    }

    const std::string& data_;
    std::size_t pos_;
    Encoding encoding_;
    const std::filesystem::path& path_;
    std::string context_ = "header";
};

std::string readBytes(const std::filesystem::path& path) {
    std::ifstream in(path, std::ios::binary);
    std::ostringstream bytes;
    if (!in || !(bytes << in.rdbuf()))
        throw FileError(path.string() + ": cannot be read; check that it is a readable file");
    return std::move(bytes).str();
}

struct Header {
    Encoding encoding = Encoding::Ascii;
    std::vector<Element> elements;
    std::string textureFile;
    std::size_t bodyOffset = 0;
};

Header parseHeader(const std::string& data, const std::filesystem::path& path) {
    const auto fail = [&](const std::string& problem) -> void {
        throw FileError(path.string() + ": " + problem + "; the file is not a PLY mesh Stageload can read");
    };
    if (data.rfind("ply", 0) != 0 || data.size() < 4 || (data[3] != '\n' && data[3] != '\r'))
        fail("it does not start with 'ply'");
    Header h;
    bool format = false;
    std::size_t pos = 0, lineNumber = 0;
    for (;;) {
        const std::size_t end = data.find('\n', pos);
        if (end == std::string::npos) fail("its header has no end_header line");
        std::string_view line(data.data() + pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
        const auto where = "header line " + std::to_string(lineNumber) + ": ";
        std::vector<std::string> words;
        for (std::size_t i = 0; i < line.size();) {
            while (i < line.size() && (line[i] == ' ' || line[i] == '\t')) ++i;
            const std::size_t start = i;
            while (i < line.size() && line[i] != ' ' && line[i] != '\t') ++i;
            if (i > start) words.emplace_back(line.substr(start, i - start));
        }
        if (words.empty() || words[0] == "ply" || words[0] == "obj_info") continue;
        if (words[0] == "comment") {
            // "comment TextureFile name.png" (MeshLab's convention; the name may hold spaces).
            if (words.size() >= 3 && asciiLower(words[1]) == "texturefile") {
                const auto at = line.find(words[1]) + words[1].size();
                h.textureFile = std::string(trim(line.substr(at)));
            }
            continue;
        }
        if (words[0] == "format") {
            if (words.size() != 3 || words[2] != "1.0") fail(where + "format must be 'FORMAT 1.0'");
            if (words[1] == "ascii") h.encoding = Encoding::Ascii;
            else if (words[1] == "binary_little_endian") h.encoding = Encoding::LittleEndian;
            else if (words[1] == "binary_big_endian") h.encoding = Encoding::BigEndian;
            else fail(where + "'" + words[1] + "' is not a PLY format");
            format = true;
            continue;
        }
        if (words[0] == "element") {
            std::uint64_t count = 0;
            if (words.size() != 3 ||
                std::from_chars(words[2].data(), words[2].data() + words[2].size(), count).ec != std::errc())
                fail(where + "an element needs a name and a count");
            h.elements.push_back({words[1], count, {}});
            continue;
        }
        if (words[0] == "property") {
            if (h.elements.empty()) fail(where + "a property before any element");
            Property p;
            if (words.size() == 5 && words[1] == "list") {
                const auto count = scalarNamed(words[2]), item = scalarNamed(words[3]);
                if (!count || !item) fail(where + "unknown list types '" + words[2] + " " + words[3] + "'");
                p = {words[4], *item, true, *count};
            } else if (words.size() == 3) {
                const auto type = scalarNamed(words[1]);
                if (!type) fail(where + "unknown type '" + words[1] + "'");
                p = {words[2], *type, false, Scalar::UInt8};
            } else {
                fail(where + "a property needs a type and a name");
            }
            h.elements.back().properties.push_back(p);
            continue;
        }
        if (words[0] == "end_header") break;
        fail(where + "unknown keyword '" + words[0] + "'");
    }
    if (!format) fail("its header has no format line");
    h.bodyOffset = pos;
    return h;
}

int indexOf(const Element& e, std::initializer_list<std::string_view> names) {
    for (const auto name : names)
        for (std::size_t i = 0; i < e.properties.size(); ++i)
            if (!e.properties[i].list && e.properties[i].name == name) return static_cast<int>(i);
    return -1;
}

}  // namespace

TexturedMesh readPly(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw FileError(path.string() + ": no such file; check the path");
    return decodePly(readBytes(path), path);
}

TexturedMesh decodePly(const std::string& data, const std::filesystem::path& path) {
    const Header h = parseHeader(data, path);
    BodyReader body(data, h.bodyOffset, h.encoding, path);

    TexturedMesh out;
    out.name = path.stem().string();
    bool hasNormals = false, sawVertices = false, sawFaces = false;
    for (const Element& e : h.elements) {
        // A count the rest of the file cannot hold is refused before anything is allocated.
        const std::size_t minBytes = std::max<std::size_t>(1, e.properties.size());
        if (e.count > body.remaining() / minBytes + 1) {
            body.setContext("element " + e.name);
            body.fail("its count " + std::to_string(e.count) + " is more than the file holds");
        }
        const bool vertices = e.name == "vertex" && !sawVertices;
        const bool faces = e.name == "face" && !sawFaces;
        const int x = indexOf(e, {"x"}), y = indexOf(e, {"y"}), z = indexOf(e, {"z"});
        const int nx = indexOf(e, {"nx"}), ny = indexOf(e, {"ny"}), nz = indexOf(e, {"nz"});
        const int u = indexOf(e, {"s", "u", "texture_u", "texture_s"});
        const int v = indexOf(e, {"t", "v", "texture_v", "texture_t"});
        int corners = -1;
        for (std::size_t i = 0; i < e.properties.size(); ++i)
            if (e.properties[i].list && (e.properties[i].name == "vertex_indices" || e.properties[i].name == "vertex_index"))
                corners = static_cast<int>(i);
        if (vertices && (x < 0 || y < 0 || z < 0)) {
            body.setContext("element vertex");
            body.fail("it has no x, y and z properties");
        }
        if (faces && corners < 0) {
            body.setContext("element face");
            body.fail("it has no vertex_indices list");
        }
        if (vertices) {
            out.positions.reserve(3 * e.count);
            out.normals.assign(3 * e.count, 0.0f);
            out.uvs.assign(2 * e.count, 0.0f);
            hasNormals = nx >= 0 && ny >= 0 && nz >= 0;
        }
        std::vector<double> row(e.properties.size());
        std::vector<std::uint32_t> polygon;
        for (std::uint64_t k = 0; k < e.count; ++k) {
            body.setContext(e.name + " " + std::to_string(k));
            for (std::size_t i = 0; i < e.properties.size(); ++i) {
                const Property& p = e.properties[i];
                if (!p.list) {
                    row[i] = body.value(p.type);
                    continue;
                }
                const double count = body.value(p.countType);
                // In range before the cast (a NaN fails here, never reaches it), then whole.
                if (!(count >= 0 && count <= std::min(static_cast<double>(body.remaining()), 4294967295.0)) ||
                    count != static_cast<double>(static_cast<std::uint32_t>(count)))
                    body.fail("a list of " + formatNumber(count) + " items");
                const bool indices = faces && static_cast<int>(i) == corners;
                if (indices) polygon.clear();
                for (std::uint32_t c = 0; c < static_cast<std::uint32_t>(count); ++c) {
                    const double index = body.value(p.type);
                    if (!indices) continue;
                    if (!(index >= 0 && index < static_cast<double>(out.vertexCount())) ||
                        index != static_cast<std::uint32_t>(index))
                        body.fail("vertex index " + formatNumber(index) + " is out of range (" +
                                  std::to_string(out.vertexCount()) + " vertices before it)");
                    polygon.push_back(static_cast<std::uint32_t>(index));
                }
                if (indices) {
                    if (polygon.size() < 3) body.fail("a face of " + std::to_string(polygon.size()) + " corners");
                    for (std::size_t c = 1; c + 1 < polygon.size(); ++c)
                        out.indices.insert(out.indices.end(), {polygon[0], polygon[c], polygon[c + 1]});
                }
            }
            body.endElement();
            if (vertices) {
                out.positions.insert(out.positions.end(), {static_cast<float>(row[x]), static_cast<float>(row[y]),
                                                           static_cast<float>(row[z])});
                if (hasNormals)
                    for (int c = 0; c < 3; ++c) out.normals[3 * k + c] = static_cast<float>(row[(c == 0 ? nx : c == 1 ? ny : nz)]);
                if (u >= 0 && v >= 0) {
                    out.uvs[2 * k] = static_cast<float>(row[u]);
                    out.uvs[2 * k + 1] = 1.0f - static_cast<float>(row[v]);  // PLY's t counts from the bottom
                }
            }
        }
        sawVertices = sawVertices || vertices;
        sawFaces = sawFaces || faces;
    }
    if (!sawVertices || out.indices.empty())
        throw FileError(path.string() + ": it has no " + (sawVertices ? "faces" : "vertices") +
                        "; the file is not a PLY mesh Stageload can read");
    if (!hasNormals) out.normals = smoothNormals(out.positions, out.indices);
    if (!h.textureFile.empty()) {
        try {
            out.texture = toRgb(readImageFile(path.parent_path() / h.textureFile).image);
        } catch (const Error&) {
            // As for OBJ: a missing or broken texture leaves the mesh untextured (clay).
        }
    }
    return out;
}

}  // namespace stageload
