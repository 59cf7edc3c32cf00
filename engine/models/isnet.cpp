#include "engine/models/isnet.h"

#include <string>

namespace stageload {

namespace {

// PyTorch 2.0's ONNX exporter folded each batch norm into the convolution before it and named
// the results after graph values: the k-th folded convolution in forward order (k = 0 … 111,
// stage1 … stage6, then stage5d … stage1d) has weight `onnx::Conv_<1896 + 3k>` and bias
// `onnx::Conv_<1897 + 3k>`. conv_in and the side convolutions kept their names.
// install-weights.sh pins the ONNX file by hash, so these numbers are fixed; a shape check on
// every tensor and the onnxruntime reference of test_isnet guard the order.
constexpr int kFirstFoldedName = 1896;
constexpr const char* kFoldedPrefix = "onnx::Conv_";

torch::nn::Conv2d sideConv(std::int64_t in) {
    return torch::nn::Conv2d(torch::nn::Conv2dOptions(in, 1, 3).padding(1));
}

}  // namespace

ISNetImpl::ISNetImpl() {
    conv_in = register_module(
        "conv_in", torch::nn::Conv2d(torch::nn::Conv2dOptions(3, 64, 3).stride(2).padding(1)));
    stage1 = register_module("stage1", Rsu(7, 64, 32, 64));
    stage2 = register_module("stage2", Rsu(6, 64, 32, 128));
    stage3 = register_module("stage3", Rsu(5, 128, 64, 256));
    stage4 = register_module("stage4", Rsu(4, 256, 128, 512));
    stage5 = register_module("stage5", Rsu(4, 512, 256, 512, /*dilated=*/true));
    stage6 = register_module("stage6", Rsu(4, 512, 256, 512, /*dilated=*/true));
    stage5d = register_module("stage5d", Rsu(4, 1024, 256, 512, /*dilated=*/true));
    stage4d = register_module("stage4d", Rsu(4, 1024, 128, 256));
    stage3d = register_module("stage3d", Rsu(5, 512, 64, 128));
    stage2d = register_module("stage2d", Rsu(6, 256, 32, 64));
    stage1d = register_module("stage1d", Rsu(7, 128, 16, 64));
    side1 = register_module("side1", sideConv(64));
    side2 = register_module("side2", sideConv(64));
    side3 = register_module("side3", sideConv(128));
    side4 = register_module("side4", sideConv(256));
    side5 = register_module("side5", sideConv(512));
    side6 = register_module("side6", sideConv(512));
}

torch::Tensor ISNetImpl::forward(const torch::Tensor& x) {
    // Skips are dropped as soon as the decoder has used them: at 1024² the net holds a few
    // hundred MB of activations at its peak, most of it at the 512² level.
    auto hx1 = stage1(conv_in(x));
    auto hx2 = stage2(rsuPool(hx1));
    auto hx3 = stage3(rsuPool(hx2));
    auto hx4 = stage4(rsuPool(hx3));
    auto hx5 = stage5(rsuPool(hx4));
    auto d = stage6(rsuPool(hx5));  // hx6

    d = stage5d(torch::cat({upsampleLike(d, hx5), hx5}, 1));
    hx5 = torch::Tensor();
    d = stage4d(torch::cat({upsampleLike(d, hx4), hx4}, 1));
    hx4 = torch::Tensor();
    d = stage3d(torch::cat({upsampleLike(d, hx3), hx3}, 1));
    hx3 = torch::Tensor();
    d = stage2d(torch::cat({upsampleLike(d, hx2), hx2}, 1));
    hx2 = torch::Tensor();
    d = stage1d(torch::cat({upsampleLike(d, hx1), hx1}, 1));
    hx1 = torch::Tensor();

    return torch::sigmoid(upsampleLike(side1(d), x));
}

ISNet loadISNet(const std::filesystem::path& safetensors) {
    ISNet net;
    net->eval();
    loadRemoverWeights(*net, safetensors, kFoldedPrefix, kFirstFoldedName);
    return net;
}

torch::Tensor isnetPreprocess(const torch::Tensor& rgb) {
    checkPicture(rgb, "isnetPreprocess");
    constexpr auto kRes = ISNetImpl::kResolution;
    // What sharp hands the package: 8-bit values. Then its resize, rounded to 8 bits, and its
    // tensorHWCtoBCHW with mean 128, std 256.
    const auto bytes = roundHalfUp(
        resizeBilinearJs(rgb.detach().to(torch::kCPU), kRes, kRes, torch::kFloat64, pictureBytes));
    return ((bytes - 128) / 256).to(torch::kFloat32).unsqueeze(0).contiguous();
}

torch::Tensor isnetMask(ISNetImpl& net, const torch::Tensor& rgb, torch::Tensor* probabilities) {
    return removerMask(net, isnetPreprocess(rgb), [&](const torch::Tensor& x) { return net.forward(x); },
                       rgb.size(1), rgb.size(2), probabilities);
}

}  // namespace stageload
