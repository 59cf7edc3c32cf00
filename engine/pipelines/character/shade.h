#pragma once
// The background darkened evenly, as a shadow darkens it (internal to the character pipeline):
// found on the border of the picture (even_background), beside a remover's mask (detached
// parts, the classical cut-out's shadows, the edge snap) and round the figure's outline.
//
//   const auto evenly = stageload::darkenedEvenly(rgb, background);
//   const auto shadow = stageload::widerThanAStroke(evenly);
//   const auto nearby = stageload::nearShadow(evenly, 1);

#include <cstdint>

#include "engine/core/torch_core.h"

namespace stageload {

/// Where `rgb` [3,H,W] is `background` ([3,H,W] or [3,1,1]) darkened evenly, as a shadow
/// darkens it: every channel by about the same factor, between 0.3 and 0.985 (each channel's
/// within 0.06 of their mean, or its colour within 0.03 of what the mean gives: a dark
/// channel's factor is noisy). [H,W] bool.
torch::Tensor darkenedEvenly(const torch::Tensor& rgb, const torch::Tensor& background);

/// The patches of `evenly` ([H,W] bool, darkenedEvenly's) wider than a stroke: a 3 × 3 opening
/// keeps a shadow and leaves out a ring a pixel or two wide (an outline partly covering the
/// background, a grey part's anti-aliased rim). [H,W] bool.
torch::Tensor widerThanAStroke(const torch::Tensor& evenly);

/// Those patches grown by `margin` pixels: a shadow with its rim, where an anti-aliased edge or
/// a JPEG's noise breaks the evenness. [H,W] bool.
torch::Tensor nearShadow(const torch::Tensor& evenly, std::int64_t margin);

}  // namespace stageload
