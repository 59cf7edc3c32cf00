#pragma once
// The closed mesh of an inflated silhouette: a front and a back sheet over the same grid
// cells, sewn together along the outline, whose vertices are moved onto the mask's sub-pixel
// contour. The grid is cleaned first so that the result is closed and 2-manifold: no cells
// touching only at a corner, no cell or inner edge made of outline vertices alone. Each
// separate region of the silhouette becomes a closed part of its own.

#include <cstdint>
#include <vector>

#include "engine/core/torch_core.h"

namespace stageload {

enum class VertexSide : std::uint8_t { Outline = 0, Front = 1, Back = 2 };

struct SheetMesh {
    std::vector<float> positions;     ///< xyz; the silhouette's long side is 1, y up, front +z
    std::vector<std::uint32_t> indices;
    std::vector<VertexSide> sides;
    /// Picture pixel (column, row) of each vertex in the mask's resolution, for texturing.
    std::vector<float> pixels;
    /// The heights it was built from ([H,W], CPU), for vertices added later.
    torch::Tensor front, back;
};

/// Builds the mesh on a grid of `cells` cells along the silhouette's long side. `mask` is the
/// soft silhouette [H,W]; `front` and `back` are heights ≥ 0 [H,W] (same units as positions).
/// Regions of the grid under `minPartShare` (0..1) of its inside cells are left out.
SheetMesh buildSheetMesh(const torch::Tensor& mask, const torch::Tensor& front,
                         const torch::Tensor& back, std::int64_t cells, double minPartShare = 0.0);

/// Keeps the inside cells ([gh,gw] uint8) that form regions the mesher can close: repeatedly
/// drops cells whose corners are all on the outline, cells on either side of an inner edge
/// between two outline corners, one of two cells meeting only at a corner, and the 4-connected
/// regions under `minShare` of all cells (never the largest). Returns the number of cells
/// dropped.
std::int64_t cleanCells(std::vector<std::uint8_t>& cells, std::int64_t gh, std::int64_t gw,
                        double minShare = 0.0);

/// Simplifies the mesh to at most `triangles` triangles (meshoptimizer), keeping each vertex's
/// side and pixel, and drops vertices no triangle uses. Front and back are simplified apart
/// with their shared outline locked; where simplification thinned a neck down to an edge
/// between two outline vertices in both sheets (an edge of four faces), that edge is split in
/// each sheet with a vertex on the sheet's own surface. Returns false, leaving `mesh` as it was,
/// when no simplification within the budget came out closed and manifold.
bool decimateSheetMesh(SheetMesh& mesh, std::size_t triangles);

}  // namespace stageload
