#include "engine/pipelines/character/back_paint.h"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <deque>
#include <vector>

#include "engine/core/image_tensor.h"
#include "engine/core/regions.h"
#include "engine/core/torch_nn.h"
#include "engine/pipelines/character/paint_grid.h"
#include "engine/pipelines/character/soft_features.h"

namespace stageload {

namespace F = torch::nn::functional;

namespace {

using paint::Grid;
using paint::toMask;
using paint::toTensor;

// Regions are found at one working size whatever the atlas size: upscaled, an edge spreads over
// more pixels in smaller steps and would join what it separates.
constexpr double kWorkLong = 512.0;
// Regions under this share of the subject are features the back does not repeat: on the knight
// the eyes, mouth and emblems go, the hair, arms and plume stay...
constexpr double kFeatureShare = 0.015;
// ... when they lie at least this share of the picture's long side inside the silhouette.
constexpr double kFeatureDepth = 0.02;
// Pixels next to a feature are mixed with it (anti-aliasing); the fill takes its colours this far
// (working pixels) from any feature.
constexpr std::int64_t kCleanMargin = 2;

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
    const paint::SameColour near{c};
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

    const auto soft = paint::softFeatures(pixels, regions, large, deep, limit, g, near);
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
