#pragma once
// The soft features of a character's front (internal to the character pipeline): a blush, a glow
// — patches that join their colour region in the flood fill, so the region test of the back's
// painter (back_paint.h) cannot find them, yet stand out from the region's own colours around
// them in hue. The back paints them over like the small regions.
//
//   const auto soft = paint::softFeatures(pixels, regions, large, deep, limit, grid, same);

#include <vector>

#include "engine/core/torch_core.h"

#include "engine/core/regions.h"
#include "engine/pipelines/character/paint_grid.h"

namespace stageload::paint {

/// Per pixel of the grid `g`: whether it belongs to a soft feature. `pixels` [3,h,w] float,
/// contiguous on the CPU; `regions` the figure's colour regions (`near` joined them); `large`,
/// per region label, the regions a feature can lie in (at least `limit` pixels); `deep`, per
/// pixel, well inside the figure. A feature stands out from its region's own colours around it
/// (by more than kSoftCore somewhere and kSoftEdge all over, of another hue), has under `limit`
/// pixels and kSoftShare of its region, at least kSoftMinSize, lies `deep` inside the figure, is
/// a blob and is surrounded by its region.
std::vector<char> softFeatures(const torch::Tensor& pixels, const Regions& regions,
                               const std::vector<char>& large, const std::vector<char>& deep,
                               double limit, const Grid& g, SameColour near);

}  // namespace stageload::paint
