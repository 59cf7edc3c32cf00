#include "engine/core/image_tensor.h"

#include <cmath>
#include <cstring>

#include "engine/core/torch_nn.h"

namespace stageload {
namespace {

namespace F = torch::nn::functional;

// [H,W] -> [1,1,H,W]; [C,H,W] -> [1,C,H,W]
torch::Tensor batched(const torch::Tensor& t) { return t.dim() == 2 ? t.unsqueeze(0).unsqueeze(0) : t.unsqueeze(0); }
torch::Tensor unbatched(const torch::Tensor& t, std::int64_t dim) {
    return dim == 2 ? t.squeeze(0).squeeze(0) : t.squeeze(0);
}

}  // namespace

torch::Tensor imageToTensor(const Image& image) {
    auto bytes = torch::from_blob(const_cast<std::uint8_t*>(image.pixels.data()),
                                  {image.height, image.width, image.channels}, torch::kUInt8);
    return bytes.permute({2, 0, 1}).to(torch::kFloat32).div_(255.0f).contiguous();
}

Image tensorToImage(const torch::Tensor& t) {
    auto chw = t.dim() == 2 ? t.unsqueeze(0) : t;
    auto bytes = chw.detach().to(torch::kCPU, torch::kFloat32).clamp(0, 1).mul(255.0f).round_()
                     .to(torch::kUInt8).permute({1, 2, 0}).contiguous();
    Image image(static_cast<int>(chw.size(2)), static_cast<int>(chw.size(1)),
                static_cast<int>(chw.size(0)));
    std::memcpy(image.pixels.data(), bytes.data_ptr<std::uint8_t>(), image.pixels.size());
    return image;
}

torch::Tensor resizeTensor(const torch::Tensor& image, std::int64_t height, std::int64_t width) {
    const auto h = image.size(-2), w = image.size(-1);
    if (h == height && w == width) return image;
    const bool shrink = height < h || width < w;
    auto options = F::InterpolateFuncOptions()
                       .size(std::vector<std::int64_t>{height, width})
                       .mode(torch::kBilinear)
                       .align_corners(false)
                       .antialias(shrink);
    return unbatched(F::interpolate(batched(image), options), image.dim());
}

torch::Tensor boxBlur(const torch::Tensor& image, std::int64_t radius) {
    if (radius <= 0) return image;
    const auto k = 2 * radius + 1;
    auto x = batched(image);
    auto out = F::avg_pool2d(
        x, F::AvgPool2dFuncOptions(k).stride(1).padding(radius).count_include_pad(false));
    return unbatched(out, image.dim());
}

torch::Tensor dilate(const torch::Tensor& image, std::int64_t radius) {
    if (radius <= 0) return image;
    auto out = F::max_pool2d(batched(image), F::MaxPool2dFuncOptions(2 * radius + 1).stride(1).padding(radius));
    return unbatched(out, image.dim());
}

torch::Tensor erode(const torch::Tensor& image, std::int64_t radius) {
    return -dilate(-image, radius);
}

torch::Tensor gaussianBlur(const torch::Tensor& image, double sigma) {
    if (sigma <= 0.0) return image;
    const auto radius = static_cast<std::int64_t>(std::ceil(3.0 * sigma));
    auto taps = torch::arange(-radius, radius + 1, torch::kFloat32);
    auto kernel = torch::exp(-(taps * taps) / (2.0 * sigma * sigma));
    kernel /= kernel.sum();
    auto x = batched(image);
    const auto c = x.size(1);
    auto kx = kernel.view({1, 1, 1, -1}).repeat({c, 1, 1, 1}).to(x.device());
    auto ky = kernel.view({1, 1, -1, 1}).repeat({c, 1, 1, 1}).to(x.device());
    x = F::pad(x, F::PadFuncOptions({radius, radius, radius, radius}).mode(torch::kReplicate));
    x = F::conv2d(x, kx, F::Conv2dFuncOptions().groups(c));
    x = F::conv2d(x, ky, F::Conv2dFuncOptions().groups(c));
    return unbatched(x, image.dim());
}

torch::Tensor colourDistance(const torch::Tensor& rgb, const torch::Tensor& reference) {
    return ((rgb - reference).pow(2).sum(0) / 3.0).sqrt().contiguous();
}

torch::Tensor pushPullFill(const torch::Tensor& image, const torch::Tensor& weight) {
    auto colour = batched(image);
    auto w = batched(weight).clamp(0, 1);
    // Push: premultiplied colour and weight pyramids.
    std::vector<std::pair<torch::Tensor, torch::Tensor>> levels;
    auto c = colour * w;
    while (true) {
        levels.emplace_back(c, w);
        if (c.size(2) <= 1 && c.size(3) <= 1) break;
        const auto h = std::max<std::int64_t>(1, (c.size(2) + 1) / 2);
        const auto wd = std::max<std::int64_t>(1, (c.size(3) + 1) / 2);
        auto pool = [&](const torch::Tensor& t) {
            return F::adaptive_avg_pool2d(t, F::AdaptiveAvgPool2dFuncOptions({h, wd}));
        };
        c = pool(c);
        w = pool(w);
    }
    // Pull: each level keeps what it knows and takes the rest from the level below.
    auto [coarseC, coarseW] = levels.back();
    auto filled = coarseC / coarseW.clamp_min(1e-8);
    for (auto it = levels.rbegin() + 1; it != levels.rend(); ++it) {
        const auto& [lc, lw] = *it;
        auto up = F::interpolate(filled, F::InterpolateFuncOptions()
                                             .size(std::vector<std::int64_t>{lc.size(2), lc.size(3)})
                                             .mode(torch::kBilinear)
                                             .align_corners(false));
        auto known = lc / lw.clamp_min(1e-8);
        auto a = lw.clamp(0, 1);
        filled = known * a + up * (1 - a);
    }
    return unbatched(filled, image.dim());
}

}  // namespace stageload
