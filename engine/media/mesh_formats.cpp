#include "engine/media/mesh_formats.h"

#include <array>

#include "guard/base/text.h"
#include "engine/media/mesh_files.h"

namespace stageload {
namespace {

std::vector<std::filesystem::path> writeGlbFile(const TexturedMesh& mesh, const std::filesystem::path& path) {
    writeGlb(mesh, path);
    return {path};
}

TexturedMesh readGlbFile(const std::filesystem::path& path) {
    auto mesh = readGlb(path);
    mesh.texture = toRgb(mesh.texture);
    return mesh;
}

// Each importer as the Blender at hand has it (`in dir()`: hasattr() is true of any name under
// bpy.ops).
constexpr std::string_view kGltfImport = "bpy.ops.import_scene.gltf(filepath={path})";

constexpr std::array<MeshFormatInfo, 4> kFormats{{
    {".glb", "glb", "glTF binary", "binary glTF, texture embedded", kGltfImport, writeGlbFile, readGlbFile},
    {".gltf", "gltf", "glTF", "glTF with its buffers beside it", kGltfImport, nullptr, readGlbFile},
    {".obj", "obj", "Wavefront OBJ", "Wavefront OBJ + MTL + PNG",
     "(bpy.ops.wm.obj_import if 'obj_import' in dir(bpy.ops.wm) else bpy.ops.import_scene.obj)(filepath={path})",
     writeObj, readObj},
    {".ply", "ply", "Stanford PLY", "binary PLY with UVs + PNG",
     // PLY has no axis convention and Blender takes it as Z up; ours is Y up, as glTF's is.
     "(bpy.ops.wm.ply_import if 'ply_import' in dir(bpy.ops.wm) else bpy.ops.import_mesh.ply)(filepath={path}); "
     "[setattr(o, 'rotation_euler', (1.5707963267948966, 0.0, 0.0)) for o in bpy.context.selected_objects]",
     writePly, readPly},
}};

std::string extensions(bool writableOnly) {
    std::vector<std::string> list;
    for (const auto& f : kFormats)
        if (f.write || !writableOnly) list.emplace_back(f.extension);
    return joinAlternatives(list);
}

}  // namespace

std::span<const MeshFormatInfo> meshFormats() { return kFormats; }

const MeshFormatInfo* meshFormatOf(const std::filesystem::path& path) {
    const auto extension = asciiLower(path.extension().string());
    for (const auto& f : kFormats)
        if (f.extension == extension) return &f;
    return nullptr;
}

const MeshFormatInfo* meshFormatNamed(std::string_view word) {
    for (const auto& f : kFormats)
        if (f.word == word) return &f;
    return nullptr;
}

std::string writableMeshExtensions() { return extensions(true); }
std::string readableMeshExtensions() { return extensions(false); }

TexturedMesh readMeshFile(const std::filesystem::path& path) {
    const auto* format = meshFormatOf(path);
    if (!format)
        throw FileError(path.string() + ": unsupported mesh format, expected " + readableMeshExtensions());
    std::error_code ec;
    if (!std::filesystem::exists(path, ec)) throw FileError(path.string() + ": no such file; check the path");
    return format->read(path);
}

std::vector<std::filesystem::path> writeMeshFile(const TexturedMesh& mesh, const std::filesystem::path& path) {
    const auto* format = meshFormatOf(path);
    if (!format || !format->write)
        throw FileError(path.string() + ": cannot write this mesh format, use " + writableMeshExtensions());
    return format->write(mesh, path);
}

}  // namespace stageload
