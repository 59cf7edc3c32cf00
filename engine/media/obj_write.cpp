#include <cstdio>
#include <memory>

#include "guard/base/atomic_file.h"
#include "engine/media/mesh_files.h"

namespace stageload {
namespace {

std::string formatFloat(float v) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.6g", static_cast<double>(v));
    return buf;
}

}  // namespace

std::vector<std::filesystem::path> writeObj(const TexturedMesh& mesh,
                                            const std::filesystem::path& path) {
    if (mesh.indices.empty() || mesh.uvs.size() != 2 * mesh.vertexCount() ||
        mesh.normals.size() != mesh.positions.size())
        throw Error("mesh '" + mesh.name + "' needs triangles, normals and UVs to export as OBJ");
    auto mtlPath = path, pngPath = path;
    mtlPath.replace_extension(".mtl");
    pngPath.replace_extension(".png");
    const auto material = mesh.name.empty() ? std::string("material") : mesh.name;

    std::string obj = "# Stageload Studio\nmtllib " + mtlPath.filename().string() + "\no " +
                      material + "\n";
    obj.reserve(mesh.vertexCount() * 96 + mesh.indices.size() * 12);
    const auto n = mesh.vertexCount();
    for (std::size_t i = 0; i < n; ++i)
        obj += "v " + formatFloat(mesh.positions[3 * i]) + ' ' + formatFloat(mesh.positions[3 * i + 1]) +
               ' ' + formatFloat(mesh.positions[3 * i + 2]) + '\n';
    // OBJ's texture origin is the bottom-left corner; glTF's is the top-left.
    for (std::size_t i = 0; i < n; ++i)
        obj += "vt " + formatFloat(mesh.uvs[2 * i]) + ' ' + formatFloat(1.0f - mesh.uvs[2 * i + 1]) + '\n';
    for (std::size_t i = 0; i < n; ++i)
        obj += "vn " + formatFloat(mesh.normals[3 * i]) + ' ' + formatFloat(mesh.normals[3 * i + 1]) +
               ' ' + formatFloat(mesh.normals[3 * i + 2]) + '\n';
    obj += "usemtl " + material + "\ns 1\n";
    for (std::size_t f = 0; f + 2 < mesh.indices.size(); f += 3) {
        obj += 'f';
        for (int k = 0; k < 3; ++k) {
            const auto v = std::to_string(mesh.indices[f + k] + 1);
            obj += ' ' + v + '/' + v + '/' + v;
        }
        obj += '\n';
    }
    const std::string mtl = "# Stageload Studio\nnewmtl " + material +
                            "\nKa 0 0 0\nKd 1 1 1\nKs 0 0 0\nd 1\nillum 1\nmap_Kd " +
                            pngPath.filename().string() + "\n";
    const auto png = encodePng(mesh.texture);

    // All three written to temporary files first; renamed only when every write succeeded.
    AtomicFile objFile(path), mtlFile(mtlPath), pngFile(pngPath);
    objFile.write(obj);
    mtlFile.write(mtl);
    pngFile.write(png.data(), png.size());
    pngFile.commit();
    mtlFile.commit();
    objFile.commit();
    return {path, mtlPath, pngPath};
}

}  // namespace stageload
