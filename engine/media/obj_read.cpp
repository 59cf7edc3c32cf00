// Reading Wavefront OBJ (+ MTL + texture) into a TexturedMesh.
#include <algorithm>
#include <cctype>
#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>
#include <string_view>
#include <unordered_map>

#include "guard/base/text.h"
#include "engine/media/mesh_files.h"

namespace stageload {
namespace {

constexpr std::int64_t kAbsent = -1;

/// One face corner, 0-based indices into the file's v / vt / vn lists (kAbsent when not given).
struct Corner {
    std::int64_t v = kAbsent, vt = kAbsent, vn = kAbsent;
    bool operator==(const Corner&) const = default;
};

struct CornerHash {
    std::size_t operator()(const Corner& c) const noexcept {
        std::size_t h = std::hash<std::int64_t>()(c.v);
        h ^= std::hash<std::int64_t>()(c.vt) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        h ^= std::hash<std::int64_t>()(c.vn) + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2);
        return h;
    }
};

void splitTokens(std::string_view line, std::vector<std::string_view>& tokens) {
    tokens.clear();
    std::size_t i = 0;
    while (i < line.size()) {
        while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        const std::size_t start = i;
        while (i < line.size() && !std::isspace(static_cast<unsigned char>(line[i]))) ++i;
        if (i > start) tokens.push_back(line.substr(start, i - start));
    }
}

bool parseFloat(std::string_view s, float& out) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

bool parseInt(std::string_view s, std::int64_t& out) {
    if (!s.empty() && s.front() == '+') s.remove_prefix(1);
    const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
    return ec == std::errc() && end == s.data() + s.size();
}

std::string readText(const std::filesystem::path& path) {
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw FileError(path.string() + ": no such file; check the path");
    std::ifstream in(path, std::ios::binary);
    std::ostringstream text;
    if (!in || !(text << in.rdbuf()))
        throw FileError(path.string() + ": cannot be read; check that it is a readable file");
    return std::move(text).str();
}

/// Calls `onLine(lineNumber, line)` for each logical line: comments stripped, `\`-continued
/// lines joined (numbered by their first line), blank lines skipped.
template <class F>
void forEachLine(const std::string& text, F onLine) {
    std::size_t pos = 0, lineNumber = 0;
    std::string joined;
    while (pos < text.size()) {
        std::size_t end = text.find('\n', pos);
        if (end == std::string::npos) end = text.size();
        std::string_view line(text.data() + pos, end - pos);
        pos = end + 1;
        ++lineNumber;
        const std::size_t first = lineNumber;
        if (const auto hash = line.find('#'); hash != std::string_view::npos)
            line = line.substr(0, hash);
        line = trim(line);
        if (!line.empty() && line.back() == '\\') {
            joined.assign(line.substr(0, line.size() - 1));
            while (pos < text.size()) {
                end = text.find('\n', pos);
                if (end == std::string::npos) end = text.size();
                auto next = std::string_view(text.data() + pos, end - pos);
                pos = end + 1;
                ++lineNumber;
                if (const auto hash = next.find('#'); hash != std::string_view::npos)
                    next = next.substr(0, hash);
                joined += ' ';
                joined += trim(next);
                if (joined.back() != '\\') break;
                joined.pop_back();
            }
            line = trim(joined);
        }
        if (!line.empty()) onLine(first, line);
    }
}

/// `name` of a file referenced from `base`'s folder (OBJ files written on Windows use `\`).
std::filesystem::path besides(const std::filesystem::path& base, std::string_view name) {
    std::string file(name);
    std::replace(file.begin(), file.end(), '\\', '/');
    const std::filesystem::path p(file);
    return p.is_absolute() ? p : base.parent_path() / p;
}

/// The file name of a `map_Kd [options] file` line, options skipped.
std::string_view mapFileName(std::string_view rest) {
    std::vector<std::string_view> tokens;
    splitTokens(rest, tokens);
    std::size_t i = 0;
    while (i < tokens.size() && tokens[i].size() > 1 && tokens[i].front() == '-') {
        const auto option = asciiLower(tokens[i++]);
        float number = 0;
        if (option == "-o" || option == "-s" || option == "-t") {
            for (int k = 0; k < 3 && i + 1 < tokens.size() && parseFloat(tokens[i], number); ++k)
                ++i;
        } else if (option == "-mm") {
            i += 2;
        } else {  // -blendu -blendv -boost -texres -clamp -bm -imfchan -type -cc
            ++i;
        }
    }
    if (i >= tokens.size()) return {};
    return trim(std::string_view(tokens[i].data(), rest.data() + rest.size() - tokens[i].data()));
}

/// Material name → its map_Kd path, from one .mtl file. Unreadable files give no materials.
void readMaterials(const std::filesystem::path& mtlPath,
                   std::unordered_map<std::string, std::filesystem::path>& textures,
                   std::string& firstTextured) {
    std::string text;
    try {
        text = readText(mtlPath);
    } catch (const Error&) {
        return;  // documented: a missing .mtl only costs the texture
    }
    std::string current;
    forEachLine(text, [&](std::size_t, std::string_view line) {
        const auto space = line.find_first_of(" \t");
        const auto keyword = asciiLower(line.substr(0, space));
        const auto rest =
            space == std::string_view::npos ? std::string_view() : trim(line.substr(space));
        if (keyword == "newmtl") {
            current = std::string(rest);
        } else if (keyword == "map_kd" && !textures.count(current)) {
            const auto file = mapFileName(rest);
            if (file.empty()) return;
            textures[current] = besides(mtlPath, file);
            if (firstTextured.empty()) firstTextured = current;
        }
    });
}

Image readTexture(const std::filesystem::path& path) {
    try {
        return toRgb(readImageFile(path).image);
    } catch (const Error&) {
        return {};  // documented: a missing or broken texture leaves the mesh untextured
    }
}

}  // namespace

