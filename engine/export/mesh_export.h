#pragma once
// Writing meshes for Blender and other DCC tools: binary glTF with the texture embedded, or
// Wavefront OBJ + MTL + PNG. Same mesh, same bytes; every file goes through a temporary file
// that is renamed into place, so a failed export never leaves a half-written file behind.
//
//   stageload::writeGlb(mesh, "hero.glb");
//   auto files = stageload::writeObj(mesh, "hero.obj");   // hero.obj, hero.mtl, hero.png
//
// No Torch and no Qt here: the UI includes this header.

#include <filesystem>
#include <vector>

#include "engine/mesh/mesh.h"

namespace stageload {

/// The .glb bytes: one node, one mesh with POSITION, NORMAL, TEXCOORD_0 and indices, one
/// material whose base colour is the embedded PNG texture. Throws Error for an invalid mesh.
std::vector<std::uint8_t> encodeGlb(const TexturedMesh& mesh);

/// Writes encodeGlb(mesh) to `path` atomically (AtomicWriteError names the file).
void writeGlb(const TexturedMesh& mesh, const std::filesystem::path& path);

/// Writes `path` (.obj), and beside it the .mtl and the texture .png with the same stem.
/// Returns the three paths. All three are written to temporary files first and renamed only
/// when every one of them was written.
std::vector<std::filesystem::path> writeObj(const TexturedMesh& mesh,
                                            const std::filesystem::path& path);

/// Reads a .glb written by any glTF 2.0 exporter into one TexturedMesh (all triangle
/// primitives of all meshes, node transforms applied, the first base colour texture).
/// FileError with the reason for unreadable or unsupported files.
TexturedMesh readGlb(const std::filesystem::path& path);

}  // namespace stageload
