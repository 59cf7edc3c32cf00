#include "engine/pipelines/character/back_paint.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <deque>
#include <unordered_map>
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

// Regions are found at one working size whatever the atlas size, and no finer than the picture
// (paintOverFeatures' source): upscaled, an edge spreads over more pixels in smaller steps and
// would join what it separates.
constexpr double kWorkLong = 512.0;
// Regions under this share of the subject are features the back does not repeat: on the knight
// the eyes, mouth and emblems go, the hair, arms and plume stay...
constexpr double kFeatureShare = 0.015;
// ... when they lie at least this share of the picture's long side inside the silhouette.
constexpr double kFeatureDepth = 0.02;
// Pixels next to a feature are mixed with it (anti-aliasing); the fill takes its colours this far
// (working pixels) from any feature.
constexpr std::int64_t kCleanMargin = 2;
// A detail one colour region encloses is a front detail whatever its share of the figure (a
// slime's large eyes, an emblem on a chest) when it is at most this share of that region...
constexpr double kEnclosedShare = 0.3;
// ... and the region lies round it: at least this share of the pixels beyond the detail's mixed
// edge (kCleanMargin) and as far again as a feature lies inside the silhouette (kFeatureDepth)
// belong to the region. An outline encloses every part it outlines, but only as far as its
// width: beyond it lie the background and the other parts, so a hand or an antenna's ball stays.
// (An eye near the side of a head has the head on most sides of it.)
constexpr double kLapShare = 0.6;
// A large region deep inside the figure is a front detail too when several regions lie round it
// together (detailsAmongRegions): each holding at least this share of its ring (an eye's ring
// on a head striped across crosses a dozen stripes), with under kOutsideShare of the ring
// outside the figure, and it at most kDeepDetailShare of the subject.
constexpr double kHostShare = 0.01;
constexpr double kOutsideShare = 0.05;
constexpr double kDeepDetailShare = 0.1;

// An emblem drawn without an outline in a colour near its host's (a light star on a brown chest, a
// teal diamond on a teal tunic) is within kStep of it across its anti-aliased edge and joins the
// host's colour region. Within each large region, regions are found again at this finer step
// and span (smooth shading stays in one) ...
constexpr float kFineStep = 0.03f;
constexpr float kFineSpan = 0.06f;
// ... and what one of them encloses is a front detail (fineDetails) when its mean colour is at
// least this far (largest channel) from the figure's round it: a JPEG's blocks and a fill's
// grain split a region at that step too, by less.
constexpr double kFineContrast = 0.05;

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

// Calls `visit(y, x)` for each position round `hole` over kCleanMargin and at most kCleanMargin +
// `reach` from it (Chebyshev), on the grid or beyond it.
template <class Visit>
void forRing(const std::vector<std::int64_t>& hole, const Grid& g, std::int64_t reach, Visit visit) {
    const auto k = kCleanMargin + reach;
    std::int64_t x0 = g.w, y0 = g.h, x1 = -1, y1 = -1;
    for (const auto p : hole) {
        x0 = std::min(x0, p % g.w), x1 = std::max(x1, p % g.w);
        y0 = std::min(y0, p / g.w), y1 = std::max(y1, p / g.w);
    }
    // Chebyshev distances from the hole, breadth first, in its box grown by k.
    const Grid box{y1 - y0 + 1 + 2 * k, x1 - x0 + 1 + 2 * k};
    std::vector<std::int64_t> dist(static_cast<std::size_t>(box.size()), -1), queue;
    for (const auto p : hole) {
        const auto q = (p / g.w - y0 + k) * box.w + p % g.w - x0 + k;
        dist[q] = 0, queue.push_back(q);
    }
    for (std::size_t at = 0; at < queue.size(); ++at) {
        const auto q = queue[at];
        if (dist[q] == k) continue;
        const auto qy = q / box.w, qx = q % box.w;
        for (std::int64_t dy = -1; dy <= 1; ++dy)
            for (std::int64_t dx = -1; dx <= 1; ++dx) {
                const auto ny = qy + dy, nx = qx + dx;
                if (ny < 0 || nx < 0 || ny >= box.h || nx >= box.w || dist[ny * box.w + nx] >= 0) continue;
                dist[ny * box.w + nx] = dist[q] + 1;
                queue.push_back(ny * box.w + nx);
                if (dist[q] + 1 > kCleanMargin) visit(y0 - k + ny, x0 - k + nx);
            }
    }
}

