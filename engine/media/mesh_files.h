#pragma once
// Writing meshes for Blender and other DCC tools: binary glTF with the texture embedded,
// Wavefront OBJ + MTL + PNG, or Stanford PLY + PNG. Same mesh, same bytes; every file goes
// through a temporary file that is renamed into place, so a failed export never leaves a
// half-written file behind. Reading them back (ours or an external generator's) for the 3D view.
// Which extension goes with which reader and writer is the table in mesh_formats.h.
//
//   stageload::writeGlb(mesh, "hero.glb");
//   auto files = stageload::writeObj(mesh, "hero.obj");   // hero.obj, hero.mtl, hero.png
//   stageload::writeMeshFile(mesh, out);                 // by its extension (mesh_formats.h)
//   auto back = stageload::readMeshFile("hero.obj");      // .glb, .gltf, .obj or .ply
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

/// Writes `path` (.ply, binary little-endian: x y z, nx ny nz, s t per vertex, triangles) and
/// beside it the texture .png with the same stem, named by a "comment TextureFile" line. Both
/// are written to temporary files first and renamed only when both were written.
std::vector<std::filesystem::path> writePly(const TexturedMesh& mesh,
                                            const std::filesystem::path& path);

/// Writes `mesh` by the extension of `path` (case-insensitive), with the writer its row in
/// meshFormats() names. Returns every file written. FileError for a format that does not write.
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

/// Reads a Stanford .ply (ascii, binary little- or big-endian): the "vertex" element's x, y, z,
/// optional nx, ny, nz and UVs (s/t, u/v or texture_u/texture_v), the "face" element's
/// vertex_indices (polygons fan-triangulated); other elements and properties (vertex colours)
/// are skipped. The texture is the one a "comment TextureFile" line names, beside the file; as
/// for OBJ, a missing one leaves the mesh untextured. Missing normals are computed. FileError
/// naming the file, the element and its index for a malformed or truncated file, an index out of
/// range, a count larger than the file, and for a file without faces.
TexturedMesh readPly(const std::filesystem::path& path);
/// readPly() of bytes already read; `path` names them in messages and is where the texture is
/// looked for.
TexturedMesh decodePly(const std::string& bytes, const std::filesystem::path& path);

/// Reads a mesh file by its extension (case-insensitive), with the reader its row in
/// meshFormats() names; the texture, when there is one, is RGB. FileError for a missing file
/// and for any other extension ("x.fbx: unsupported mesh format, expected .glb, .gltf, .obj or
/// .ply"), and whatever the reader throws.
TexturedMesh readMeshFile(const std::filesystem::path& path);

}  // namespace stageload
