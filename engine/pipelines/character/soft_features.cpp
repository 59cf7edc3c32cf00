#include "engine/pipelines/character/soft_features.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>

#include "engine/core/image_tensor.h"
#include "engine/core/torch_nn.h"

namespace stageload::paint {

namespace F = torch::nn::functional;

namespace {

// A soft feature (a blush, a glow) joins its region in the flood fill. It stands out from the
// region's own colours around it by more than kSoftCore somewhere and kSoftEdge all over, and
// covers at most kSoftShare of the region.
constexpr float kSoftCore = 0.06f, kSoftEdge = 0.025f;
constexpr double kSoftShare = 0.2;
// A region's own colours around a pixel: in the (2 kOwnWindow + 1)² tiles of kOwnTile (a share
// of the long side) around its tile, the colours (quantized to kOwnBins per channel) that at
// least a feature's limit of the region's pixels there have, and always the most frequent one;
// each is the mean of those pixels. A feature has fewer pixels than that, so it cannot become
// its region's colour, however large a share of the window it takes (a blush on a face) and
// however many colours the region has (a soft outline joins a whole figure into one region:
// cap, body, shadow and outline). Two grids of bins, the second shifted by half a bin, so a
// colour at a bin's border is not split below the limit. Up to kOwnMax colours per grid.
constexpr double kOwnTile = 0.06;
constexpr std::int64_t kOwnWindow = 2;
constexpr int kOwnBins = 8, kOwnMax = 8;
// Pixels mixed between two own colours (a soft shading edge) are off too, in lines: a patch is
// what is left of the off pixels after an opening of one pixel, split where the colour steps
// by kStep (a blush is one colour, the shadow band it lies on another), and gets back its
// faint rim up to kSoftGrow pixels.
constexpr std::int64_t kSoftGrow = 2;
// A soft feature changes the hue of what is around it by at least kSoftHue degrees (a blush on
// skin: 19-31): a darker or lighter patch of the region's own hue is its drawing (the spots on
// a slime's sides: 4, the curls of a fringe: 2) and stays, and so does a piece of shading that
// turns its hue a little (a corner of the robot's screen frame: 13). A grey around a coloured
// patch, or the reverse, counts as a change; two greys (chroma under kSoftGrey) as none. Each
// of its pixels differs by kSoftPixelHue from its nearest own colour: shading of the region's
// own hue that touches it is not part of it (the band along the lantern's glass, under its left
// blush: 0-8 degrees, the blush 12-21).
constexpr double kSoftHue = 15.0, kSoftPixelHue = 10.0, kSoftGrey = 0.08;
// It is a blob: it fills at least kSoftFill of its bounding box, whose sides differ at most
// kSoftAspect times (a band of shadow along an outline is shading) ...
constexpr double kSoftFill = 0.4, kSoftAspect = 3.0;
// ... lying in its region: at least kSoftSurround of the pixels up to kSoftRing pixels around it
// are the region's, clear of any other. A blush measures 0.7-0.8; the lighter curls of a fringe,
// drawn between its outline and the face, 0.35-0.45.
// Regions under kMixedSize pixels are the mixed pixels along a sharp edge, not another region:
// a strong blush's own anti-aliased rim breaks into them (the slime's, 1-3 px each), and the
// ring test counts them neither way.
constexpr std::int64_t kSoftRing = 4;
constexpr double kSoftSurround = 0.6;
constexpr std::int64_t kMixedSize = 8;
// A patch of fewer than kSoftMinSize pixels is a fleck of a shading edge, cut out by the opening
// or by the hue of its pixels (1-13 px along the slime's belly, the creature's cap); a blush has
// hundreds.
constexpr double kSoftMinSize = 16.0;
// Degrees of hue between two colours; 180 where one is grey (chroma under kSoftGrey) and the
// other is not, 0 where both are.
double hueChange(const std::array<double, 3>& a, const std::array<double, 3>& b) {
    const auto hue = [](const std::array<double, 3>& c, double& chroma) {
        const auto hi = std::max({c[0], c[1], c[2]}), lo = std::min({c[0], c[1], c[2]});
        chroma = hi - lo;
        if (chroma <= 1e-9) return 0.0;
        if (hi == c[0]) return 60.0 * std::fmod((c[1] - c[2]) / chroma + 6.0, 6.0);
        if (hi == c[1]) return 60.0 * ((c[2] - c[0]) / chroma + 2.0);
        return 60.0 * ((c[0] - c[1]) / chroma + 4.0);
    };
    double ca = 0, cb = 0;
    const auto ha = hue(a, ca), hb = hue(b, cb);
    if (ca < kSoftGrey && cb < kSoftGrey) return 0.0;
    if (ca < kSoftGrey || cb < kSoftGrey) return 180.0;
    const auto d = std::fmod(std::abs(ha - hb), 360.0);
    return std::min(d, 360.0 - d);
}

struct OffColour {
    std::vector<float> off;     ///< per pixel, largest channel (0 outside the large regions)
    std::vector<char> tinted;   ///< of another hue (kSoftPixelHue) than that nearest own colour
};

// Per pixel of the `large` regions: how far its colour (the region's own pixels, lightly
// blurred: a photo's grain must not read as a feature, nor the outline next to a region) is,
// largest channel, from the nearest of its region's own colours around it (see kOwnTile), and
// whether its hue differs from that colour's. `pixels` [3,h,w], contiguous on the CPU.
OffColour offRegionColour(const torch::Tensor& pixels, const Regions& regions,
                          const std::vector<char>& large, double limit, const Grid& g) {
    const auto labels = torch::from_blob(const_cast<std::int32_t*>(regions.labels.data()),
                                         {g.h, g.w}, torch::kInt32);
    const auto* px = pixels.data_ptr<float>();
    const auto tile = std::max<std::int64_t>(
        2, std::llround(kOwnTile * static_cast<double>(std::max(g.h, g.w))));
    constexpr int kLevels = kOwnBins + 1, kCodes = kLevels * kLevels * kLevels;
    std::vector<std::vector<std::int64_t>> members(large.size());
    for (std::int64_t i = 0; i < g.size(); ++i)
        if (large[regions.labels[i]]) members[regions.labels[i]].push_back(i);
    OffColour out{std::vector<float>(g.size(), 0.0f), std::vector<char>(g.size(), 0)};
    for (std::size_t id = 1; id < large.size(); ++id) {
        if (!large[id]) continue;
        const auto& pts = members[id];
        const auto m = labels.eq(static_cast<std::int32_t>(id)).to(torch::kFloat32);
        const auto fine =
            (gaussianBlur(pixels * m, 1.0) / gaussianBlur(m, 1.0).clamp_min(1e-6)).contiguous();
        const auto* f = fine.data_ptr<float>();
        // The region's tiles, and the window around each.
        std::int64_t y0 = g.h, y1 = 0, x0 = g.w, x1 = 0;
        for (const auto i : pts)
            y0 = std::min(y0, i / g.w / tile), y1 = std::max(y1, i / g.w / tile),
            x0 = std::min(x0, i % g.w / tile), x1 = std::max(x1, i % g.w / tile);
        const auto bh = y1 - y0 + 1, bw = x1 - x0 + 1;
        std::vector<float> best(pts.size(), std::numeric_limits<float>::infinity());
        std::vector<std::array<float, 3>> nearest(pts.size(), {0.0f, 0.0f, 0.0f});
        std::vector<double> count, sum, wcount, wsum;
        for (const double shift : {0.0, 0.5}) {
            const auto code = [&](std::int64_t i) {
                int k = 0;
                for (int ch = 0; ch < 3; ++ch) {
                    const auto q = static_cast<int>(std::floor(px[ch * g.size() + i] * kOwnBins + shift));
                    k = k * kLevels + std::clamp(q, 0, kOwnBins);
                }
                return k;
            };
            count.assign(static_cast<std::size_t>(bh * bw * kCodes), 0.0);
            sum.assign(count.size() * 3, 0.0);
            for (const auto i : pts) {
                const auto t = (i / g.w / tile - y0) * bw + (i % g.w / tile - x0);
                const auto k = t * kCodes + code(i);
                count[k] += 1;
                for (int ch = 0; ch < 3; ++ch) sum[3 * k + ch] += px[ch * g.size() + i];
            }
            // Window sums over the tiles, rows then columns.
            const auto boxSum = [&](const std::vector<double>& in, int n, std::vector<double>& out) {
                std::vector<double> rows(in.size(), 0.0);
                out.assign(in.size(), 0.0);
                const auto stride = static_cast<std::int64_t>(kCodes) * n;
                for (std::int64_t y = 0; y < bh; ++y)
                    for (std::int64_t x = 0; x < bw; ++x)
                        for (auto xx = std::max<std::int64_t>(0, x - kOwnWindow);
                             xx <= std::min(bw - 1, x + kOwnWindow); ++xx)
                            for (std::int64_t k = 0; k < stride; ++k)
                                rows[(y * bw + x) * stride + k] += in[(y * bw + xx) * stride + k];
                for (std::int64_t y = 0; y < bh; ++y)
                    for (auto yy = std::max<std::int64_t>(0, y - kOwnWindow);
                         yy <= std::min(bh - 1, y + kOwnWindow); ++yy)
                        for (std::int64_t x = 0; x < bw; ++x)
                            for (std::int64_t k = 0; k < stride; ++k)
                                out[(y * bw + x) * stride + k] += rows[(yy * bw + x) * stride + k];
            };
            boxSum(count, 1, wcount);
            boxSum(sum, 3, wsum);
            // Each tile's own colours.
            std::vector<std::array<float, 3>> own(static_cast<std::size_t>(bh * bw * kOwnMax));
            std::vector<int> owns(static_cast<std::size_t>(bh * bw), 0);
            std::vector<int> order(kCodes);
            for (std::int64_t t = 0; t < bh * bw; ++t) {
                const auto* wc = &wcount[t * kCodes];
                std::iota(order.begin(), order.end(), 0);
                std::partial_sort(order.begin(), order.begin() + kOwnMax, order.end(),
                                  [wc](int a, int b) { return wc[a] > wc[b] || (wc[a] == wc[b] && a < b); });
                for (int j = 0; j < kOwnMax; ++j) {
                    const auto n = wc[order[j]];
                    if (!(n >= limit || (j == 0 && n > 0))) break;
                    auto& col = own[t * kOwnMax + owns[t]++];
                    for (int ch = 0; ch < 3; ++ch)
                        col[ch] = static_cast<float>(wsum[3 * (t * kCodes + order[j]) + ch] / n);
                }
            }
            for (std::size_t j = 0; j < pts.size(); ++j) {
                const auto i = pts[j];
                const auto t = (i / g.w / tile - y0) * bw + (i % g.w / tile - x0);
                for (int o = 0; o < owns[t]; ++o) {
                    const auto& col = own[t * kOwnMax + o];
                    float d = 0.0f;
                    for (int ch = 0; ch < 3; ++ch)
                        d = std::max(d, std::abs(f[ch * g.size() + i] - col[ch]));
                    if (d < best[j]) best[j] = d, nearest[j] = col;
                }
            }
        }
        for (std::size_t j = 0; j < pts.size(); ++j) {
            const auto i = pts[j];
            out.off[i] = best[j];
            out.tinted[i] = hueChange({f[i], f[g.size() + i], f[2 * g.size() + i]},
                                      {nearest[j][0], nearest[j][1], nearest[j][2]}) >= kSoftPixelHue;
        }
    }
    return out;
}

// Pixels within `reach` pixels (Chebyshev) of another region; with `minSize`, only where the two
// regions (or the outside, label 0) both have at least that many pixels.
std::vector<char> nearOtherRegion(const Regions& regions, const Grid& g, std::int64_t reach,
                                  std::int64_t minSize = 0) {
    const auto counts = [&](std::int32_t id) { return id == 0 || regions.sizes[id] >= minSize; };
    std::vector<char> edge(regions.labels.size(), 0);
    for (std::int64_t p = 0; p < g.size(); ++p) {
        const auto y = p / g.w, x = p % g.w;
        const auto id = regions.labels[p];
        if (!counts(id)) continue;
        const auto other = [&](std::int64_t q) {
            return regions.labels[q] != id && counts(regions.labels[q]);
        };
        edge[p] = (x > 0 && other(p - 1)) || (x + 1 < g.w && other(p + 1)) ||
                  (y > 0 && other(p - g.w)) || (y + 1 < g.h && other(p + g.w));
    }
    const auto e = toTensor(edge, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    return toMask(F::max_pool2d(e, F::MaxPool2dFuncOptions(2 * reach + 1).stride(1).padding(reach))
                      .view({g.h, g.w})
                      .gt(0.5f));
}

}  // namespace

std::vector<char> softFeatures(const torch::Tensor& pixels, const Regions& regions,
                               const std::vector<char>& large, const std::vector<char>& deep,
                               double limit, const Grid& g, SameColour near) {
    const auto offColour = offRegionColour(pixels, regions, large, limit, g);
    const auto* o = offColour.off.data();
    const auto* px = pixels.data_ptr<float>();
    // The mixed pixels along an outline would join every patch near it into one ring.
    const auto edge = nearOtherRegion(regions, g, 1);
    const auto outline = nearOtherRegion(regions, g, 1, kMixedSize);
    std::vector<char> candidate(regions.labels.size());
    for (std::int64_t p = 0; p < g.size(); ++p)
        candidate[p] = large[regions.labels[p]] && o[p] > kSoftEdge && offColour.tinted[p] && !edge[p];
    // An opening of one pixel: lines of mixed pixels (a soft shading edge) go.
    const auto cand = toTensor(candidate, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    const auto pool = F::MaxPool2dFuncOptions(3).stride(1).padding(1);
    const auto opened =
        toMask(F::max_pool2d(-F::max_pool2d(-cand, pool), pool).view({g.h, g.w}).gt(0.5f));
    const auto patches = labelRegions(
        g.h, g.w, [&](std::int64_t p) { return candidate[p] && opened[p]; }, near);
    std::vector<char> core(patches.sizes.size(), 0), rejected(patches.sizes.size(), 0);
    std::vector<std::int32_t> within(patches.sizes.size(), 0);
    std::vector<std::array<double, 3>> colour(patches.sizes.size(), {0, 0, 0});
    struct Box {
        std::int64_t x0 = INT64_MAX, y0 = INT64_MAX, x1 = -1, y1 = -1;
    };
    std::vector<Box> boxes(patches.sizes.size());
    for (std::int64_t i = 0; i < g.size(); ++i) {
        const auto id = patches.labels[i];
        if (o[i] > kSoftCore) core[id] = 1;
        if (!deep[i]) rejected[id] = 1;
        within[id] = regions.labels[i];
        for (int ch = 0; ch < 3; ++ch) colour[id][ch] += px[ch * g.size() + i];
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
        std::array<double, 3> plainColour{0, 0, 0};
        for (std::int64_t y = y0; y <= y1; ++y)
            for (std::int64_t x = x0; x <= x1; ++x) {
                const auto c = (y - y0) * crop.w + x - x0, p = y * g.w + x;
                const auto r = regions.labels[p];
                if (!around[c] || inPatch[c] || (r != 0 && regions.sizes[r] < kMixedSize)) continue;
                ++ring;
                if (r != within[id] || outline[p]) continue;
                ++plain;
                for (int ch = 0; ch < 3; ++ch) plainColour[ch] += px[ch * g.size() + p];
            }
        if (static_cast<double>(plain) < kSoftSurround * static_cast<double>(ring)) return false;
        // Another hue than the region around it.
        std::array<double, 3> mean;
        for (int ch = 0; ch < 3; ++ch)
            mean[ch] = colour[id][ch] / static_cast<double>(patches.sizes[id]),
            plainColour[ch] /= static_cast<double>(plain);
        return hueChange(mean, plainColour) >= kSoftHue;
    };
    std::vector<char> feature(patches.sizes.size(), 0);
    for (std::size_t id = 1; id < patches.sizes.size(); ++id) {
        const auto size = static_cast<double>(patches.sizes[id]);
        const auto bw = static_cast<double>(boxes[id].x1 - boxes[id].x0 + 1);
        const auto bh = static_cast<double>(boxes[id].y1 - boxes[id].y0 + 1);
        const bool blob =
            size >= kSoftFill * bw * bh && std::max(bw, bh) <= kSoftAspect * std::min(bw, bh);
        feature[id] = core[id] && !rejected[id] && blob && size >= kSoftMinSize && size < limit &&
                      size <= kSoftShare * static_cast<double>(regions.sizes[within[id]]) &&
                      surrounded(static_cast<std::int32_t>(id));
    }
    std::vector<char> soft(regions.labels.size(), 0);
    for (std::int64_t i = 0; i < g.size(); ++i) soft[i] = feature[patches.labels[i]];
    // A feature's faint rim, split off from it by the opening or the colour steps, goes with it
    // (not a large patch beside it: an outline).
    const auto softT = toTensor(soft, g).to(torch::kFloat32).view({1, 1, g.h, g.w});
    const auto grown = toMask(
        F::max_pool2d(softT, F::MaxPool2dFuncOptions(2 * kSoftGrow + 1).stride(1).padding(kSoftGrow))
            .view({g.h, g.w})
            .gt(0.5f));
    for (std::int64_t i = 0; i < g.size(); ++i) {
        const auto id = patches.labels[i];
        soft[i] = soft[i] || (grown[i] && large[regions.labels[i]] && o[i] > kSoftEdge &&
                              static_cast<double>(patches.sizes[id]) < limit);
    }
    return soft;
}

}  // namespace stageload::paint
