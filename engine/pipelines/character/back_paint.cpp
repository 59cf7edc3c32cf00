#include "engine/pipelines/character/back_paint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/core/image_tensor.h"
#include "engine/core/regions.h"

namespace stageload {

namespace F = torch::nn::functional;

namespace {

// Regions are found at one working size whatever the atlas size: upscaled, an edge spreads over
// more pixels in smaller steps and would join what it separates.
constexpr double kWorkLong = 512.0;
// Two neighbours belong to one colour region when every channel differs by less than this:
// smooth shading stays in its region, an outline or an eye's edge separates.
constexpr float kStep = 0.08f;
// Regions under this share of the subject are features the back does not repeat: on the knight
// the eyes, mouth and emblems go, the hair, arms and plume stay...
constexpr double kFeatureShare = 0.015;
// ... when they lie at least this share of the picture's long side inside the silhouette.
constexpr double kFeatureDepth = 0.02;
// A soft feature (a blush, a glow) joins its region in the flood fill. It stands out from the
// region's own colour at kSoftScale (a share of the long side) by more than kSoftCore somewhere
// and kSoftEdge all over, and covers at most kSoftShare of the region. Shading varies slowly at
// this scale and stays; so does a region's own drawing (the curls of a fringe).
constexpr double kSoftScale = 0.03;
constexpr float kSoftCore = 0.06f, kSoftEdge = 0.025f;
constexpr double kSoftShare = 0.2;
// It is a blob: it fills at least kSoftFill of its bounding box, whose sides differ at most
// kSoftAspect times (a band of shadow along an outline is shading) ...
constexpr double kSoftFill = 0.4, kSoftAspect = 3.0;
// ... lying in its region: at least kSoftSurround of the pixels up to kSoftRing pixels around it
// are the region's, clear of any other. A blush measures 0.7-0.8; the lighter curls of a fringe,
// drawn between its outline and the face, 0.35-0.45.
constexpr std::int64_t kSoftRing = 4;
constexpr double kSoftSurround = 0.6;
// Pixels next to a feature are mixed with it (anti-aliasing); the fill takes its colours this far
// (working pixels) from any feature.
constexpr std::int64_t kCleanMargin = 2;

struct Grid {
    std::int64_t h, w;
    std::int64_t size() const { return h * w; }
};

torch::Tensor toTensor(const std::vector<char>& mask, const Grid& g) {
    auto t = torch::empty({g.h, g.w}, torch::kBool);
    std::copy(mask.begin(), mask.end(), t.data_ptr<bool>());
    return t;
}

std::vector<char> toMask(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU, torch::kBool).contiguous();
    return {c.data_ptr<bool>(), c.data_ptr<bool>() + c.numel()};
}

// The subject with its holes filled: a highlight the cut-out left out is inside the figure.
std::vector<char> silhouette(const std::vector<char>& in, const Grid& g) {
    const auto outside = labelRegions(g.h, g.w, [&](std::int64_t p) { return !in[p]; });
    const auto open = touchingBorder(outside, g.h, g.w);
    std::vector<char> s(in.size());
    for (std::int64_t i = 0; i < g.size(); ++i) s[i] = !open[outside.labels[i]];
    return s;
}

// Pixels at least `depth` pixels (Chebyshev) inside the silhouette.
std::vector<char> deepInside(const std::vector<char>& sil, const Grid& g, std::int64_t depth) {
    const auto s = toTensor(sil, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    const auto eroded =
        -F::max_pool2d(-s, F::MaxPool2dFuncOptions(2 * depth + 1).stride(1).padding(depth));
    return toMask(eroded.view({g.h, g.w}).gt(0.5f));
}

// Per pixel of the `large` regions: how far its colour is (largest channel) from its region's own
// colour around it. Both are blurs that take only the region's pixels: a photo's grain must not
// read as a feature, nor the outline next to a region.
torch::Tensor offRegionColour(const torch::Tensor& pixels, const Regions& regions,
                              const std::vector<char>& large, const Grid& g) {
    const auto labels = torch::from_blob(const_cast<std::int32_t*>(regions.labels.data()),
                                         {g.h, g.w}, torch::kInt32);
    // Slow colour needs no detail: blurred at a quarter of the working size.
    const auto ch = std::max<std::int64_t>(1, g.h / 4), cw = std::max<std::int64_t>(1, g.w / 4);
    const double sigma = std::max(1.0, kSoftScale * static_cast<double>(std::max(ch, cw)));
    auto off = torch::zeros({g.h, g.w}, torch::kFloat32);
    for (std::size_t id = 1; id < large.size(); ++id) {
        if (!large[id]) continue;
        const auto member = labels.eq(static_cast<std::int32_t>(id));
        const auto m = member.to(torch::kFloat32);
        const auto masked = pixels * m;
        const auto own =
            resizeTensor(gaussianBlur(resizeTensor(masked, ch, cw), sigma) /
                             gaussianBlur(resizeTensor(m, ch, cw), sigma).clamp_min(1e-6),
                         g.h, g.w);
        const auto fine = gaussianBlur(masked, 1.0) / gaussianBlur(m, 1.0).clamp_min(1e-6);
        off = torch::where(member, (fine - own).abs().amax(0), off);
    }
    return off;
}

// Pixels within `reach` pixels (Chebyshev) of another region.
std::vector<char> nearOtherRegion(const Regions& regions, const Grid& g, std::int64_t reach) {
    std::vector<char> edge(regions.labels.size(), 0);
    for (std::int64_t p = 0; p < g.size(); ++p) {
        const auto y = p / g.w, x = p % g.w;
        const auto id = regions.labels[p];
        edge[p] = (x > 0 && regions.labels[p - 1] != id) ||
                  (x + 1 < g.w && regions.labels[p + 1] != id) ||
                  (y > 0 && regions.labels[p - g.w] != id) ||
                  (y + 1 < g.h && regions.labels[p + g.w] != id);
    }
    const auto e = toTensor(edge, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    return toMask(F::max_pool2d(e, F::MaxPool2dFuncOptions(2 * reach + 1).stride(1).padding(reach))
                      .view({g.h, g.w})
                      .gt(0.5f));
}

// Soft features (a blush, a glow): patches of the `large` regions off their region's colour, by
// more than kSoftCore somewhere and kSoftEdge all over, under `limit` pixels and kSoftShare of the
// region, `deep` inside the figure, blobs, surrounded by their region.
std::vector<char> softFeatures(const torch::Tensor& pixels, const Regions& regions,
                               const std::vector<char>& large, const std::vector<char>& deep,
                               double limit, const Grid& g) {
    const auto off = offRegionColour(pixels, regions, large, g);
    const auto* o = off.data_ptr<float>();
    // The mixed pixels along an outline would join every patch near it into one ring.
    const auto edge = nearOtherRegion(regions, g, 1);
    const auto patches = labelRegions(g.h, g.w, [&](std::int64_t p) {
        return large[regions.labels[p]] && o[p] > kSoftEdge && !edge[p];
    });
    std::vector<char> core(patches.sizes.size(), 0), rejected(patches.sizes.size(), 0);
    std::vector<std::int32_t> within(patches.sizes.size(), 0);
    struct Box {
        std::int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = -1, y1 = -1;
    };
    std::vector<Box> boxes(patches.sizes.size());
    for (std::int64_t i = 0; i < g.size(); ++i) {
        const auto id = patches.labels[i];
        if (o[i] > kSoftCore) core[id] = 1;
        if (!deep[i]) rejected[id] = 1;
        within[id] = regions.labels[i];
        auto& b = boxes[id];
        b.x0 = std::min(b.x0, i % g.w), b.x1 = std::max(b.x1, i % g.w);
        b.y0 = std::min(b.y0, i / g.w), b.y1 = std::max(b.y1, i / g.w);
    }
    const auto surrounded = [&](std::int32_t id) {
        const auto& b = boxes[id];
        const auto x0 = std::max<std::int64_t>(0, b.x0 - kSoftRing),
                   x1 = std::min(g.w - 1, b.x1 + kSoftRing);
        const auto y0 = std::max<std::int64_t>(0, b.y0 - kSoftRing),
                   y1 = std::min(g.h - 1, b.y1 + kSoftRing);
        const Grid crop{y1 - y0 + 1, x1 - x0 + 1};
        std::vector<char> inPatch(static_cast<std::size_t>(crop.size()));
        for (std::int64_t y = y0; y <= y1; ++y)
            for (std::int64_t x = x0; x <= x1; ++x)
                inPatch[(y - y0) * crop.w + x - x0] = patches.labels[y * g.w + x] == id;
        const auto m = toTensor(inPatch, crop).to(torch::kFloat32).view({1, 1, crop.h, crop.w});
        const auto around =
            toMask(F::max_pool2d(
                       m, F::MaxPool2dFuncOptions(2 * kSoftRing + 1).stride(1).padding(kSoftRing))
                       .view({crop.h, crop.w})
                       .gt(0.5f));
        std::int64_t ring = 0, plain = 0;
        for (std::int64_t y = y0; y <= y1; ++y)
            for (std::int64_t x = x0; x <= x1; ++x) {
                const auto c = (y - y0) * crop.w + x - x0, p = y * g.w + x;
                if (!around[c] || inPatch[c]) continue;
                ++ring;
                plain += regions.labels[p] == within[id] && !edge[p];
            }
        return static_cast<double>(plain) >= kSoftSurround * static_cast<double>(ring);
    };
    std::vector<char> feature(patches.sizes.size(), 0);
    for (std::size_t id = 1; id < patches.sizes.size(); ++id) {
        const auto size = static_cast<double>(patches.sizes[id]);
        const auto bw = static_cast<double>(boxes[id].x1 - boxes[id].x0 + 1);
        const auto bh = static_cast<double>(boxes[id].y1 - boxes[id].y0 + 1);
        const bool blob =
            size >= kSoftFill * bw * bh && std::max(bw, bh) <= kSoftAspect * std::min(bw, bh);
        feature[id] = core[id] && !rejected[id] && blob && size < limit &&
                      size <= kSoftShare * static_cast<double>(regions.sizes[within[id]]) &&
                      surrounded(static_cast<std::int32_t>(id));
    }
    std::vector<char> soft(regions.labels.size(), 0);
    for (std::int64_t i = 0; i < g.size(); ++i) soft[i] = feature[patches.labels[i]];
    return soft;
}

// Every pixel not `known` takes the colour of the nearest known one, so a feature across two
// regions (a star on a two-tone shield) is split between them along a straight line instead of
// blended into a ghost of itself. Breadth-first from the known pixels, each pixel keeping the
// source nearest in Euclidean distance that a neighbour offers (close to the exact Voronoi split).
torch::Tensor nearestFill(const torch::Tensor& pixels, const std::vector<char>& known,
                          const Grid& g) {
    std::vector<std::int64_t> from(known.size(), -1);
    std::deque<std::int64_t> queue;
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (known[i]) from[i] = i, queue.push_back(i);
    if (queue.empty()) return pixels;
    const auto distance = [&g](std::int64_t p, std::int64_t s) {
        const auto dy = p / g.w - s / g.w, dx = p % g.w - s % g.w;
        return dy * dy + dx * dx;
    };
    while (!queue.empty()) {
        const auto p = queue.front();
        queue.pop_front();
        const auto y = p / g.w, x = p % g.w;
        for (std::int64_t dy = -1; dy <= 1; ++dy)
            for (std::int64_t dx = -1; dx <= 1; ++dx) {
                const auto ny = y + dy, nx = x + dx;
                if (ny < 0 || nx < 0 || ny >= g.h || nx >= g.w) continue;
                const auto q = ny * g.w + nx;
                if (from[q] < 0 || distance(q, from[p]) < distance(q, from[q])) {
                    from[q] = from[p];
                    queue.push_back(q);
                }
            }
    }
    const auto index = torch::from_blob(from.data(), {g.size()}, torch::kInt64).clone();
    return pixels.reshape({3, g.size()}).index_select(1, index).view({3, g.h, g.w});
}

}  // namespace

torch::Tensor paintOverFeatures(const torch::Tensor& image, const torch::Tensor& subject) {
    const auto h = image.size(1), w = image.size(2);
    const double scale = std::min(1.0, kWorkLong / static_cast<double>(std::max(h, w)));
    const Grid g{std::max<std::int64_t>(1, std::llround(h * scale)),
                 std::max<std::int64_t>(1, std::llround(w * scale))};
    const auto pixels = resizeTensor(image, g.h, g.w).to(torch::kCPU, torch::kFloat32).contiguous();
    const auto rgb = pixels.permute({1, 2, 0}).contiguous();
    const auto* c = rgb.data_ptr<float>();
    const auto near = [c](std::int64_t p, std::int64_t q) {
        return std::abs(c[3 * p] - c[3 * q]) < kStep &&
               std::abs(c[3 * p + 1] - c[3 * q + 1]) < kStep &&
               std::abs(c[3 * p + 2] - c[3 * q + 2]) < kStep;
    };
    const auto in = toMask(resizeTensor(subject.to(torch::kFloat32), g.h, g.w) > 0.5f);
    // Colour regions of the figure only: the colours continued around it would join them all.
    const auto regions = labelRegions(
        g.h, g.w, [&](std::int64_t p) { return in[p] != 0; }, near);
    const auto subjectPixels = static_cast<double>(std::count(in.begin(), in.end(), 1));
    const double limit = kFeatureShare * subjectPixels;

    // A feature lies well inside the figure (an eye in a face, an emblem on a shield); a small
    // region at the silhouette's edge is a part seen from behind too (a hand round a haft, the
    // ball of an antenna).
    const auto depth = std::max<std::int64_t>(
        3, std::llround(kFeatureDepth * static_cast<double>(std::max(g.h, g.w))));
    const auto deep = deepInside(silhouette(in, g), g, depth);
    std::vector<char> atEdge(regions.sizes.size(), 0), large(regions.sizes.size(), 0);
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (!deep[i]) atEdge[regions.labels[i]] = 1;
    for (std::size_t id = 1; id < regions.sizes.size(); ++id)
        large[id] = static_cast<double>(regions.sizes[id]) >= limit;
    std::vector<char> keep(in.size());
    for (std::int64_t i = 0; i < g.size(); ++i) {
        const auto id = regions.labels[i];
        keep[i] = in[i] && (large[id] || atEdge[id]);
    }

    const auto soft = softFeatures(pixels, regions, large, deep, limit, g);
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (soft[i]) keep[i] = 0;

    // The fill takes its colours from kept pixels clear of every feature's mixed edge.
    const auto keepTensor = toTensor(keep, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    const auto clean =
        toMask((-F::max_pool2d(
                    -keepTensor,
                    F::MaxPool2dFuncOptions(2 * kCleanMargin + 1).stride(1).padding(kCleanMargin)))
                   .view({g.h, g.w})
                   .gt(0.5f));
    // Inside the figure the nearest clean colour; around it (seen only at the mesh's sides and in
    // mip-maps) a smooth push-pull.
    const auto inside = toTensor(in, g);
    const auto fill =
        gaussianBlur(torch::where(inside, nearestFill(pixels, clean, g),
                                  pushPullFill(pixels, toTensor(clean, g).to(torch::kFloat32))),
                     1.0)
            .to(image.device());
    const auto kept = resizeTensor(keepTensor.view({g.h, g.w}).to(image.device()), h, w) > 0.5f;
    return torch::where(kept, image, resizeTensor(fill, h, w));
}

}  // namespace stageload
