#include "engine/pipelines/character/outline_closure.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

#include "engine/core/image_tensor.h"
#include "engine/core/order_statistics.h"
#include "engine/core/regions.h"
#include "engine/core/torch_nn.h"
#include "engine/pipelines/character/detached_parts.h"
#include "engine/pipelines/character/shade.h"

namespace stageload {
namespace {

// Darker than this (luma, 0..1), a pixel can be a stroke of the figure's outline ...
constexpr double kInkLuminance = 0.2;
// ... and so it can when darker than this share of the background's luma behind it, up to
// kInkCeiling, and neither the background darkened evenly (a shadow) nor within this many
// pixels of a shadow (its rim, where a JPEG's noise breaks the evenness).
constexpr double kInkShare = 0.7;
constexpr double kInkCeiling = 0.35;
constexpr std::int64_t kShadowMargin = 1;
// A dark region is a stroke when it is thin: at least this share of it goes under an erosion
// (radius: the picture's long side / 150, at least 2 px). A dark thing beside the figure (a
// chair, a shadowed doorway) is thick and stays.
constexpr double kThinShare = 0.5;
// ... and not larger than this share of the mask.
constexpr double kMaxStrokeShare = 0.25;
// A stroke that reaches the picture's border farther than this many erosion radii from the
// mask is scenery.
constexpr std::int64_t kSceneryReach = 4;
// A gap this share of the mask or larger is left to the remover.
constexpr double kMaxGapShare = 0.25;
// The background around a gap, as a margin around the gap's bounding box (share of the
// picture's long side, at least 16 px).
constexpr double kContextShare = 0.04;
// The gap is the figure's when at least this share of its pixels lie farther from the
// background's median colour than 90 % of the background does ...
constexpr double kUnlikeShare = 0.5;
// ... (that spread taken as at least this, for noise) ...
constexpr double kMinSpread = 0.02;
// ... or when the background's spread is beyond this: too busy to tell, trust the outline.
constexpr double kBusySpread = 0.1;

struct Box {
    std::int64_t x0, y0, x1, y1;  // inclusive
};

double colourDistance(const float* r, const float* g, const float* b, std::int64_t p,
                      const std::array<float, 3>& c) {
    const double dr = r[p] - c[0], dg = g[p] - c[1], db = b[p] - c[2];
    return std::sqrt((dr * dr + dg * dg + db * db) / 3.0);
}

// Where `rgb` [3,H,W] is dark enough to be the outline of the figure masked by `soft`: under
// kInkLuminance, or under kInkShare of the luma of the background behind the mask (up to
// kInkCeiling) away from where that background is darkened evenly (a shadow wider than a
// stroke, and kShadowMargin px round it). backgroundBehind leaves out what stands out of it,
// so a part the mask lost does not count as background. A dark grey-green outline on a green
// background (luma 0.21-0.29 against 0.37-0.47) is ink as black is on white. [H,W] bool.
torch::Tensor ink(const torch::Tensor& rgb, const torch::Tensor& soft) {
    const auto lumaOf = [](const torch::Tensor& c) { return c[0] * 0.299 + c[1] * 0.587 + c[2] * 0.114; };
    const auto luma = lumaOf(rgb);
    const auto black = luma < kInkLuminance;
    const auto background = backgroundBehind(rgb, soft).colour;
    if (!background.defined()) return black;
    const auto darker = luma < (lumaOf(background) * kInkShare).clamp_max(kInkCeiling);
    const auto evenly = darkenedEvenly(rgb, background);
    return black | (darker & ~evenly & ~nearShadow(evenly, kShadowMargin));
}

}  // namespace

torch::Tensor closeByOutline(const torch::Tensor& rgbIn, const torch::Tensor& soft) {
    const auto rgb = rgbIn.to(torch::kFloat32).contiguous();
    const auto h = rgb.size(1), w = rgb.size(2), n = h * w;
    const auto inMask = (soft >= 0.5).to(torch::kUInt8).contiguous();
    const auto dark = ink(rgb, soft).to(torch::kUInt8).contiguous();
    const auto* m = inMask.data_ptr<std::uint8_t>();
    const auto* d = dark.data_ptr<std::uint8_t>();
    const float* r = rgb.data_ptr<float>();
    const float* g = r + n;
    const float* b = g + n;
    std::int64_t maskArea = 0;
    for (std::int64_t p = 0; p < n; ++p) maskArea += m[p];
    if (maskArea == 0) return soft;

    const auto neighbours = [&](std::int64_t p) {
        const auto y = p / w, x = p % w;
        return std::array<std::int64_t, 4>{x > 0 ? p - 1 : -1, x + 1 < w ? p + 1 : -1, y > 0 ? p - w : -1,
                                           y + 1 < h ? p + w : -1};
    };

    // The outline: thin dark strokes outside the mask that touch it.
    const auto strokes = labelRegions(h, w, [&](std::int64_t p) { return d[p] && !m[p]; });
    namespace F = torch::nn::functional;
    const auto radius = std::max<std::int64_t>(2, std::max(h, w) / 150);
    const auto darkOutside = (dark & (inMask == 0)).to(torch::kFloat32).view({1, 1, h, w});
    const auto thick = (-F::max_pool2d(-darkOutside, F::MaxPool2dFuncOptions(2 * radius + 1).stride(1).padding(radius)))
                           .view({h, w})
                           .gt(0.5)
                           .to(torch::kUInt8)
                           .contiguous();
    const auto* thickAt = thick.data_ptr<std::uint8_t>();
    // A stroke that reaches the picture's border away from the mask is scenery (a horizon,
    // the edge of a photo's ground, a dark texture joined to it) that the figure stands
    // against, of which only the pixels beside the mask may be its outline; the outline of a
    // figure the frame cuts reaches the border only beside the figure.
    const auto maskF = inMask.to(torch::kFloat32);
    const auto besideMask = (dilate(maskF, radius) > 0.5).to(torch::kUInt8).contiguous();
    const auto nearMask = (dilate(maskF, kSceneryReach * radius) > 0.5).to(torch::kUInt8).contiguous();
    const auto* beside = besideMask.data_ptr<std::uint8_t>();
    const auto* near = nearMask.data_ptr<std::uint8_t>();
    std::vector<char> outline(strokes.sizes.size(), 0), scenery(strokes.sizes.size(), 0);
    std::vector<std::int64_t> core(strokes.sizes.size(), 0);
    for (std::int64_t p = 0; p < n; ++p) {
        if (!strokes.labels[p]) continue;
        core[strokes.labels[p]] += thickAt[p];
        for (const auto q : neighbours(p))
            if (q >= 0 && m[q]) outline[strokes.labels[p]] = 1;
        const auto y = p / w, x = p % w;
        if ((y == 0 || y == h - 1 || x == 0 || x == w - 1) && !near[p]) scenery[strokes.labels[p]] = 1;
    }
    for (std::size_t id = 1; id < outline.size(); ++id) {
        const auto size = static_cast<double>(strokes.sizes[id]);
        if (size >= kMaxStrokeShare * static_cast<double>(maskArea) ||
            static_cast<double>(core[id]) > (1.0 - kThinShare) * size)
            outline[id] = 0;
    }
    const auto isOutline = [&](std::int64_t p) {
        const auto id = strokes.labels[p];
        return outline[id] && (!scenery[id] || beside[p]);
    };
    std::vector<std::uint8_t> wall(static_cast<std::size_t>(n));
    for (std::int64_t p = 0; p < n; ++p) wall[p] = m[p] || isOutline(p);

    // What the mask and its outline enclose, with each gap's bounding box.
    const auto gaps = labelRegions(h, w, [&](std::int64_t p) { return !wall[p]; });
    const auto atBorder = touchingBorder(gaps, h, w);
    std::vector<Box> box(gaps.sizes.size(), Box{w, h, -1, -1});
    for (std::int64_t p = 0; p < n; ++p) {
        auto& bx = box[gaps.labels[p]];
        const auto y = p / w, x = p % w;
        bx = {std::min(bx.x0, x), std::min(bx.y0, y), std::max(bx.x1, x), std::max(bx.y1, y)};
    }
    const auto margin = std::max<std::int64_t>(16, std::llround(kContextShare * static_cast<double>(std::max(h, w))));
    std::vector<char> figure(gaps.sizes.size(), 0);
    for (std::size_t id = 1; id < gaps.sizes.size(); ++id) {
        if (atBorder[id] || static_cast<double>(gaps.sizes[id]) >= kMaxGapShare * static_cast<double>(maskArea))
            continue;
        // The background seen around the gap: what reaches the border, within the margin.
        const Box& bx = box[id];
        const auto x0 = std::max<std::int64_t>(0, bx.x0 - margin), x1 = std::min(w - 1, bx.x1 + margin);
        const auto y0 = std::max<std::int64_t>(0, bx.y0 - margin), y1 = std::min(h - 1, bx.y1 + margin);
        std::array<std::vector<float>, 3> bg;
        std::vector<std::int64_t> around;
        const auto collect = [&](std::int64_t p) {
            if (!atBorder[gaps.labels[p]]) return;
            around.push_back(p);
            bg[0].push_back(r[p]), bg[1].push_back(g[p]), bg[2].push_back(b[p]);
        };
        for (auto y = y0; y <= y1; ++y)
            for (auto x = x0; x <= x1; ++x) collect(y * w + x);
        if (around.size() < 16) {  // deep inside the figure: the background anywhere
            around.clear();
            for (auto& c : bg) c.clear();
            for (std::int64_t p = 0; p < n; p += 7) collect(p);
            if (around.size() < 16) continue;  // no background at all: leave the gap be
        }
        const std::array<float, 3> centre{median(bg[0]), median(bg[1]), median(bg[2])};
        std::vector<float> spread;
        spread.reserve(around.size());
        for (const auto p : around) spread.push_back(static_cast<float>(colourDistance(r, g, b, p, centre)));
        const double p90 = valueAtShare(spread, 0.9);
        if (p90 > kBusySpread) {
            figure[id] = 1;
            continue;
        }
        const double limit = std::max(p90, kMinSpread);
        std::int64_t unlike = 0;
        for (auto y = bx.y0; y <= bx.y1; ++y)
            for (auto x = bx.x0; x <= bx.x1; ++x) {
                const auto p = y * w + x;
                if (gaps.labels[p] == static_cast<std::int32_t>(id)) unlike += colourDistance(r, g, b, p, centre) > limit;
            }
        figure[id] = static_cast<double>(unlike) >= kUnlikeShare * static_cast<double>(gaps.sizes[id]);
    }

    auto out = soft.to(torch::kFloat32).clone().contiguous();
    auto* o = out.data_ptr<float>();
    for (std::int64_t p = 0; p < n; ++p)
        if (isOutline(p) || figure[gaps.labels[p]]) o[p] = 1.0f;
    return out;
}

}  // namespace stageload