// The pixels round `hole` (forRing, `reach`) counted by the colour region they lie in (label 0:
// outside the figure, and beyond the grid).
struct Ring {
    std::int64_t size = 0;
    std::unordered_map<std::int32_t, std::int64_t> on;
};

Ring ringAround(const std::vector<std::int64_t>& hole, const Regions& regions, const Grid& g, std::int64_t reach) {
    Ring ring;
    forRing(hole, g, reach, [&](std::int64_t y, std::int64_t x) {
        ++ring.size;
        ++ring.on[y >= 0 && x >= 0 && y < g.h && x < g.w ? regions.labels[y * g.w + x] : 0];
    });
    return ring;
}

// Whether region `host` lies round the pixels `hole`: kLapShare of its ring (ringAround, `reach`)
// belongs to it.
bool lapped(const std::vector<std::int64_t>& hole, std::int32_t host, const Regions& regions, const Grid& g,
            std::int64_t reach) {
    const auto ring = ringAround(hole, regions, g, reach);
    const auto on = ring.on.find(host);
    return on != ring.on.end() && static_cast<double>(on->second) >= kLapShare * static_cast<double>(ring.size);
}

// Pixels in the holes of the colour regions of at least `minHost` pixels: everything such a
// region encloses and lies round (lapped, `reach`: a detail, its own details, the mixed pixels
// round it), where the hole is subject throughout (background seen through the figure stays as
// it is) and at most kEnclosedShare of the region.
std::vector<char> enclosedDetails(const Regions& regions, const std::vector<char>& in, double minHost,
                                  std::int64_t reach, const Grid& g) {
    const auto n = regions.sizes.size();
    std::vector<std::int64_t> x0(n, g.w), y0(n, g.h), x1(n, -1), y1(n, -1);
    for (std::int64_t p = 0; p < g.size(); ++p) {
        const auto id = regions.labels[p];
        if (!id) continue;
        const auto y = p / g.w, x = p % g.w;
        x0[id] = std::min(x0[id], x), x1[id] = std::max(x1[id], x);
        y0[id] = std::min(y0[id], y), y1[id] = std::max(y1[id], y);
    }
    std::vector<char> out(in.size(), 0);
    for (std::size_t id = 1; id < n; ++id) {
        const auto host = static_cast<std::int32_t>(id);
        const auto size = static_cast<double>(regions.sizes[id]);
        if (size < minHost) continue;
        const Grid box{y1[id] - y0[id] + 1, x1[id] - x0[id] + 1};
        const auto at = [&](std::int64_t q) { return (y0[id] + q / box.w) * g.w + x0[id] + q % box.w; };
        const auto holes = labelRegions(box.h, box.w, [&](std::int64_t q) { return regions.labels[at(q)] != host; });
        auto open = touchingBorder(holes, box.h, box.w);
        std::vector<std::vector<std::int64_t>> pixels(holes.sizes.size());
        for (std::int64_t q = 0; q < box.size(); ++q) {
            const auto hole = holes.labels[q];
            if (!hole) continue;
            if (!in[at(q)]) open[hole] = 1;
            pixels[hole].push_back(at(q));
        }
        for (std::size_t hole = 1; hole < pixels.size(); ++hole) {
            if (open[hole] || static_cast<double>(pixels[hole].size()) > kEnclosedShare * size ||
                !lapped(pixels[hole], host, regions, g, reach))
                continue;
            for (const auto p : pixels[hole]) out[p] = 1;
        }
    }
    return out;
}

