#pragma once
// Every mesh file format Stageload reads or writes, one row each: its extension, its name in file
// dialogs, its writer and reader, and the Blender operator that imports it. The CLI's -o check,
// readMeshFile()/writeMeshFile(), the app's open and export dialogs, the Blender launcher and the
// generator definitions all take their formats from here, so a new format is its reader and
// writer plus one row in mesh_formats.cpp.
//
//   if (const auto* f = stageload::meshFormatOf("hero.PLY"); f && f->write) f->write(mesh, path);
//   for (const auto& f : stageload::meshFormats()) filters << f.dialogName;
//   stageload::writableMeshExtensions();   // ".glb, .obj or .ply", for messages
//
// No Torch and no Qt here. The table is constant: thread-safe.

#include <filesystem>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "engine/media/mesh.h"

namespace stageload {

struct MeshFormatInfo {
    std::string_view extension;    ///< lower case, with the dot: ".glb"
    std::string_view word;         ///< the settings' and CLI's word for it: "glb"
    std::string_view dialogName;   ///< "glTF binary", for "glTF binary (*.glb)"
    std::string_view description;  ///< what the export holds: "texture embedded"
    /// A Python call that imports the file whose path (a Python string literal) replaces
    /// `{path}`, for the Blender version at hand.
    std::string_view blenderImport;
    /// Writes the mesh and its side files (textures, materials); returns every file written.
    /// Null for a format Stageload only reads.
    std::vector<std::filesystem::path> (*write)(const TexturedMesh&, const std::filesystem::path&);
    TexturedMesh (*read)(const std::filesystem::path&);
};

/// Every format, the default export first.
std::span<const MeshFormatInfo> meshFormats();

/// The format of `path` by its extension (case-insensitive); nullptr when none.
const MeshFormatInfo* meshFormatOf(const std::filesystem::path& path);

/// The row whose word is `word` ("glb"); nullptr when none.
const MeshFormatInfo* meshFormatNamed(std::string_view word);

/// ".glb, .obj or .ply" (the formats that write) and ".glb, .gltf, .obj or .ply" (that read).
std::string writableMeshExtensions();
std::string readableMeshExtensions();

}  // namespace stageload
