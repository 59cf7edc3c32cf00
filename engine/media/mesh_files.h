#pragma once
// Writing meshes for Blender and other DCC tools: binary glTF with the texture embedded, or
// Wavefront OBJ + MTL + PNG. Same mesh, same bytes; every file goes through a temporary file
// that is renamed into place, so a failed export never leaves a half-written file behind.
// Reading them back (ours or an external generator's) for the 3D view.
//
//   stageload::writeGlb(mesh, "hero.glb");
//   auto files = stageload::writeObj(mesh, "hero.obj");   // hero.obj, hero.mtl, hero.png
//   stageload::writeMeshFile(mesh, out);                 // by its extension, .glb or .obj
//   auto back = stageload::readMeshFile("hero.obj");      // .glb, .gltf or .obj
//
// Every function is thread-safe for distinct files (no shared state).
//
// No Torch and no Qt here: the UI includes this header.

#include <filesystem>
#include <vector>

#include "engine/media/mesh.h"

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

/// Writes `mesh` by the extension of `path` (case-insensitive): .glb → writeGlb, .obj → writeObj.
/// Returns every file written. FileError for any other extension.
std::vector<std::filesystem::path> writeMeshFile(const TexturedMesh& mesh,
                                                 const std::filesystem::path& path);

/// Reads a .glb written by any glTF 2.0 exporter into one TexturedMesh (all triangle
/// primitives of all meshes, node transforms applied, the first base colour texture).
/// FileError with the reason for unreadable or unsupported files.
TexturedMesh readGlb(const std::filesystem::path& path);

/// Reads a Wavefront .obj: `v`, `vt`, `vn` and `f` lines (triangles and polygons, the latter
/// fan-triangulated; `v`, `v/vt`, `v//vn` and `v/vt/vn` corners; negative, relative indices).
/// Corners with the same (v, vt, vn) triple share one vertex. UVs come back in TexturedMesh's
/// convention (v = 0 at the top row; OBJ's v = 0 is the bottom row), so writeObj → readObj
/// round-trips. Missing normals are computed (smoothNormals), missing UVs are 0. The texture is
/// the `map_Kd` of the first material named by `usemtl` that has one (with no `usemtl` at all:
/// of the first material that has one), from the `mtllib` files (paths relative to the file
/// that names them), converted to RGB; other materials are ignored (one texture per mesh).
/// A missing or unreadable .mtl or texture is not an error: the mesh comes back with an empty
/// `texture` (the 3D view then shows it as clay) and nothing is logged, so a caller that cares
/// checks `texture.empty()`.
/// FileError for a missing or unreadable file, a malformed line or an index out of range (the
/// message names the file and the line number) and for a file without faces.
TexturedMesh readObj(const std::filesystem::path& path);

/// Reads a mesh file by its extension (case-insensitive): .glb/.gltf → readGlb, .obj → readObj;
/// the texture, when there is one, is RGB. FileError for a missing file and for any other
/// extension ("x.fbx: unsupported mesh format, expected .glb, .gltf or .obj"), and whatever the
/// reader throws.
TexturedMesh readMeshFile(const std::filesystem::path& path);

}  // namespace stageload