// What the finer regions within the large ones enclose (see kFineStep) and differs from what lies
// round it, as a front detail does: the pieces of enclosedDetails over those regions (`minHost`,
// `reach`) that `found` (what the regions at kStep paint) leaves out, each kept when its mean
// colour is at least kFineContrast (largest channel) from the mean of the figure's pixels round
// it (forRing: the kCleanMargin pixels beyond its mixed edge, other such pieces left out).
std::vector<char> fineDetails(const Regions& regions, const std::vector<char>& large, const std::vector<char>& in,
                              const float* rgb, const std::vector<char>& found, double minHost, std::int64_t reach,
                              const Grid& g) {
    const paint::SameColour fine{rgb, g, kFineStep, kFineSpan};
    const auto finer = labelRegions(
        g.h, g.w, [&](std::int64_t p) { return in[p] && large[regions.labels[p]]; },
        [&](std::int64_t p, std::int64_t q) { return regions.labels[p] == regions.labels[q] && fine(p, q); });
    const auto enclosed = enclosedDetails(finer, in, minHost, reach, g);
    const auto pieces = labelRegions(g.h, g.w, [&](std::int64_t p) { return enclosed[p] && !found[p]; });
    std::vector<std::vector<std::int64_t>> members(pieces.sizes.size());
    for (std::int64_t p = 0; p < g.size(); ++p)
        if (const auto id = pieces.labels[p]) members[id].push_back(p);
    std::vector<char> out(in.size(), 0);
    for (std::size_t id = 1; id < members.size(); ++id) {
        std::array<double, 3> own{}, round{};
        for (const auto p : members[id])
            for (int ch = 0; ch < 3; ++ch) own[ch] += rgb[3 * p + ch];
        std::int64_t count = 0;
        forRing(members[id], g, kCleanMargin, [&](std::int64_t y, std::int64_t x) {
            const auto q = y * g.w + x;
            if (y < 0 || x < 0 || y >= g.h || x >= g.w || !in[q] || enclosed[q]) return;
            for (int ch = 0; ch < 3; ++ch) round[ch] += rgb[3 * q + ch];
            ++count;
        });
        if (count == 0) continue;
        double contrast = 0.0;
        for (int ch = 0; ch < 3; ++ch)
            contrast = std::max(contrast, std::abs(own[ch] / static_cast<double>(members[id].size()) -
                                                   round[ch] / static_cast<double>(count)));
        if (contrast >= kFineContrast)
            for (const auto p : members[id]) out[p] = 1;
    }
    return out;
}

// The large regions deep inside the silhouette (no pixel within `depth` of its edge) that the
// regions round them lie round together, where no one of them does: a visor across a helmet
// shaded in two tones or on a striped one, an eye's white on a striped head. The hosts are the
// regions holding at least kHostShare of the region's ring each (ringAround, `depth`).
// Together they hold at least kLapShare of it and have at least as many pixels as the region,
// which has at most `maxPixels`; under kOutsideShare of the ring lies outside the figure; and
// the region's mean colour is farther from every host's than the hosts' are from one another
// (largest channel).
// The tones of a helmet are alike beside its visor. The knight's shield is no such case: each
// blue half lies between the other half and the silver rim, which differ from each other more
// than the half differs from the nearer of them. Nor is an outlined arm's fill, whose edge
// pixels the colour step splits off, so that it lies just deep enough: its outline and the body
// it crosses lie round it, but so does the background beyond its end.
std::vector<char> detailsAmongRegions(const Regions& regions, const float* rgb, const std::vector<char>& large,
                                      const std::vector<char>& atEdge, std::int64_t depth, double maxPixels,
                                      const Grid& g) {
    std::vector<std::vector<std::int64_t>> members(regions.sizes.size());
    std::vector<std::array<double, 3>> mean(regions.sizes.size(), {0.0, 0.0, 0.0});
    for (std::int64_t i = 0; i < g.size(); ++i) {
        const auto id = regions.labels[i];
        for (int ch = 0; ch < 3; ++ch) mean[id][ch] += rgb[3 * i + ch];
        if (id && large[id] && !atEdge[id]) members[id].push_back(i);
    }
    for (std::size_t id = 1; id < mean.size(); ++id)
        for (auto& v : mean[id]) v /= static_cast<double>(std::max<std::int64_t>(1, regions.sizes[id]));
    const auto apart = [&](std::size_t a, std::size_t b) {
        return std::max({std::abs(mean[a][0] - mean[b][0]), std::abs(mean[a][1] - mean[b][1]),
                         std::abs(mean[a][2] - mean[b][2])});
    };
    std::vector<char> out(regions.labels.size(), 0);
    for (std::size_t id = 1; id < members.size(); ++id) {
        const auto size = regions.sizes[id];
        if (members[id].empty() || static_cast<double>(size) > maxPixels) continue;
        const auto ring = ringAround(members[id], regions, g, depth);
        std::int64_t onHosts = 0, hostPixels = 0;
        std::vector<std::size_t> hosts;
        for (const auto& [label, count] : ring.on)
            if (label != 0 && static_cast<std::size_t>(label) != id &&
                static_cast<double>(count) >= kHostShare * static_cast<double>(ring.size))
                onHosts += count, hostPixels += regions.sizes[label], hosts.push_back(label);
        double contrast = 1.0, spread = 0.0;
        for (std::size_t a = 0; a < hosts.size(); ++a) {
            contrast = std::min(contrast, apart(id, hosts[a]));
            for (std::size_t b = a + 1; b < hosts.size(); ++b) spread = std::max(spread, apart(hosts[a], hosts[b]));
        }
        const auto outside = ring.on.count(0) ? ring.on.at(0) : 0;
        if (static_cast<double>(onHosts) >= kLapShare * static_cast<double>(ring.size) && size <= hostPixels &&
            static_cast<double>(outside) < kOutsideShare * static_cast<double>(ring.size) && contrast > spread)
            for (const auto p : members[id]) out[p] = 1;
    }
    return out;
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
    return paintOverFeatures(image, image, subject);
}

