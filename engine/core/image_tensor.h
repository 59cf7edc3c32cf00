#pragma once
// Between 8-bit pictures and float tensors, and the few image operations the pipelines share.
// Tensors are float CHW (or HW for masks) with values in 0..1.

#include "engine/core/torch_core.h"

#include "engine/media/image.h"

namespace stageload {

/// [C,H,W] float 0..1 from an 8-bit picture.
torch::Tensor imageToTensor(const Image& image);

/// The picture of a [C,H,W] (or [H,W]) float tensor, clamped to 0..1 and rounded.
Image tensorToImage(const torch::Tensor& chw);

/// Resizes [C,H,W] or [H,W] to `height`×`width`: area-averaging (antialiased) when shrinking,
/// bilinear when growing.
torch::Tensor resizeTensor(const torch::Tensor& image, std::int64_t height, std::int64_t width);

/// Mean over a (2r+1)² window, edges averaged over the part inside. [C,H,W] or [H,W].
torch::Tensor boxBlur(const torch::Tensor& image, std::int64_t radius);

/// Maximum / minimum over a (2r+1)² square window (grey dilation / erosion; a binary mask as
/// 0/1 floats grows / shrinks by `radius` pixels). Outside the picture counts as neither.
/// [C,H,W] or [H,W].
torch::Tensor dilate(const torch::Tensor& image, std::int64_t radius);
torch::Tensor erode(const torch::Tensor& image, std::int64_t radius);

/// How far each colour of `rgb` ([3,H,W], or [3,N]) lies from `reference` (the same shape or
/// broadcast to it, e.g. [3,1,1]): the root mean square of the channels' differences, 0..1.
/// [H,W] (or [N]).
torch::Tensor colourDistance(const torch::Tensor& rgb, const torch::Tensor& reference);

/// Gaussian blur with standard deviation `sigma` pixels (separable; edges replicated).
torch::Tensor gaussianBlur(const torch::Tensor& image, double sigma);

/// Fills every pixel where `weight` is 0 with colours pulled from where it is not, coarse to
/// fine (push-pull), so colours continue smoothly past a mask's edge. [C,H,W] and [H,W].
torch::Tensor pushPullFill(const torch::Tensor& image, const torch::Tensor& weight);

}  // namespace stageload
