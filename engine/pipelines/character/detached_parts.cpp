#include "engine/pipelines/character/detached_parts.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/image_tensor.h"
#include "engine/core/order_statistics.h"
#include "engine/core/regions.h"
#include "engine/pipelines/character/shade.h"

namespace stageload {
namespace {

// The background's first, rough estimate: cells this share of the picture's long side across.
constexpr double kRoughCellShare = 1.0 / 8.0;
// A cell is measured when at least this share of its pixels are background.
constexpr double kMeasuredShare = 0.25;
// A figure's part differs from the background by at least this (colour distance, 0..1) ...
constexpr double kMinContrast = 0.08;
// ... and by this many times what 95 % of the background strays from its smooth estimate.
constexpr double kNoiseFactor = 2.5;
// The noise is measured on at most this many pixels (evenly spaced) and at least 64.
constexpr std::int64_t kMaxNoiseSamples = std::int64_t{1} << 20;
constexpr std::int64_t kMinNoiseSamples = 64;
// A part is not larger than this share of the mask: larger, it is scenery.
constexpr double kMaxPartShare = 0.5;
// A part is a shadow when this share of it is the background darkened evenly.
constexpr double kShadowShare = 0.5;
// Of a part, the pixels that stand out at least this share of its 90th-percentile contrast
// are kept: a glow around an orb fades out below it.
constexpr double kCoreShare = 0.5;

// A piece cut off at the mask's edge has at least this many pixels past the rim of kRim px
// round the mask (where a ring of half-covered pixels lies: the edge's, not a part's) ...
constexpr std::int64_t kRim = 2;
constexpr std::int64_t kLeastPast = 3;
// ... and ends in a step: what lies this many pixels past it stands out less than this share
// of the noise floor on average (the background's noise: about 0.2; a glow fades out above).
constexpr std::int64_t kEdgeStep = 2;
constexpr double kFadeShare = 0.5;

// On noise a part stands out of the background in its mean around each pixel (localBox),
// not pixel by pixel: where that quiets what 95 % of the background strays by this factor or
// more, parts are looked for in the box-blurred picture too. A 5 × 5 box quiets noise drawn
// pixel by pixel about 5-fold (4.2 to 6.4 on the tuning scenes' noise); a photo's texture,
// a horizon or a smooth background far less (0.9 to 3.4, but 4.5 for one photo of grain).
constexpr double kQuietFactor = 4.0;
// Background seen through the figure is like the background around each pixel (localBox):
// its mean no further from the background's estimate than 95 % of the background's are, its
// grain within the range 90 % of the background's lies in (the 5th to 95th percentile),
// widened by this much (colour distance, 0..1) ...
constexpr double kGrainSlack = 0.005;
// ... over at least this share of the mask (a smaller hole, extractSubject fills as a pinhole).
constexpr double kSeenThroughShare = 0.0015;

// `on` ([H,W] bool) with the regions it encloses (off regions that do not reach the picture's
// border) filled: an item's inside is the item's, whether or not it stands out.
torch::Tensor withHoles(const torch::Tensor& on) {
    auto filled = on.to(torch::kUInt8).contiguous();
    const auto h = filled.size(0), w = filled.size(1);
    auto* f = filled.data_ptr<std::uint8_t>();
    const auto holes = labelRegions(h, w, [f](std::int64_t p) { return f[p] == 0; });
    const auto atBorder = touchingBorder(holes, h, w);
    for (std::int64_t p = 0; p < h * w; ++p)
        if (holes.labels[p] && !atBorder[holes.labels[p]]) f[p] = 1;
    return filled.to(torch::kBool);
}

// At most kMaxNoiseSamples of `values` [N], evenly spaced.
torch::Tensor sampled(const torch::Tensor& values) {
    if (values.numel() <= kMaxNoiseSamples) return values;
    return values.slice(0, 0, values.numel(), values.numel() / kMaxNoiseSamples + 1);
}

// The 95th percentile of `residual` [H,W] over the pixels where `where` [H,W] bool is set (at
// most kMaxNoiseSamples of them, evenly spaced); empty under kMinNoiseSamples.
std::optional<double> mostStray(const torch::Tensor& residual, const torch::Tensor& where) {
    const auto measured = sampled(residual.masked_select(where));
    if (measured.numel() < kMinNoiseSamples) return std::nullopt;
    return measured.quantile(0.95).item<double>();
}

// The box around each pixel that noise is averaged over: this share of the picture's long
// side from the centre, at least 2 px.
constexpr double kLocalShare = 1.0 / 200.0;
std::int64_t localBox(std::int64_t h, std::int64_t w) {
    return std::max<std::int64_t>(2, std::llround(kLocalShare * static_cast<double>(std::max(h, w))));
}

// The smooth background (smoothBackground) beside what `near` [H,W] bool covers.
struct BackgroundEstimate {
    torch::Tensor background;  // [3,H,W]
    torch::Tensor residual;    // [H,W] each pixel's colourDistance from it
    torch::Tensor from;        // [H,W] bool, the pixels it was estimated from
    double threshold = 0.0;    // noiseFloor over them: what stands out
};
// Estimated twice: roughly in large cells, then in smoothBackground's own from what does not
// stand out of the rough estimate (a part as wide as a small cell would pull the estimate
// towards its own colour, and not stand out of it). Empty when too little of the picture is
// left to estimate from.
std::optional<BackgroundEstimate> backgroundBeside(const torch::Tensor& rgb, const torch::Tensor& near) {
    std::optional<BackgroundEstimate> estimate;
    auto excluded = near;
    for (const auto cellShare : {kRoughCellShare, kBackgroundCellShare}) {
        auto background = smoothBackground(rgb, excluded, cellShare);
        if (!background.defined()) return std::nullopt;
        auto residual = colourDistance(rgb, background);
        const auto noise = noiseFloor(residual, ~excluded);
        if (!noise) return std::nullopt;
        estimate = BackgroundEstimate{background, residual, ~excluded, *noise};
        excluded = near | (dilate(withHoles(residual > *noise).to(torch::kFloat32), 2) > 0.5);
    }
    return estimate;
}

// `rgb` [3,H,W] seen through the box blur of localBox, and the background estimated in it
// beside what `near` covers.
struct QuietView {
    torch::Tensor view;  // [3,H,W]
    BackgroundEstimate estimate;
};
// Where `estimate` (of `rgb`'s background, beside `near`) has its floor set by noise drawn
// pixel by pixel, the picture through a box blur: the noise sets the floor (above
// kMinContrast) and the blur quiets what 95 % of the background strays kQuietFactor-fold or
// more. Empty on a smooth background, a photo's texture or a busy drawing.
std::optional<QuietView> quietView(const torch::Tensor& rgb, const torch::Tensor& near,
                                   const BackgroundEstimate& estimate) {
    if (estimate.threshold <= kMinContrast) return std::nullopt;
    auto view = boxBlur(rgb, localBox(rgb.size(1), rgb.size(2)));
    auto blurred = backgroundBeside(view, near);
    const auto stray = mostStray(estimate.residual, estimate.from);
    const auto quietStray = blurred ? mostStray(blurred->residual, blurred->from) : std::nullopt;
    if (!stray || !quietStray || *stray < kQuietFactor * *quietStray) return std::nullopt;
    return QuietView{std::move(view), std::move(*blurred)};
}

// How far each pixel of `rgb` [3,H,W] stands out of the background `estimate` (beside what
// `near` covers), in noise floors (1 at the floor), and where it is the background darkened
// evenly (a shadow). On noise (quietView) the blurred picture's contrast counts too, and its
// shadows.
struct Standing {
    torch::Tensor contrast;  // [H,W] float, contiguous
    torch::Tensor shade;     // [H,W] bool
};
Standing standingOut(const torch::Tensor& rgb, const torch::Tensor& near, const BackgroundEstimate& estimate) {
    Standing standing{estimate.residual / estimate.threshold, darkenedEvenly(rgb, estimate.background)};
    if (const auto quiet = quietView(rgb, near, estimate)) {
        standing.contrast = torch::maximum(standing.contrast, quiet->estimate.residual / quiet->estimate.threshold);
        standing.shade = darkenedEvenly(quiet->view, quiet->estimate.background);
    }
    standing.contrast = standing.contrast.contiguous();
    return standing;
}

// Of each of `regions` that `keep` marks, the pixels whose `contrast` (row-major, h × w) is at
// least kCoreShare of the region's 90th percentile: a glow round an orb fades out below it.
// [H,W] bool.
torch::Tensor coresOf(const Regions& regions, const std::vector<char>& keep, const float* contrast, std::int64_t h,
                      std::int64_t w) {
    const auto count = regions.sizes.size();
    std::vector<std::vector<float>> values(count);
    for (std::int64_t p = 0; p < h * w; ++p)
        if (const auto id = regions.labels[p]; id && keep[id]) values[id].push_back(contrast[p]);
    std::vector<float> core(count, 0.0f);
    for (std::size_t id = 1; id < count; ++id)
        if (keep[id]) core[id] = static_cast<float>(kCoreShare) * valueAtShare(values[id], 0.9);
    auto cores = torch::zeros({h, w}, torch::kBool);
    auto* out = cores.data_ptr<bool>();
    for (std::int64_t p = 0; p < h * w; ++p) {
        const auto id = regions.labels[p];
        out[p] = id && keep[id] && contrast[p] >= core[id];
    }
    return cores;
}

// What the remover cut off at the mask's edge (a crescent of hair, a hammer's head in the
// background's hue): pieces of what stands out of the background `estimate` pixel by pixel,
// within `near` (the mask's reach) and beside `mask` [H,W] (1 = subject). A piece is taken
// when it reaches past the rim round the mask (kLeastPast), is no shadow (under half of it
// in `shade` [H,W] bool, the background darkened evenly) and ends in a step (what lies
// kEdgeStep px beyond it stands out less than kFadeShare of a floor on average, where a glow
// fades out); of it, the pixels that stand out at least kCoreShare of most of it. [H,W] bool.
torch::Tensor cutOffAtTheEdge(const torch::Tensor& mask, const torch::Tensor& near, const BackgroundEstimate& estimate,
                              const torch::Tensor& shade) {
    const auto h = mask.size(0), w = mask.size(1), n = h * w;
    const auto contrast = (estimate.residual / estimate.threshold).contiguous();
    const auto candidates = (contrast > 1.0) & near & (mask < 0.5);
    auto on = candidates.to(torch::kUInt8).contiguous();
    const auto* c = on.data_ptr<std::uint8_t>();
    const auto pieces = labelRegions(h, w, [c](std::int64_t p) { return c[p] != 0; });
    const auto count = pieces.sizes.size();
    if (count <= 1) return torch::zeros({h, w}, torch::kBool);

    const auto labels = torch::from_blob(const_cast<std::int32_t*>(pieces.labels.data()), {h, w}, torch::kInt32)
                      .to(torch::kFloat32);
    // Beside: the mask and the pixels round it. Clear: past the rim of kRim px round the mask.
    // Beyond: kEdgeStep px past a piece and not beside the mask, with the piece's label.
    const auto beside = (dilate(mask, 1) > 0.5).to(torch::kUInt8).contiguous();
    const auto clear = (dilate(mask, kRim) < 0.5).to(torch::kUInt8).contiguous();
    const auto beyondMask = (dilate(labels, kEdgeStep) > 0.5) & ~(dilate(labels, kEdgeStep - 1) > 0.5) &
                            ~beside.to(torch::kBool);
    const auto beyond = dilate(labels, kEdgeStep).masked_fill(~beyondMask, 0.0f).to(torch::kInt32).contiguous();
    const auto shaded = shade.to(torch::kUInt8).contiguous();
    const auto* bs = beside.data_ptr<std::uint8_t>();
    const auto* cl = clear.data_ptr<std::uint8_t>();
    const auto* by = beyond.data_ptr<std::int32_t>();
    const auto* sh = shaded.data_ptr<std::uint8_t>();
    const auto* k = contrast.data_ptr<float>();

    std::vector<char> joined(count, 0);
    std::vector<std::int64_t> past(count, 0), shadowed(count, 0), beyondCount(count, 0);
    std::vector<double> beyondSum(count, 0.0);
    for (std::int64_t p = 0; p < n; ++p) {
        if (const auto id = pieces.labels[p]) {
            joined[id] |= bs[p];
            past[id] += cl[p];
            shadowed[id] += sh[p];
        }
        if (const auto id = by[p]) beyondSum[id] += k[p], ++beyondCount[id];
    }
    std::vector<char> take(count, 0);
    for (std::size_t id = 1; id < count; ++id) {
        const bool step = beyondCount[id] == 0 || beyondSum[id] < kFadeShare * static_cast<double>(beyondCount[id]);
        take[id] = joined[id] && past[id] >= kLeastPast && 2 * shadowed[id] < pieces.sizes[id] && step;
    }
    return coresOf(pieces, take, k, h, w);
}

}  // namespace

std::optional<double> noiseFloor(const torch::Tensor& residual, const torch::Tensor& where) {
    const auto strays = mostStray(residual, where);
    if (!strays) return std::nullopt;
    return std::max(kMinContrast, kNoiseFactor * *strays);
}

torch::Tensor smoothBackground(const torch::Tensor& rgbIn, const torch::Tensor& maskIn, double cellShare) {
    const auto rgb = rgbIn.to(torch::kFloat32).contiguous();
    const auto mask = maskIn.to(torch::kUInt8).contiguous();
    const auto h = rgb.size(1), w = rgb.size(2);
    const auto cell = std::max<double>(8.0, cellShare * static_cast<double>(std::max(h, w)));
    const auto gh = std::max<std::int64_t>(1, std::llround(static_cast<double>(h) / cell));
    const auto gw = std::max<std::int64_t>(1, std::llround(static_cast<double>(w) / cell));
    auto coarse = torch::zeros({3, gh, gw});
    auto weight = torch::zeros({gh, gw});
    auto c = coarse.accessor<float, 3>();
    auto wt = weight.accessor<float, 2>();
    const auto* m = mask.data_ptr<std::uint8_t>();
    const float* px = rgb.data_ptr<float>();
    std::vector<float> channel[3];
    for (std::int64_t r = 0; r < gh; ++r) {
        const auto y0 = r * h / gh, y1 = (r + 1) * h / gh;
        for (std::int64_t k = 0; k < gw; ++k) {
            const auto x0 = k * w / gw, x1 = (k + 1) * w / gw;
            for (auto& v : channel) v.clear();
            for (auto y = y0; y < y1; ++y)
                for (auto x = x0; x < x1; ++x)
                    if (!m[y * w + x])
                        for (int ch = 0; ch < 3; ++ch) channel[ch].push_back(px[ch * h * w + y * w + x]);
            if (static_cast<double>(channel[0].size()) < kMeasuredShare * static_cast<double>((y1 - y0) * (x1 - x0)))
                continue;
            for (int ch = 0; ch < 3; ++ch) c[ch][r][k] = median(channel[ch]);
            wt[r][k] = 1.0f;
        }
    }
    if (!weight.any().item<bool>()) return {};
    return resizeTensor(pushPullFill(coarse, weight), h, w).contiguous();
}

torch::Tensor maskReach(const torch::Tensor& soft) {
    const auto reach = std::max<std::int64_t>(3, std::max(soft.size(0), soft.size(1)) / 100);
    return dilate((soft >= 0.5).to(torch::kFloat32), reach) > 0.5;
}

EvenBackground backgroundBehind(const torch::Tensor& rgbIn, const torch::Tensor& soft) {
    torch::NoGradGuard noGrad;
    const auto rgb = rgbIn.to(torch::kFloat32).contiguous();
    const auto estimate = backgroundBeside(rgb, maskReach(soft));
    if (!estimate) return {};
    const auto spread = mostStray(estimate->residual, estimate->from);
    if (!spread) return {};
    return {estimate->background, *spread};
}

torch::Tensor withoutBackgroundSeenThrough(const torch::Tensor& rgbIn, const torch::Tensor& soft) {
    // Pixel by pixel noise is as far from the background's estimate as a part is; in a box
    // around each pixel its mean is not, and its grain is the background's.
    torch::NoGradGuard noGrad;
    const auto rgb = rgbIn.to(torch::kFloat32).contiguous();
    const auto h = rgb.size(1), w = rgb.size(2), n = h * w;
    const auto near = maskReach(soft);
    const auto estimate = backgroundBeside(rgb, near);
    // Only on noise: on a busy drawing a cream horn or a sparkling eye is as near the
    // background's mean colour and grain as the background is to itself.
    if (!estimate || !quietView(rgb, near, *estimate)) return soft;
    const auto radius = localBox(h, w);
    const auto difference = rgb - estimate->background;
    const auto mean = boxBlur(difference, radius);
    const auto offset = (mean.pow(2).sum(0) / 3.0).sqrt();
    const auto grain = ((boxBlur(difference.pow(2), radius) - mean.pow(2)).clamp_min(0).sum(0) / 3.0).sqrt();
    const auto offsetLimit = mostStray(offset, estimate->from);
    if (!offsetLimit) return soft;
    auto grains = sampled(grain.masked_select(estimate->from));
    const auto least = grains.quantile(0.05).item<double>(), most = grains.quantile(0.95).item<double>();
    const auto inside = soft >= 0.5;
    const auto like = inside & (offset <= *offsetLimit) & (grain >= least - kGrainSlack) & (grain <= most + kGrainSlack);

    // The outside: what the mask leaves open and reaches the picture's border.
    auto open = (~inside).to(torch::kUInt8).contiguous();
    const auto* o = open.data_ptr<std::uint8_t>();
    const auto gaps = labelRegions(h, w, [o](std::int64_t p) { return o[p] != 0; });
    const auto gapAtBorder = touchingBorder(gaps, h, w);
    auto candidates = like.to(torch::kUInt8).contiguous();
    const auto* c = candidates.data_ptr<std::uint8_t>();
    const auto regions = labelRegions(h, w, [c](std::int64_t p) { return c[p] != 0; });
    // Enclosed: neither at the picture's border nor beside the outside.
    auto enclosed = touchingBorder(regions, h, w);
    for (auto& e : enclosed) e = !e;
    for (std::int64_t p = 0; p < n; ++p) {
        if (const auto id = regions.labels[p]) {
            forNeighbours(h, w, p, [&](std::int64_t q) {
                if (o[q] && gapAtBorder[gaps.labels[q]]) enclosed[id] = 0;
            });
        }
    }
    const auto fewest = std::max<double>((2 * radius + 1) * (2 * radius + 1),
                                         kSeenThroughShare * inside.sum().item<double>());
    auto through = torch::zeros({h, w}, torch::kBool);
    auto* t = through.data_ptr<bool>();
    bool any = false;
    for (std::int64_t p = 0; p < n; ++p) {
        const auto id = regions.labels[p];
        t[p] = id && enclosed[id] && static_cast<double>(regions.sizes[id]) >= fewest;
        any = any || t[p];
    }
    if (!any) return soft;
    // Each pixel stands for its box, which is background: grown by the box's reach.
    through = (dilate(through.to(torch::kFloat32), radius) > 0.5) & inside;
    return soft.to(torch::kFloat32).masked_fill(through, 0.0f);
}

torch::Tensor addDetachedParts(const torch::Tensor& rgbIn, const torch::Tensor& soft, std::int64_t minArea) {
    torch::NoGradGuard noGrad;
    const auto rgb = rgbIn.to(torch::kFloat32).contiguous();
    const auto h = rgb.size(1), w = rgb.size(2), n = h * w;
    const auto mask = (soft >= 0.5).to(torch::kFloat32);
    const auto maskArea = mask.sum().item<double>();
    if (maskArea == 0) return soft;
    const auto near = maskReach(soft);
    const auto estimate = backgroundBeside(rgb, near);
    if (!estimate) return soft;
    const auto standing = standingOut(rgb, near, *estimate);
    const auto shade = standing.shade.to(torch::kUInt8).contiguous();
    const auto close = (dilate(mask, 2) > 0.5).to(torch::kUInt8).contiguous();
    const auto standsOut = (standing.contrast > 1.0).to(torch::kUInt8).contiguous();
    const auto* s = standsOut.data_ptr<std::uint8_t>();
    const auto* cl = close.data_ptr<std::uint8_t>();
    const auto* sh = shade.data_ptr<std::uint8_t>();
    const auto* res = standing.contrast.data_ptr<float>();
    const auto cutOff = cutOffAtTheEdge(mask, near, *estimate, standing.shade);
    const auto parts = labelRegions(h, w, [&](std::int64_t p) { return s[p] != 0; });
    const auto atBorder = touchingBorder(parts, h, w);
    const auto count = parts.sizes.size();
    std::vector<char> keep(count, 1);
    std::vector<std::int64_t> shaded(count, 0);
    for (std::int64_t p = 0; p < n; ++p) {
        const auto id = parts.labels[p];
        if (!id) continue;
        if (cl[p]) keep[id] = 0;  // touches the mask: its edge, not a part apart
        shaded[id] += sh[p];
    }
    bool any = false;
    for (std::size_t id = 1; id < count; ++id) {
        const auto size = static_cast<double>(parts.sizes[id]);
        keep[id] = keep[id] && !atBorder[id] && parts.sizes[id] >= minArea && size <= kMaxPartShare * maskArea &&
                   static_cast<double>(shaded[id]) < kShadowShare * size;
        any = any || keep[id];
    }
    if (!any) return torch::maximum(soft.to(torch::kFloat32), cutOff.to(torch::kFloat32));
    const auto added = coresOf(parts, keep, res, h, w);
    return torch::maximum(soft.to(torch::kFloat32), withHoles(added | cutOff).to(torch::kFloat32));
}

}  // namespace stageload
