#pragma once
// The back of a character made up from its front: the front's small features (eyes, a mouth, a
// blush, an emblem, their outlines), whatever one colour region encloses and lies round
// whatever its size (a slime's large eyes, an emblem on a chest, even one only a shade off the
// chest's colour), and a region deep inside that several alike lie round together (a visor
// across a two-tone helmet), painted over by the colour around them, with the pixels that touch
// them; large colour regions, their shading and the small parts at the silhouette's edge (a
// hand round a haft) kept.
//
//   const auto back = stageload::paintOverFeatures(front, subject).flip({2});
//   const auto back = stageload::paintOverFeatures(scaledUp, crop, cropSubject);  // found in the crop
//
// Pure; runs on the tensors' device, finds regions on the CPU.

#include "engine/core/torch_core.h"

namespace stageload {

/// `image` [3,h,w] in 0..1, `subject` [h,w] (1 inside the figure). Returns `image` with its
/// features painted over, [3,h,w].
torch::Tensor paintOverFeatures(const torch::Tensor& image, const torch::Tensor& subject);

/// The same, with the features found in `source` [3,sh,sw] and its `subject` [sh,sw]: the picture
/// `image` was scaled up from. Scaled up, an edge spreads over more pixels in smaller steps,
/// which would join an emblem to the chest it is drawn on.
torch::Tensor paintOverFeatures(const torch::Tensor& image, const torch::Tensor& source, const torch::Tensor& subject);

}  // namespace stageload
