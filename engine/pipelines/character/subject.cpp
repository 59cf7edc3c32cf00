#include "engine/pipelines/character/subject.h"

#include <algorithm>

#include "engine/core/image_tensor.h"
#include "engine/core/order_statistics.h"
#include "engine/core/regions.h"
#include "engine/core/torch_nn.h"
#include "engine/pipelines/character/detached_parts.h"
#include "engine/pipelines/character/edge_snap.h"
#include "engine/pipelines/character/even_background.h"
#include "engine/pipelines/character/outline_closure.h"
#include "engine/pipelines/character/shade.h"

namespace stageload {
namespace {

// The classical cut-out's lower threshold (lightParts): this far from the background's colour
// (0..1), or this where the background around the figure is clean (cleanAround: a part a
// shade off a lossless picture's background is found), plus this many times the border's
// spread.
constexpr double kLowThreshold = 0.04;
constexpr double kCleanLowThreshold = 0.015;
constexpr double kNoiseMargin = 4.0;
// cleanAround's levels (distances from the background's colour, 0..1) and its share.
constexpr double kRingingLevel = 0.02;
constexpr double kExactLevel = 0.004;
constexpr double kRingingShare = 0.2;
// A region only the lower threshold finds is a drawn part when the step at its rim is at least
// this share of its contrast (its 90th percentile).
constexpr double kHardEdge = 0.25;
// What the figure's outline encloses is subject when its median colour is at least this far
// from the background's (0..1), and twice the border's spread: a body a shade off a flat
// background (under the lower threshold) is, an enclosed gap of the background's colour is not.
constexpr double kEnclosedContrast = 0.015;
// An enclosed gap of the background's colour that holds an island of the figure at least this
// share of its size is the figure's (an eye's white around its pupil).
constexpr double kIslandShare = 0.05;
// A ground shadow lies flat: at least this many times as wide as tall.
constexpr double kShadowAspect = 1.5;
// A thin piece of the classical cut-out (thinPieces) is a part, not a speck, when it has at
// least this many times as many pixels as the guided filter's window is wide.
constexpr double kThinLength = 3.0;
// A ground shadow in an artist's alpha: less opaque than this, darker (luma) than this.
constexpr double kShadowAlpha = 0.75;
constexpr double kShadowLuma = 0.25;
// ... and at least this share of it lies over 2 px from the rest of the foreground: a JPEG's
// ringing hugs the figure's edge.
constexpr double kApartShare = 0.3;

// Otsu's threshold of values in 0..1.
double otsu(const torch::Tensor& values) {
    const int bins = 256;
    auto hist = torch::histc(values.flatten().clamp(0, 1), bins, 0, 1).to(torch::kFloat64);
    const auto total = hist.sum().item<double>();
    auto h = hist.accessor<double, 1>();
    double sumAll = 0;
    for (int i = 0; i < bins; ++i) sumAll += i * h[i];
    double best = 0, threshold = 0.5, w0 = 0, sum0 = 0;
    for (int i = 0; i < bins; ++i) {
        w0 += h[i];
        sum0 += i * h[i];
        const double w1 = total - w0;
        if (w0 == 0 || w1 == 0) continue;
        const double m0 = sum0 / w0, m1 = (sumAll - sum0) / w1;
        const double between = w0 * w1 * (m0 - m1) * (m0 - m1);
        if (between > best) {
            best = between;
            threshold = (i + 0.5) / bins;
        }
    }
    return threshold;
}

// What the figure encloses has the background's own colour when its median distance from it
// is under this, for a border of `spread` (EvenBackground::spread).
double enclosedTolerance(double spread) {
    return std::max(kEnclosedContrast, 2.0 * spread);
}

// The 4-connected regions of `on` pixels, and which of them touch the picture's border.
struct PixelRegions : Regions {
    std::vector<char> touchesBorder;  ///< per label
};

PixelRegions regionsOf(const std::uint8_t* on, std::int64_t h, std::int64_t w) {
    PixelRegions r;
    static_cast<Regions&>(r) = labelRegions(h, w, [on](std::int64_t p) { return on[p] != 0; });
    r.touchesBorder = touchingBorder(r, h, w);
    return r;
}

// Per label of `gaps` (the regions of the `open` pixels): whether it holds an island of the
// figure, a region of the other pixels that borders it alone and is at least kIslandShare of
// its size. An eye's white holds its pupil, and on a white background it has the
// background's colour; a gap between the legs or a ring's inside holds nothing.
std::vector<char> holdingIslands(const PixelRegions& gaps, const std::uint8_t* open, std::int64_t h, std::int64_t w) {
    const auto islands = labelRegions(h, w, [open](std::int64_t p) { return !open[p]; });
    const auto atBorder = touchingBorder(islands, h, w);
    // Per island: the one gap it borders, 0 while none is seen, -1 once two are.
    std::vector<std::int32_t> around(islands.sizes.size(), 0);
    for (std::int64_t p = 0; p < h * w; ++p) {
        const auto id = islands.labels[p];
        if (!id || around[id] < 0) continue;
        forNeighbours(h, w, p, [&](std::int64_t q) {
            if (!open[q]) return;
            const auto gap = gaps.labels[q];
            if (around[id] == 0) around[id] = gap;
            else if (around[id] != gap) around[id] = -1;
        });
    }
    std::vector<char> holds(gaps.sizes.size(), 0);
    for (std::size_t id = 1; id < around.size(); ++id) {
        const auto gap = around[id];
        if (gap > 0 && !atBorder[id] && !gaps.touchesBorder[gap] &&
            static_cast<double>(islands.sizes[id]) >= kIslandShare * static_cast<double>(gaps.sizes[gap]))
            holds[gap] = 1;
    }
    return holds;
}

// Keeps, of the shadow-like pixels `sh` (the background darkened evenly), the regions where a
// ground shadow lies: those that touch the picture's border (the background's own shading, or
// a shadow running out of the picture), and those low in the figure or under it (their centre
// in the lowest quarter of the rows the rest of the subject spans, or below) and kShadowAspect
// times as wide as tall (the ground is seen at a grazing angle). A grey part drawn without an
// outline (a helmet, a hammer's head, a robot's arm, a hand held low) darkens a white
// background evenly too, and anywhere else it is subject. `fg`: the
// pixels unlike the background. Without any other subject pixel, only the regions at the
// border are shadows; with `atBorder` false, not even those (an artist's alpha has no
// background of its own to shade).
void keepGroundShadows(std::uint8_t* sh, const std::uint8_t* fg, std::int64_t h, std::int64_t w,
                       bool atBorder = true) {
    std::int64_t top = h, bottom = -1;
    for (std::int64_t i = 0; i < h * w; ++i)
        if (fg[i] && !sh[i]) top = std::min(top, i / w), bottom = std::max(bottom, i / w);
    const auto regions = regionsOf(sh, h, w);
    const auto n = regions.sizes.size();
    std::vector<std::int64_t> y0(n, h), y1(n, -1), x0(n, w), x1(n, -1);
    std::vector<double> rows(n, 0.0);
    for (std::int64_t i = 0; i < h * w; ++i) {
        const auto id = regions.labels[i];
        if (!id) continue;
        const auto y = i / w, x = i % w;
        y0[id] = std::min(y0[id], y), y1[id] = std::max(y1[id], y);
        x0[id] = std::min(x0[id], x), x1[id] = std::max(x1[id], x);
        rows[id] += static_cast<double>(y);
    }
    std::vector<char> ground(n, 0);
    for (std::size_t id = 1; id < n; ++id) {
        const double centre = rows[id] / static_cast<double>(regions.sizes[id]);
        const bool low = bottom >= 0 && centre >= static_cast<double>(top) + 0.75 * static_cast<double>(bottom - top);
        const bool flat = static_cast<double>(x1[id] - x0[id]) >= kShadowAspect * static_cast<double>(y1[id] - y0[id]);
        ground[id] = (atBorder && regions.touchesBorder[id]) || (low && flat);
    }
    for (std::int64_t i = 0; i < h * w; ++i)
        if (sh[i] && !ground[regions.labels[i]]) sh[i] = 0;
}

// Whether the background just outside `foreground` ([H,W] uint8; a ring 2-4 px out) is clean:
// of its pixels near the background's colour (under kRingingLevel), under kRingingShare are
// off it by more than kExactLevel. A lossless picture keeps the background's colour right up
// to the figure's anti-aliased edge; a JPEG's ringing puts most of them there.
bool cleanAround(const torch::Tensor& distance, const torch::Tensor& foreground) {
    const auto found = foreground.to(torch::kFloat32);
    const auto ring = (dilate(found, 4) > 0.5) & (dilate(found, 1) < 0.5);
    const auto nearBackground = ring & (distance < kRingingLevel);
    const auto exact = (nearBackground & (distance < kExactLevel)).sum().item<double>();
    const auto rung = nearBackground.sum().item<double>() - exact;
    return exact > 0 && rung < kRingingShare * (exact + rung);
}

// Otsu's threshold splits the colours far from the background from those near it, and a
// figure has both: a light arm, a pale cape or a grey axe on white falls under it. So the
// foreground is taken at a lower threshold, just above the background's own noise (`spread`),
// and of what only that lower one finds, each region is kept when it ends in a hard edge (the
// step at its rim at least a quarter of its own contrast: a drawn part) and left out when it
// fades out (a glow, an aura, a soft shadow). `distance`: each pixel's distance from the
// background's colour, 0..1. Returns the foreground, [H,W] uint8.
torch::Tensor lightParts(const torch::Tensor& distance, double otsuThreshold, double spread) {
    const auto h = distance.size(0), w = distance.size(1);
    auto foreground = (distance > otsuThreshold).to(torch::kUInt8).contiguous();
    const double base = cleanAround(distance, foreground) ? kCleanLowThreshold : kLowThreshold;
    const double low = std::min(otsuThreshold, base + kNoiseMargin * spread);
    if (low >= otsuThreshold) return foreground;
    const auto* d = distance.data_ptr<float>();
    auto* fg = foreground.data_ptr<std::uint8_t>();
    const auto weak = labelRegions(h, w, [&](std::int64_t p) { return !fg[p] && d[p] > low; });
    // Within 2 px of the rest of the foreground, it may be a JPEG's ringing along its edge.
    const auto hugging = dilate(foreground.to(torch::kFloat32), 2).to(torch::kUInt8).contiguous();
    const auto* near = hugging.data_ptr<std::uint8_t>();
    const auto n = weak.sizes.size();
    std::vector<double> rimStep(n, 0.0);
    std::vector<std::int64_t> rim(n, 0), apart(n, 0);
    std::vector<std::vector<float>> values(n);
    for (std::int64_t p = 0; p < h * w; ++p) {
        const auto id = weak.labels[p];
        if (!id) continue;
        values[id].push_back(d[p]);
        const auto y = p / w, x = p % w;
        apart[id] += !near[p];
        // At the rim: beside a pixel of the background (under the low threshold).
        const bool atRim = (x > 0 && d[p - 1] <= low) || (x + 1 < w && d[p + 1] <= low) ||
                           (y > 0 && d[p - w] <= low) || (y + 1 < h && d[p + w] <= low);
        if (!atRim) continue;
        const auto at = [&](std::int64_t yy, std::int64_t xx) {
            return d[std::clamp<std::int64_t>(yy, 0, h - 1) * w + std::clamp<std::int64_t>(xx, 0, w - 1)];
        };
        const double gx = (at(y, x + 1) - at(y, x - 1)) / 2.0, gy = (at(y + 1, x) - at(y - 1, x)) / 2.0;
        rimStep[id] += std::hypot(gx, gy);
        ++rim[id];
    }
    std::vector<char> keep(n, 0);
    for (std::size_t id = 1; id < n; ++id) {
        auto& v = values[id];
        keep[id] = static_cast<double>(apart[id]) >= kApartShare * static_cast<double>(weak.sizes[id]) &&
                   rim[id] > 0 && rimStep[id] / static_cast<double>(rim[id]) >= kHardEdge * valueAtShare(v, 0.9);
    }
    for (std::int64_t p = 0; p < h * w; ++p)
        if (keep[weak.labels[p]]) fg[p] = 1;
    return foreground;
}

// The ground shadow among `candidates` ([H,W] bool: pixels that look like one) beside the
// figure `present` ([H,W] bool): the patches wider than a stroke (an opening; a translucent
// part's dark outline is a stroke), 1 % of the figure or more (not the half-covered pixels
// along a dark part's edge), that lie low and flat under the rest (keepGroundShadows), with
// the rim the opening took off them. [H,W] bool.
torch::Tensor groundShadow(const torch::Tensor& candidates, const torch::Tensor& present) {
    const auto h = candidates.size(0), w = candidates.size(1);
    const auto stroke = std::max<std::int64_t>(1, std::max(h, w) / 250);
    const auto candidate = candidates.to(torch::kFloat32);
    auto shade = (dilate(erode(candidate, stroke), stroke) > 0.5).to(torch::kUInt8).contiguous();
    if (!shade.any().item<bool>()) return torch::zeros({h, w}, torch::kBool);
    const auto figure = present.to(torch::kUInt8).contiguous();
    auto* sh = shade.data_ptr<std::uint8_t>();
    keepGroundShadows(sh, figure.data_ptr<std::uint8_t>(), h, w, false);
    const auto patches = regionsOf(sh, h, w);
    const double least = 0.01 * figure.sum().item<double>();
    for (std::int64_t p = 0; p < h * w; ++p)
        if (sh[p] && static_cast<double>(patches.sizes[patches.labels[p]]) < least) sh[p] = 0;
    return (dilate(shade.to(torch::kFloat32), stroke + 1) > 0.5) & (candidate > 0.5);
}

// An artist's alpha may carry the ground shadow: half-transparent (alpha between 0.1 and
// kShadowAlpha) and dark (luma under kShadowLuma) under the feet. It becomes transparent; a
// translucent cape or wing is coloured, or not under the figure.
torch::Tensor withoutAlphaShadows(const torch::Tensor& rgb, const torch::Tensor& alphaIn) {
    const auto alpha = alphaIn.to(torch::kFloat32);
    const auto luma = rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114;
    const auto dark = (alpha > 0.1) & (alpha < kShadowAlpha) & (luma < kShadowLuma);
    return alpha.masked_fill(groundShadow(dark, alpha >= 0.5), 0.0f);
}

// A learned remover takes a hard ground shadow for part of the figure: within its mask, where
// the smooth background (smoothBackground, from outside the mask) is darkened evenly.
torch::Tensor withoutGroundShadows(const torch::Tensor& rgb, const torch::Tensor& soft) {
    const auto mask = (soft >= 0.5).to(torch::kFloat32);
    const auto background = smoothBackground(rgb, maskReach(soft));
    if (!background.defined()) return soft;
    const auto even = darkenedEvenly(rgb, background) & (mask > 0.5);
    return soft.to(torch::kFloat32).masked_fill(groundShadow(even, mask > 0.5), 0.0f);
}

}  // namespace

bool plainBackground(const torch::Tensor& rgb) {
    const auto background = evenBackground(rgb);
    return background.even() && background.flat();
}

bool alphaIsMeaningful(const torch::Tensor& alpha) {
    const auto n = static_cast<double>(alpha.numel());
    const auto clear = (alpha < 0.1).sum().item<double>() / n;
    const auto solid = (alpha > 0.9).sum().item<double>() / n;
    return clear > 0.01 && solid > 0.005;
}

torch::Tensor classicalMask(const torch::Tensor& rgb) {
    return classicalMask(rgb, evenBackground(rgb));
}

namespace {

// The classical cut-out ([H,W] float, 0/1), with what it measured on the way: each pixel's
// distance from the background's colour, and where the background is darkened evenly.
struct ClassicalCut {
    torch::Tensor mask, distance, evenly;
};

ClassicalCut classicalCut(const torch::Tensor& rgb, const EvenBackground& even) {
    const auto h = rgb.size(1), w = rgb.size(2);
    const auto& [background, spread] = even;
    auto distance = colourDistance(rgb, background);
    auto foreground = lightParts(distance, std::max(0.06, otsu(distance)), spread);

    // A ground or contact shadow only darkens the background, every channel by about the same
    // factor, over a wide area. Such pixels are background where they join it (the subject's
    // outline, far darker or of another hue, keeps them out of the subject's inside). "Wide":
    // an outline a pixel or two across, partly covering the background or a grey part,
    // darkens evenly too and would let the background in; widerThanAStroke (an opening)
    // leaves it out and keeps every shadow, soft or hard-edged.
    const auto evenly = darkenedEvenly(rgb, background);
    const auto shadow = widerThanAStroke(evenly).to(torch::kUInt8).contiguous();

    // Light parts of the subject (a face, a white breastplate, a blade) are close to a light
    // background and fall under the threshold, but the subject's outline encloses them. What
    // the outline encloses is subject unless it has the background's own colour (a gap
    // between an arm and the body; "own colour" allows for the border's noise or gradient)
    // and holds no island of the figure (an eye's white on a white background holds its pupil).
    const double tolerance = enclosedTolerance(spread);
    std::vector<std::uint8_t> open(std::size_t(h * w));  // background, or a shadow on it
    auto* fg = foreground.data_ptr<std::uint8_t>();
    auto* sh = shadow.data_ptr<std::uint8_t>();
    keepGroundShadows(sh, fg, h, w);
    for (std::int64_t i = 0; i < h * w; ++i) open[i] = !fg[i] || sh[i];
    const auto gaps = regionsOf(open.data(), h, w);
    // Each enclosed region's median distance: the half-covered pixels along its rim (and a
    // JPEG's ringing there) do not raise it.
    std::vector<std::vector<float>> values(gaps.sizes.size());
    const auto* d = distance.data_ptr<float>();
    for (std::int64_t i = 0; i < h * w; ++i)
        if (const auto id = gaps.labels[i]; id && !gaps.touchesBorder[id]) values[id].push_back(d[i]);
    auto enclosedSubject = holdingIslands(gaps, open.data(), h, w);
    for (std::size_t id = 1; id < values.size(); ++id) {
        if (!values[id].empty() && median(values[id]) > tolerance) enclosedSubject[id] = 1;
    }
    for (std::int64_t i = 0; i < h * w; ++i)
        if (const auto id = gaps.labels[i]) fg[i] = enclosedSubject[id];  // else neither: subject
    return {foreground.to(torch::kFloat32), distance, evenly};
}

}  // namespace

torch::Tensor classicalMask(const torch::Tensor& rgb, const EvenBackground& even) {
    return classicalCut(rgb, even).mask;
}

namespace {

// The guided filter's window reaches this far from each pixel.
std::int64_t refineRadius(const torch::Tensor& rgb) {
    return std::max<std::int64_t>(2, std::max(rgb.size(1), rgb.size(2)) / 300);
}

}  // namespace

torch::Tensor refineMask(const torch::Tensor& rgb, const torch::Tensor& mask) {
    const auto radius = refineRadius(rgb);
    const double eps = 1e-3;
    auto guide = (rgb[0] * 0.299 + rgb[1] * 0.587 + rgb[2] * 0.114);
    auto meanI = boxBlur(guide, radius), meanP = boxBlur(mask, radius);
    auto corrIp = boxBlur(guide * mask, radius), corrII = boxBlur(guide * guide, radius);
    auto a = (corrIp - meanI * meanP) / (corrII - meanI * meanI + eps);
    auto b = meanP - a * meanI;
    return (boxBlur(a, radius) * guide + boxBlur(b, radius)).clamp(0, 1);
}

SubjectParts subjectParts(const torch::Tensor& binary, double minShare, double holeFraction) {
    const auto h = binary.size(0), w = binary.size(1);
    auto on = binary.to(torch::kUInt8).contiguous();
    const auto* in = on.data_ptr<std::uint8_t>();
    SubjectParts parts;
    parts.mask = torch::zeros({h, w}, torch::kUInt8);
    const auto total = on.sum().item<std::int64_t>();
    if (total == 0) return parts;
    // A part's size counts what it encloses: a chain's ring drawn as an outline is as large
    // as its disc (a ring inside a ring is one part with it).
    std::vector<std::uint8_t> filled(std::size_t(h * w));
    for (std::int64_t i = 0; i < h * w; ++i) filled[i] = !in[i];
    const auto enclosed = regionsOf(filled.data(), h, w);
    for (std::int64_t i = 0; i < h * w; ++i)
        filled[i] = in[i] || (enclosed.labels[i] && !enclosed.touchesBorder[enclosed.labels[i]]);
    const auto regions = regionsOf(filled.data(), h, w);
    const auto& labels = regions.labels;
    const auto& sizes = regions.sizes;
    // The largest part is always kept, whatever the share asks.
    const auto largest = *std::max_element(sizes.begin() + 1, sizes.end());
    const double limit = std::min(minShare * static_cast<double>(total), static_cast<double>(largest));
    std::vector<char> keep(sizes.size(), 0);
    for (std::size_t id = 1; id < sizes.size(); ++id) {
        keep[id] = static_cast<double>(sizes[id]) >= limit;
        keep[id] ? ++parts.kept : ++parts.dropped;
    }
    auto* o = parts.mask.data_ptr<std::uint8_t>();
    std::int64_t keptArea = 0;
    for (std::int64_t i = 0; i < h * w; ++i) {
        o[i] = in[i] && keep[labels[i]];
        keptArea += o[i];
    }
    // Holes: background regions that do not touch the picture's border.
    std::vector<std::uint8_t> off(std::size_t(h * w));
    for (std::int64_t i = 0; i < h * w; ++i) off[i] = !o[i];
    const auto holes = regionsOf(off.data(), h, w);
    const double holeLimit = holeFraction * static_cast<double>(keptArea);
    for (std::int64_t i = 0; i < h * w; ++i) {
        const auto id = holes.labels[i];
        if (id && !holes.touchesBorder[id] && static_cast<double>(holes.sizes[id]) < holeLimit) o[i] = 1;
    }
    return parts;
}

std::vector<std::string> edgesTouched(const torch::Tensor& region) {
    const auto on = region.to(torch::kBool);
    const auto h = on.size(0), w = on.size(1);
    std::vector<std::string> edges;
    if (on[0].any().item<bool>()) edges.emplace_back("top");
    if (on[h - 1].any().item<bool>()) edges.emplace_back("bottom");
    if (on.select(1, 0).any().item<bool>()) edges.emplace_back("left");
    if (on.select(1, w - 1).any().item<bool>()) edges.emplace_back("right");
    return edges;
}

namespace {

// The pieces of the classical cut-out `binary` ([H,W], 0/1) thinner than the guided filter's
// window (an opening of that radius takes them off): a spear's shaft, a stalk, a stroke. The
// filter averages such a piece with the background around it, and where its contrast is low
// it falls under ½ and is lost (a brown shaft 2 px wide on a mauve background). Left out: the
// pieces of fewer pixels than kThinLength windows' widths (a JPEG's specks), and those on or
// beside a shadow (an even darkening of the background wider than a stroke: its anti-aliased
// rim). [H,W] bool.
// `evenly`: where the background is darkened evenly ([H,W] bool).
torch::Tensor thinPieces(const torch::Tensor& binary, const torch::Tensor& evenly, std::int64_t radius) {
    const auto h = binary.size(0), w = binary.size(1);
    auto thin = ((binary > 0.5) & (dilate(erode(binary, radius), radius) < 0.5) & ~nearShadow(evenly, radius + 1) & ~evenly)
                    .to(torch::kUInt8)
                    .contiguous();
    auto* t = thin.data_ptr<std::uint8_t>();
    const auto pieces = labelRegions(h, w, [t](std::int64_t p) { return t[p] != 0; });
    const double least = kThinLength * static_cast<double>(2 * radius + 1);
    for (std::int64_t p = 0; p < h * w; ++p)
        if (t[p] && static_cast<double>(pieces.sizes[pieces.labels[p]]) < least) t[p] = 0;
    return thin.to(torch::kBool);
}

// The classical cut-out as a soft mask, its edge refined at full resolution. Its thin pieces
// (thinPieces) take their coverage from their colour instead: each pixel's distance from the
// background against the piece's own (the farthest within the filter's window).
torch::Tensor classicalSoftMask(const torch::Tensor& rgb, const EvenBackground& background) {
    const auto cut = classicalCut(rgb, background);
    const auto& binary = cut.mask;
    const auto& distance = cut.distance;
    const auto soft = refineMask(rgb, gaussianBlur(binary, 1.0));
    const auto radius = refineRadius(rgb);
    const auto thin = thinPieces(binary, cut.evenly, radius);
    if (!thin.any().item<bool>()) return soft;
    namespace F = torch::nn::functional;
    const auto own = F::max_pool2d((distance * binary).unsqueeze(0).unsqueeze(0),
                                   F::MaxPool2dFuncOptions(2 * radius + 1).stride(1).padding(radius))
                         .squeeze(0)
                         .squeeze(0);
    const auto coverage = (distance / own.clamp_min(1e-6f)).clamp(0, 1);
    return torch::where(thin, torch::max(soft, coverage), soft);
}

// A learned remover's soft mask completed by the classical cut-out's on an even `background`:
// their union, less what only the learned remover takes in the background's own colour
// (each such region's median distance from it under enclosedTolerance: the gap between the
// legs or a ring's inside, which a learned remover tends to fill). What only it takes in
// another colour stays: a light part inside a glow, which the classical cut-out leaves out.
torch::Tensor completedByClassical(const torch::Tensor& rgb, const torch::Tensor& learnedSoft,
                                   const EvenBackground& background) {
    const auto classical = classicalSoftMask(rgb, background);
    auto onlyLearned = ((learnedSoft >= 0.5) & (classical < 0.5)).to(torch::kUInt8).contiguous();
    const auto h = onlyLearned.size(0), w = onlyLearned.size(1);
    auto* o = onlyLearned.data_ptr<std::uint8_t>();
    const auto regions = regionsOf(o, h, w);
    const auto distance = colourDistance(rgb, background.colour);
    const auto* d = distance.data_ptr<float>();
    std::vector<std::vector<float>> values(regions.sizes.size());
    for (std::int64_t i = 0; i < h * w; ++i)
        if (regions.labels[i]) values[regions.labels[i]].push_back(d[i]);
    const auto tolerance = enclosedTolerance(background.spread);
    std::vector<char> backgroundColour(values.size(), 0);
    for (std::size_t id = 1; id < values.size(); ++id) backgroundColour[id] = median(values[id]) <= tolerance;
    for (std::int64_t i = 0; i < h * w; ++i) o[i] = backgroundColour[regions.labels[i]];
    return torch::where(onlyLearned.to(torch::kBool), classical, torch::max(learnedSoft, classical));
}

}  // namespace

Subject extractSubject(const torch::Tensor& rgba, bool useAlpha, const MaskPredictor& learned,
                       MaskSource learnedSource, double minPartShare, const std::string& name) {
    torch::NoGradGuard noGrad;
    const auto h = rgba.size(1), w = rgba.size(2);
    auto rgb = rgba.slice(0, 0, 3);
    Subject s;
    torch::Tensor soft;
    if (useAlpha) {
        soft = withoutAlphaShadows(rgb, rgba[3]);
        s.source = MaskSource::Alpha;
    } else if (learned) {
        soft = snapToColourEdge(rgb, closeByOutline(rgb, withoutGroundShadows(rgb, refineMask(rgb, learned(rgb)))));
        // On an even background (a gradient, under `auto`) the classical cut-out finds what the
        // learned remover misses: a part close to the background's colour where it lies, a
        // hat, a head, a body cut by the frame. So it does on one as smooth behind the
        // learned mask (blurred blobs of colour), measured against the background beside it.
        // Elsewhere, on noise, the background it took inside the figure (a ring's inside) is
        // taken out. The classical cut-out's edges are those of a mask refined by a guided
        // filter, which shrinks a bead or a hand a few pixels across: the union's edge is
        // judged by its colours again.
        auto background = evenBackground(rgb);
        if (!background.even()) background = backgroundBehind(rgb, soft);
        if (background.even()) soft = snapToColourEdge(rgb, completedByClassical(rgb, soft, background));
        else soft = withoutBackgroundSeenThrough(rgb, soft);
        const auto minArea = static_cast<std::int64_t>(minPartShare * (soft >= 0.5).sum().item<double>());
        soft = addDetachedParts(rgb, soft, std::max<std::int64_t>(16, minArea));
        s.source = learnedSource;
    } else {
        // Its edge judged by its colours, as above.
        soft = snapToColourEdge(rgb, classicalSoftMask(rgb, evenBackground(rgb)));
        s.source = MaskSource::Classical;
    }
    // The artist's alpha is taken as it is; a computed mask's pinholes (a highlight of the
    // background's colour, a speck the remover missed) are filled, while a gap as large as
    // one between an arm and the body stays open.
    const double pinholes = s.source == MaskSource::Alpha ? 0.0 : 0.0015;
    auto parts = subjectParts(soft >= 0.5, minPartShare, pinholes);
    auto region = parts.mask;
    s.parts = parts.kept;
    s.droppedParts = parts.dropped;
    const auto area = region.sum().item<std::int64_t>();
    if (area < std::max<std::int64_t>(256, h * w / 1000))
        throw NoSubjectError(name + ": no subject found (" + std::string(maskSourceName(s.source)) +
                             " mask is empty); use a picture with one character on a plain "
                             "background, or with a transparent background");
    if (area > h * w * 98 / 100 && s.source != MaskSource::Alpha)
        throw NoSubjectError(name + ": no subject found (the whole picture looks like "
                             "foreground); use a picture with one character on a plain "
                             "background, or with a transparent background");

    // Bounding box with a margin; the crop may extend past the picture (padded).
    auto rows = region.any(1).nonzero().flatten(), cols = region.any(0).nonzero().flatten();
    const auto y0 = rows.min().item<std::int64_t>(), y1 = rows.max().item<std::int64_t>() + 1;
    const auto x0 = cols.min().item<std::int64_t>(), x1 = cols.max().item<std::int64_t>() + 1;
    const auto margin = std::max<std::int64_t>(4, std::max(y1 - y0, x1 - x0) * 3 / 100);
    const auto cy0 = y0 - margin, cy1 = y1 + margin, cx0 = x0 - margin, cx1 = x1 + margin;
    namespace F = torch::nn::functional;
    const std::vector<std::int64_t> pad{std::max<std::int64_t>(0, -cx0), std::max<std::int64_t>(0, cx1 - w),
                                        std::max<std::int64_t>(0, -cy0), std::max<std::int64_t>(0, cy1 - h)};
    auto keep = F::max_pool2d(region.to(torch::kFloat32).unsqueeze(0).unsqueeze(0),
                              F::MaxPool2dFuncOptions(5).stride(1).padding(2))
                    .squeeze(0).squeeze(0);
    auto alpha = (soft * keep).clamp(0, 1);
    auto paddedRgb = F::pad(rgb.unsqueeze(0), F::PadFuncOptions(pad).mode(torch::kReplicate)).squeeze(0);
    auto paddedAlpha = F::pad(alpha.unsqueeze(0), F::PadFuncOptions(pad)).squeeze(0);
    const auto oy = cy0 + pad[2], ox = cx0 + pad[0];
    s.rgb = paddedRgb.slice(1, oy, oy + (cy1 - cy0)).slice(2, ox, ox + (cx1 - cx0)).contiguous();
    s.alpha = paddedAlpha.slice(0, oy, oy + (cy1 - cy0)).slice(1, ox, ox + (cx1 - cx0)).contiguous();
    s.cropX = cx0, s.cropY = cy0;
    s.region = region;
    s.cutAt = edgesTouched(region);
    return s;
}

}  // namespace stageload
