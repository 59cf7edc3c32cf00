#pragma once
// Completing a learned background remover's mask with the figure's drawn outline. A remover
// takes a grey leg on a grey photo, a near-white breastplate or a wing on a busy background
// for background, and the lines drawn between a figure's parts for gaps; the outline the
// artist drew around the figure says otherwise.
//
//   soft = stageload::closeByOutline(rgb, refineMask(rgb, learned(rgb)));

#include "engine/core/torch_core.h"

namespace stageload {

/// `soft` [H,W] (0..1) completed by the outline in `rgb` [3,H,W]: thin dark strokes that touch
/// the mask (dark: under a luma of 0.2, or under 0.7 of the background's behind the mask and
/// not a shadow) become subject (of a stroke that reaches the picture's border away from the
/// mask, a horizon, only the pixels beside the mask), and so does a gap that they and the mask
/// enclose, unless its colours are those of the background seen around it (a gap between an
/// arm and the body). Where the background around a gap is too varied to tell (a busy
/// pattern), the outline is trusted. Gaps that reach the picture's border, and gaps a quarter
/// of the mask's size or larger, stay as they were.
torch::Tensor closeByOutline(const torch::Tensor& rgb, const torch::Tensor& soft);

}  // namespace stageload