TexturedMesh readObj(const std::filesystem::path& path) {
    const std::string text = readText(path);
    std::vector<float> filePositions, fileUvs, fileNormals;
    std::vector<std::string> usedMaterials;
    std::unordered_map<std::string, std::filesystem::path> textures;
    std::string firstTextured;
    TexturedMesh out;
    std::vector<bool> hasNormal;
    std::unordered_map<Corner, std::uint32_t, CornerHash> vertexOf;
    std::vector<std::string_view> tokens;
    std::vector<std::uint32_t> polygon;

    forEachLine(text, [&](std::size_t lineNumber, std::string_view line) {
        auto fail = [&](const std::string& what) {
            throw FileError(path.string() + ", line " + std::to_string(lineNumber) + ": " + what +
                            "; fix or re-export the file");
        };
        splitTokens(line, tokens);
        const std::string_view keyword = tokens[0];
        auto readNumbers = [&](std::vector<float>& into, std::size_t need, std::size_t keep,
                               const char* form) {
            if (tokens.size() < 1 + need)
                fail("'" + std::string(keyword) + "' needs " + std::to_string(need) + " numbers (" +
                     form + ")");
            for (std::size_t k = 0; k < keep; ++k) {
                float value = 0.0f;
                if (k + 1 < tokens.size() && !parseFloat(tokens[k + 1], value))
                    fail("'" + std::string(tokens[k + 1]) + "' is not a number (" + form + ")");
                into.push_back(value);
            }
        };
        if (keyword == "v") {
            readNumbers(filePositions, 3, 3, "v x y z");
        } else if (keyword == "vt") {
            readNumbers(fileUvs, 1, 2, "vt u v");
        } else if (keyword == "vn") {
            readNumbers(fileNormals, 3, 3, "vn x y z");
        } else if (keyword == "f") {
            if (tokens.size() < 4)
                fail("a face needs at least 3 corners (f v1 v2 v3, or v/vt/vn corners)");
            polygon.clear();
            for (std::size_t k = 1; k < tokens.size(); ++k) {
                const auto token = tokens[k];
                std::int64_t ids[3] = {kAbsent, kAbsent, kAbsent};
                const std::int64_t counts[3] = {std::int64_t(filePositions.size() / 3),
                                                std::int64_t(fileUvs.size() / 2),
                                                std::int64_t(fileNormals.size() / 3)};
                std::size_t start = 0;
                for (int part = 0; part < 3; ++part) {
                    const auto slash = token.find('/', start);
                    const auto piece =
                        token.substr(start, slash == std::string_view::npos ? std::string_view::npos
                                                                            : slash - start);
                    if (!piece.empty() || part == 0) {
                        std::int64_t index = 0;
                        if (!parseInt(piece, index) || index == 0)
                            fail("face corner '" + std::string(token) +
                                 "' is not valid (expected v, v/vt, v//vn or v/vt/vn with "
                                 "indices from 1, or negative)");
                        const std::int64_t resolved = index > 0 ? index - 1 : counts[part] + index;
                        if (resolved < 0 || resolved >= counts[part]) {
                            static const char* kinds[3] = {"vertex", "texture coordinate",
                                                           "normal"};
                            fail("face corner '" + std::string(token) + "' refers to " +
                                 kinds[part] + " " + std::to_string(index) + " but there are " +
                                 std::to_string(counts[part]) + " so far");
                        }
                        ids[part] = resolved;
                    }
                    if (slash == std::string_view::npos) break;
                    if (part == 2)
                        fail("face corner '" + std::string(token) + "' has too many '/'");
                    start = slash + 1;
                }
                const Corner corner{ids[0], ids[1], ids[2]};
                auto [it, added] =
                    vertexOf.try_emplace(corner, static_cast<std::uint32_t>(out.vertexCount()));
                if (added) {
                    if (out.vertexCount() >= std::numeric_limits<std::uint32_t>::max())
                        fail("more vertices than a 32-bit index can address");
                    for (int c = 0; c < 3; ++c)
                        out.positions.push_back(filePositions[3 * corner.v + c]);
                    // OBJ's texture origin is the bottom-left corner; TexturedMesh's (glTF's)
                    // is the top-left.
                    out.uvs.push_back(corner.vt == kAbsent ? 0.0f : fileUvs[2 * corner.vt]);
                    out.uvs.push_back(corner.vt == kAbsent ? 0.0f
                                                           : 1.0f - fileUvs[2 * corner.vt + 1]);
                    for (int c = 0; c < 3; ++c)
                        out.normals.push_back(
                            corner.vn == kAbsent ? 0.0f : fileNormals[3 * corner.vn + c]);
                    hasNormal.push_back(corner.vn != kAbsent);
                }
                polygon.push_back(it->second);
            }
            for (std::size_t k = 1; k + 1 < polygon.size(); ++k)  // fan
                out.indices.insert(out.indices.end(), {polygon[0], polygon[k], polygon[k + 1]});
        } else if (keyword == "mtllib") {
            const auto rest = trim(line.substr(tokens[0].size()));
            const auto whole = besides(path, rest);
            std::error_code ec;
            if (std::filesystem::exists(whole, ec)) {
                readMaterials(whole, textures, firstTextured);
            } else {
                for (std::size_t k = 1; k < tokens.size(); ++k)
                    readMaterials(besides(path, tokens[k]), textures, firstTextured);
            }
        } else if (keyword == "usemtl") {
            usedMaterials.emplace_back(trim(line.substr(tokens[0].size())));
        } else if (keyword == "o" && out.name.empty() && tokens.size() > 1) {
            out.name = std::string(trim(line.substr(tokens[0].size())));
        }
        // Everything else (g, s, l, p, curves, vp, ...) does not change a triangle mesh.
    });

    if (out.indices.empty())
        throw FileError(path.string() + ": has no faces; export the mesh with its faces");
    if (out.name.empty()) out.name = path.stem().string();
    if (std::find(hasNormal.begin(), hasNormal.end(), false) != hasNormal.end()) {
        const auto smooth = smoothNormals(out.positions, out.indices);
        for (std::size_t i = 0; i < hasNormal.size(); ++i)
            if (!hasNormal[i]) std::copy_n(smooth.begin() + 3 * i, 3, out.normals.begin() + 3 * i);
    }
    std::string material = usedMaterials.empty() ? firstTextured : std::string();
    for (const auto& used : usedMaterials)
        if (textures.count(used)) {
            material = used;
            break;
        }
    if (!material.empty()) out.texture = readTexture(textures.at(material));
    return out;
}

}  // namespace stageload