torch::Tensor paintOverFeatures(const torch::Tensor& image, const torch::Tensor& source, const torch::Tensor& subject) {
    const auto h = image.size(1), w = image.size(2);
    const auto sh = source.size(1), sw = source.size(2);
    const double scale = std::min(1.0, kWorkLong / static_cast<double>(std::max(sh, sw)));
    const Grid g{std::max<std::int64_t>(1, std::llround(sh * scale)),
                 std::max<std::int64_t>(1, std::llround(sw * scale))};
    const auto pixels = resizeTensor(source, g.h, g.w).to(torch::kCPU, torch::kFloat32).contiguous();
    const auto rgb = pixels.permute({1, 2, 0}).contiguous();
    const auto* c = rgb.data_ptr<float>();
    const paint::SameColour near{c, g};
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
    const auto enclosed = enclosedDetails(regions, in, limit, depth, g);
    const auto among = detailsAmongRegions(regions, c, large, atEdge, depth, kDeepDetailShare * subjectPixels, g);
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (soft[i] || enclosed[i] || among[i]) keep[i] = 0;
    std::vector<char> found(in.size());
    for (std::int64_t i = 0; i < g.size(); ++i) found[i] = in[i] && !keep[i];
    const auto fine = fineDetails(regions, large, in, c, found, limit, depth, g);
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (fine[i]) keep[i] = 0;
    // What touches a painted feature goes with it. Scaled up to the texture, a feature's colour
    // spreads past the pixels it was found in; and on a small picture an eye near the side of the
    // head is a mosaic of one- and two-pixel regions (its white, its pupil, the pixels mixed
    // between them and the face) of which those within the edge's depth were kept as small
    // parts at the silhouette's edge, leaving a crescent of the eye on the back.
    const auto painted = (toTensor(in, g) & ~toTensor(keep, g)).to(torch::kFloat32);
    const auto touching = toMask(dilate(painted, 1) > 0.5f);
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (touching[i]) keep[i] = 0;

    // The fill takes its colours from kept pixels clear of every painted feature's mixed edge,
    // however small the part they lie in (a star apart from the figure keeps its own colour).
    const auto keepTensor = toTensor(keep, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    const auto paintedOver = (toTensor(in, g) & ~toTensor(keep, g)).to(torch::kFloat32).view({1, 1, g.h, g.w});
    const auto nearPainted =
        F::max_pool2d(paintedOver, F::MaxPool2dFuncOptions(2 * kCleanMargin + 1).stride(1).padding(kCleanMargin))
            .view({g.h, g.w})
            .gt(0.5f);
    const auto clean = toMask(toTensor(keep, g) & ~nearPainted);
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
