// Writing a Stanford PLY (binary, little-endian) with its texture PNG beside it.
#include <bit>
#include <cstring>

#include "guard/base/atomic_file.h"
#include "engine/media/mesh_files.h"

namespace stageload {
namespace {

static_assert(std::endian::native == std::endian::little,
              "writePly writes the floats and indices as they lie in memory");

template <class T>
void append(std::string& out, T value) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    out.append(bytes, sizeof(T));
}

}  // namespace

std::vector<std::filesystem::path> writePly(const TexturedMesh& mesh, const std::filesystem::path& path) {
    const auto n = mesh.vertexCount();
    if (mesh.indices.empty() || mesh.uvs.size() != 2 * n || mesh.normals.size() != mesh.positions.size())
        throw Error("mesh '" + mesh.name + "' needs triangles, normals and UVs to export as PLY");
    auto pngPath = path;
    pngPath.replace_extension(".png");

    // "TextureFile" is the comment MeshLab and Blender's importer read the texture's name from.
    std::string ply = "ply\nformat binary_little_endian 1.0\ncomment Stageload Studio\n"
                      "comment TextureFile " + pngPath.filename().string() + "\n" +
                      "element vertex " + std::to_string(n) + "\n" +
                      "property float x\nproperty float y\nproperty float z\n"
                      "property float nx\nproperty float ny\nproperty float nz\n"
                      "property float s\nproperty float t\n" +
                      "element face " + std::to_string(mesh.triangleCount()) + "\n" +
                      "property list uchar uint vertex_indices\nend_header\n";
    ply.reserve(ply.size() + n * 32 + mesh.triangleCount() * 13);
    for (std::size_t i = 0; i < n; ++i) {
        for (int c = 0; c < 3; ++c) append(ply, mesh.positions[3 * i + c]);
        for (int c = 0; c < 3; ++c) append(ply, mesh.normals[3 * i + c]);
        // PLY's t, like OBJ's v, counts from the bottom row; TexturedMesh's from the top.
        append(ply, mesh.uvs[2 * i]);
        append(ply, 1.0f - mesh.uvs[2 * i + 1]);
    }
    for (std::size_t f = 0; f + 2 < mesh.indices.size(); f += 3) {
        append(ply, std::uint8_t{3});
        for (int k = 0; k < 3; ++k) append(ply, mesh.indices[f + k]);
    }
    const auto png = encodePng(mesh.texture);

    // Both written to temporary files first; renamed only when both writes succeeded.
    AtomicFile plyFile(path), pngFile(pngPath);
    plyFile.write(ply);
    pngFile.write(png.data(), png.size());
    pngFile.commit();
    plyFile.commit();
    return {path, pngPath};
}

}  // namespace stageload
