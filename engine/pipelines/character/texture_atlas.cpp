#include "engine/pipelines/character/texture_atlas.h"

#include <algorithm>
#include <cmath>

#include "engine/core/image_tensor.h"
#include "engine/pipelines/character/back_paint.h"

namespace stageload {

namespace F = torch::nn::functional;

AtlasLayout planAtlas(std::int64_t width, std::int64_t height, std::int64_t size) {
    AtlasLayout l;
    l.size = size;
    l.cropWidth = width;
    l.cropHeight = height;
    const double gutter = std::max<double>(4.0, size / 64.0);
    const double half = size / 2.0;
    // Side by side or stacked: whichever lets the crop be larger.
    const double sideBySide = std::min((half - 2 * gutter) / width, (size - 2 * gutter) / height);
    const double stacked = std::min((size - 2 * gutter) / width, (half - 2 * gutter) / height);
    const bool columns = sideBySide >= stacked;
    const double s = columns ? sideBySide : stacked;
    // Whole-pixel regions, so the baked picture lands exactly where the UVs point.
    const double w = std::floor(width * s), h = std::floor(height * s);
    l.scale = {w / width, h / height};
    if (columns) {
        l.frontOrigin = {std::floor((half - w) / 2), std::floor((size - h) / 2)};
        l.backOrigin = {half + std::floor((half - w) / 2), l.frontOrigin[1]};
    } else {
        l.frontOrigin = {std::floor((size - w) / 2), std::floor((half - h) / 2)};
        l.backOrigin = {l.frontOrigin[0], half + std::floor((half - h) / 2)};
    }
    return l;
}

std::array<float, 2> atlasUv(const AtlasLayout& l, bool back, double x, double y) {
    const auto& o = back ? l.backOrigin : l.frontOrigin;
    const double ax = o[0] + (back ? l.cropWidth - x : x) * l.scale[0];
    const double ay = o[1] + y * l.scale[1];
    return {static_cast<float>(ax / l.size), static_cast<float>(ay / l.size)};
}

TextureBakerImpl::TextureBakerImpl(std::int64_t size, torch::Device device) : size_(size) {
    atlas_ = register_buffer("atlas", torch::zeros({3, size, size}, torch::TensorOptions(device)));
}

torch::Tensor TextureBakerImpl::bake(const torch::Tensor& rgbIn, const torch::Tensor& alphaIn,
                                     const AtlasLayout& l) {
    torch::NoGradGuard noGrad;
    auto rgb = rgbIn.to(atlas_.device(), torch::kFloat32);
    auto alpha = alphaIn.to(atlas_.device(), torch::kFloat32);
    // Trust colours only well inside the outline: edge pixels are mixed with the background.
    auto solid = -F::max_pool2d(-(alpha >= 0.5).to(torch::kFloat32).unsqueeze(0).unsqueeze(0),
                                F::MaxPool2dFuncOptions(5).stride(1).padding(2))
                      .squeeze(0).squeeze(0);
    if (solid.sum().item<double>() < 16) solid = (alpha >= 0.5).to(torch::kFloat32);
    auto filled = pushPullFill(rgb, solid);

    const auto w = static_cast<std::int64_t>(std::llround(l.cropWidth * l.scale[0]));
    const auto h = static_cast<std::int64_t>(std::llround(l.cropHeight * l.scale[1]));
    auto front = resizeTensor(filled, h, w);
    // The back: mirrored, with the front's faces, eyes and emblems painted over (a back of
    // the head shows no eyes), a little darker, with a faint grain so it does not look
    // airbrushed. The features are found in the crop itself, not in its scaled-up copy.
    auto painted = gaussianBlur(paintOverFeatures(front, filled, solid).flip({2}), 1.5);
    auto grain = torch::randn({1, h, w}).to(atlas_.device()) * 0.012;
    auto back = (painted * 0.9 + grain).clamp(0, 1);

    // Around the regions: the subject's mean colour (only mip-mapping ever reaches it).
    auto mean = (rgb * solid).sum({1, 2}) / solid.sum().clamp_min(1);
    atlas_.copy_(mean.view({3, 1, 1}).expand({3, size_, size_}));
    auto place = [&](const torch::Tensor& region, const std::array<double, 2>& origin) {
        const auto x = static_cast<std::int64_t>(origin[0]), y = static_cast<std::int64_t>(origin[1]);
        // Gutter: the region's edge pixels repeated a few texels outward.
        const auto g = std::min<std::int64_t>({x, y, size_ / 128 + 2});
        auto padded = F::pad(region.unsqueeze(0), F::PadFuncOptions({g, g, g, g}).mode(torch::kReplicate)).squeeze(0);
        const auto x0 = x - g, y0 = y - g;
        const auto pw = std::min<std::int64_t>(padded.size(2), size_ - x0);
        const auto ph = std::min<std::int64_t>(padded.size(1), size_ - y0);
        atlas_.slice(1, y0, y0 + ph).slice(2, x0, x0 + pw).copy_(padded.slice(1, 0, ph).slice(2, 0, pw));
    };
    place(front, l.frontOrigin);
    place(back, l.backOrigin);
    return atlas_.clone();
}

}  // namespace stageload
