#pragma once
// Pieces shared by the U²-Net family of salient-object networks Stageload runs: U²-Netp
// (engine/models/u2netp.h) and ISNet-DIS (engine/models/isnet.h). Both are built from residual
// U-blocks (RSU) of convolution + ReLU layers, were exported to ONNX with their batch norms folded
// into the convolutions, and are fed by npm packages that resize pictures with the same plain
// bilinear filter. Engine-internal (LibTorch types): the UI never includes this header.

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/torch_nn.h"

namespace stageload {

/// 3x3 convolution (dilated), then ReLU. The original REBNCONV has a batch norm in between; the
/// ONNX exports folded it into the convolution's weight and bias.
class RebnConvImpl : public torch::nn::Module {
public:
    RebnConvImpl(std::int64_t in, std::int64_t out, std::int64_t dilation);
    torch::Tensor forward(const torch::Tensor& x);

    torch::nn::Conv2d conv_s1{nullptr};
};
TORCH_MODULE(RebnConv);

/// A residual U-block. `height` 7, 6, 5, 4: RSU-7 … RSU-4 (an encoder of height-1 convolutions
/// with 2x2 ceil-mode max pooling between them, a dilation-2 convolution at the bottom, a decoder
/// that upsamples bilinearly). `dilated`: RSU-4F, no pooling, dilations 1, 2, 4, 8 instead.
/// Submodules, in the order the original registers (and runs) them: rebnconvin, rebnconv1 …
/// rebnconv<h>, rebnconv<h-1>d … rebnconv1d.
class RsuImpl : public torch::nn::Module {
public:
    RsuImpl(int height, std::int64_t in, std::int64_t mid, std::int64_t out, bool dilated = false);
    torch::Tensor forward(const torch::Tensor& x);

private:
    bool dilated_;
    RebnConv in_{nullptr};
    std::vector<RebnConv> encoder_;  ///< rebnconv1 … rebnconv<h>
    std::vector<RebnConv> decoder_;  ///< decoder_[i] is rebnconv<i+1>d
};
TORCH_MODULE(Rsu);

/// 2x2 max pooling, stride 2, ceil mode (the originals' nn.MaxPool2d(2, stride=2, ceil_mode=True)).
torch::Tensor rsuPool(const torch::Tensor& x);

/// The originals' _upsample_like: bilinear to `like`'s height and width, align_corners=False (the
/// ONNX Resize nodes say mode=linear with half_pixel or pytorch_half_pixel coordinates).
torch::Tensor upsampleLike(const torch::Tensor& x, const torch::Tensor& like);

/// A module that holds `net`'s own parameters under the names an ONNX export gave them, so that
/// loadWeights fills `net` in place and reports problems with the file's names. Parameters whose
/// name starts with "stage" are the folded convolutions: the k-th of them in registration order
/// (which is forward order), k = 0, 1, …, gets weight `<prefix><first + 3k>` and bias
/// `<prefix><first + 3k + 1>`. Every other top-level child keeps its name.
std::shared_ptr<torch::nn::Module> foldedConvView(torch::nn::Module& net, const std::string& prefix,
                                                  int first);

/// Loads `safetensors` into `net`: by the module's own names when the file uses them, else by the
/// names of the ONNX export (foldedConvView(net, prefix, first)). Throws what loadWeights throws:
/// WeightFileError naming the file and, where one is involved, the tensor.
void loadRemoverWeights(torch::nn::Module& net, const std::filesystem::path& safetensors,
                        const std::string& prefix, int first);

/// The tail both removers share: `x` (preprocessed, [1, 3, R, R]) through `forward` on the device
/// of `net`'s parameters, without autograd; the [1, 1, R, R] probabilities (also into
/// `probabilities`, on the CPU, when it is not null) resized to height x width with
/// resizeBilinearJs, kept as floats and clamped to 0..1. Returns float [height, width] on the CPU.
torch::Tensor removerMask(torch::nn::Module& net, const torch::Tensor& x,
                          const std::function<torch::Tensor(const torch::Tensor&)>& forward,
                          std::int64_t height, std::int64_t width,
                          torch::Tensor* probabilities = nullptr);

/// The bilinear resize of the JavaScript background removers (modern-rembg's ImageTensor.resize,
/// @imgly/background-removal-node's tensorResizeBilinear) without their final rounding: source
/// position x * in / out (no half-pixel offset, no antialiasing), its floor and its ceil clamped
/// to the last pixel. img [C, H, W] → [C, outH, outW] in `dtype`. `texel` maps the gathered source
/// values before they are weighted (and must return a new tensor in `dtype`): rounding to 8 bits
/// there instead of on the whole picture keeps full-size copies of a large picture out of memory.
/// The terms are formed and summed in the order of the JavaScript, so in float64 each value is
/// the very double it computes.
torch::Tensor resizeBilinearJs(const torch::Tensor& img, std::int64_t outH, std::int64_t outW,
                               torch::Dtype dtype,
                               const std::function<torch::Tensor(const torch::Tensor&)>& texel);

/// JavaScript's Math.round for the non-negative values here: floor(t + 0.5).
torch::Tensor roundHalfUp(const torch::Tensor& t);

/// Throws stageload::Error ("<caller>: expected a floating-point [3, H, W] picture, got …")
/// unless rgb is a floating-point [3, H, W] tensor with H, W >= 1.
void checkPicture(const torch::Tensor& rgb, const char* caller);

/// Picture values 0..1 as the 0..255 bytes a canvas or image decoder hands the JavaScript: clamped
/// to 0..1, times 255, rounded half up; float64. Meant as resizeBilinearJs's `texel`.
torch::Tensor pictureBytes(const torch::Tensor& values);

}  // namespace stageload
