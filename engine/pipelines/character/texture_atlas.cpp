#include "engine/pipelines/character/texture_atlas.h"

#include <algorithm>
#include <cmath>

#include "engine/core/image_tensor.h"
#include "engine/core/regions.h"

namespace stageload {

namespace F = torch::nn::functional;

namespace {

// Regions of the front under this share of the subject are features the back does not repeat:
// on the knight the eyes, mouth and emblems go, the hair, arms and plume stay.
constexpr double kFeatureShare = 0.015;
// ... and at least this share of the picture's long side inside the silhouette.
constexpr double kFeatureDepth = 0.02;

// The back's colours: the front's small features (eyes, a mouth, an emblem, their outlines)
// painted over by the colour around them; large colour regions, with their shading, kept. A
// region is what a flood fill reaches stepping between neighbours whose colours differ by less
// than `step` in every channel: smooth shading stays in its region, an outline or an eye's edge
// separates. A region under `minShare` of the subject's pixels and away from the silhouette's
// edge is a feature, and push-pull fills it from the subject around it.
torch::Tensor paintOverFeatures(const torch::Tensor& image, const torch::Tensor& subject, double minShare) {
    constexpr float step = 0.08f;
    // Regions are found at one working size whatever the atlas size: upscaled, an edge spreads
    // over more pixels in smaller steps and would join what it separates.
    constexpr double kWorkLong = 512.0;
    const auto h = image.size(1), w = image.size(2);
    const double scale = std::min(1.0, kWorkLong / static_cast<double>(std::max(h, w)));
    const auto sh = std::max<std::int64_t>(1, std::llround(h * scale));
    const auto sw = std::max<std::int64_t>(1, std::llround(w * scale));
    const auto small = resizeTensor(image, sh, sw);
    const auto pixels = small.to(torch::kCPU, torch::kFloat32).permute({1, 2, 0}).contiguous();
    const auto* c = pixels.data_ptr<float>();
    const auto near = [c](std::int64_t p, std::int64_t q) {
        return std::abs(c[3 * p] - c[3 * q]) < step && std::abs(c[3 * p + 1] - c[3 * q + 1]) < step &&
               std::abs(c[3 * p + 2] - c[3 * q + 2]) < step;
    };
    const auto regions = labelRegions(sh, sw, [](std::int64_t) { return true; }, near);
    const auto inside = (resizeTensor(subject.to(torch::kFloat32), sh, sw) > 0.5f).to(torch::kCPU).contiguous();
    const auto* in = inside.data_ptr<bool>();
    // A feature lies well inside the figure (an eye in a face, an emblem on a shield); a small
    // region at the silhouette's edge is a part seen from behind too (a hand round a haft, the
    // ball of an antenna). "Inside" counts from the silhouette: holes in the subject (a
    // highlight the cut-out left out) do not make an eye an edge.
    const auto outside = labelRegions(sh, sw, [in](std::int64_t p) { return !in[p]; });
    const auto open = touchingBorder(outside, sh, sw);
    auto silhouette = torch::empty({sh, sw}, torch::kFloat32);
    auto* sil = silhouette.data_ptr<float>();
    for (std::int64_t i = 0; i < sh * sw; ++i) sil[i] = open[outside.labels[i]] ? 0.0f : 1.0f;
    const auto depth = std::max<std::int64_t>(3, std::llround(kFeatureDepth * static_cast<double>(std::max(sh, sw))));
    const auto deep = (-F::max_pool2d(-silhouette.view({1, 1, sh, sw}),
                                      F::MaxPool2dFuncOptions(2 * depth + 1).stride(1).padding(depth)))
                          .view({sh, sw})
                          .gt(0.5f)
                          .contiguous();
    const auto* dp = deep.data_ptr<bool>();
    std::vector<char> atEdge(regions.sizes.size(), 0);
    for (std::int64_t i = 0; i < sh * sw; ++i)
        if (!dp[i]) atEdge[regions.labels[i]] = 1;
    const double limit = minShare * static_cast<double>(inside.sum().item<std::int64_t>());
    auto keep = torch::empty({sh, sw}, torch::kFloat32);
    auto* k = keep.data_ptr<float>();
    for (std::int64_t i = 0; i < sh * sw; ++i) {
        const auto id = regions.labels[i];
        k[i] = in[i] && (static_cast<double>(regions.sizes[id]) >= limit || atEdge[id]) ? 1.0f : 0.0f;
    }
    // The fill is smooth by nature: push-pull at the working size, then the features take it
    // and everything else keeps its own pixels at full size.
    keep = keep.to(image.device());
    const auto fill = resizeTensor(pushPullFill(small, keep), h, w);
    return torch::where(resizeTensor(keep, h, w) > 0.5f, image, fill);
}

}  // namespace

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
    // airbrushed.
    const auto subject = resizeTensor(solid, h, w) >= 0.5;
    auto painted = gaussianBlur(paintOverFeatures(front, subject.to(torch::kFloat32), kFeatureShare).flip({2}), 1.5);
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
