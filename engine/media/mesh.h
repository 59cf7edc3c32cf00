#pragma once
// Triangle meshes as the pipeline hands them to exporters and viewers, and the checks that
// prove one is a closed surface Blender will treat as a solid.
//
//   auto report = stageload::checkMesh(mesh.positions, mesh.indices);
//   if (!report.closedManifold()) ...;   // report.describe() says what is wrong
//
// No Torch and no Qt here: the UI includes this header.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "engine/media/image.h"

namespace stageload {

/// Where a mesh made from a picture lies on that picture seen from the front (looking down −Z,
/// orthographically): the mesh's point (X, Y) is at the picture's pixel position
/// (x0 + X·sx, y0 − Y·sy), where (0, 0) is the top-left corner of the top-left pixel and
/// (width, height) the bottom-right corner of the bottom-right one.
struct PicturePlacement {
    int width = 0, height = 0;  ///< the picture's size in pixels, upright
    double x0 = 0, y0 = 0;      ///< where the mesh's origin lies on it
    double sx = 0, sy = 0;      ///< pixels per mesh unit

    bool operator==(const PicturePlacement&) const = default;
};

/// Interleaving-free arrays: positions/normals xyz, uvs uv (glTF convention: v = 0 at the top
/// row of the texture). Y up, metres, front facing +Z.
struct TexturedMesh {
    std::string name;
    std::vector<float> positions;
    std::vector<float> normals;
    std::vector<float> uvs;
    std::vector<std::uint32_t> indices;
    Image texture;  ///< RGB
    /// Set by the character pipeline; a glb keeps it (the mesh's extras, "stageloadPicture").
    std::optional<PicturePlacement> placement;

    std::size_t vertexCount() const { return positions.size() / 3; }
    std::size_t triangleCount() const { return indices.size() / 3; }
};

struct MeshReport {
    std::int64_t vertices = 0;             ///< distinct positions
    std::int64_t triangles = 0;
    std::int64_t openEdges = 0;            ///< edges used by one face
    std::int64_t nonManifoldEdges = 0;     ///< edges used by three faces or more
    std::int64_t misorientedEdges = 0;     ///< edges whose two faces run them the same way
    std::int64_t nonManifoldVertices = 0;  ///< vertices whose faces form more than one fan
    std::int64_t degenerateTriangles = 0;  ///< zero area (or repeated vertices)
    double volume = 0.0;                   ///< signed: positive when normals point outward
    double area = 0.0;

    /// Every edge shared by exactly two faces running it in opposite directions, every vertex
    /// one fan, no degenerate faces, outward normals.
    bool closedManifold() const {
        return openEdges == 0 && nonManifoldEdges == 0 && misorientedEdges == 0 &&
               nonManifoldVertices == 0 && degenerateTriangles == 0 && volume > 0.0;
    }
    /// "closed, manifold, outward" or what is wrong, with counts.
    std::string describe() const;
};

/// Checks the surface: vertices with the same position count as one (so UV seams, which
/// duplicate vertices, do not open the surface). `minArea` is the area below which a triangle
/// counts as degenerate.
MeshReport checkMesh(const std::vector<float>& positions, const std::vector<std::uint32_t>& indices,
                     double minArea = 1e-12);

/// Smooth vertex normals: area-weighted face normals summed over every vertex sharing a
/// position, normalised.
std::vector<float> smoothNormals(const std::vector<float>& positions,
                                 const std::vector<std::uint32_t>& indices);

/// Axis-aligned bounds: {minX, minY, minZ, maxX, maxY, maxZ}.
std::array<float, 6> meshBounds(const std::vector<float>& positions);

}  // namespace stageload
