#include "engine/pipelines/character/edge_snap.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/image_tensor.h"
#include "engine/pipelines/character/detached_parts.h"
#include "engine/pipelines/character/shade.h"

namespace stageload {
namespace {

// How far the edge may move: this share of the picture's long side, at least 2 px.
constexpr double kReachShare = 1.0 / 150.0;
constexpr std::int64_t kLeastReach = 2;
// A pixel's coverage is measured against the figure within this many pixels of it.
constexpr std::int64_t kContrastReach = 3;
// A pixel's colour is no mix of the figure's and the background's when what the mix leaves
// unexplained is over this share of its distance from the background (squared), and over the
// background's noise.
constexpr float kUnexplained = 0.25f;
// The background's noise is measured in a ring this wide beyond the band.
constexpr std::int64_t kNoiseRing = 8;
// A colour stored in 8 bits is off by up to half a step in each channel: the coverage of a
// pixel the figure covers exactly half of (an edge on a pixel's middle) comes out as much as
// this over |F − B| under ½, and such a pixel is the figure's.
constexpr float kQuantum = 0.5f / 255.0f * 1.7320508f;

}  // namespace

torch::Tensor snapToColourEdge(const torch::Tensor& rgbIn, const torch::Tensor& soft) {
    torch::NoGradGuard noGrad;
    const auto rgb = rgbIn.to(torch::kFloat32).contiguous();
    const auto h = rgb.size(1), w = rgb.size(2);
    auto mask = (soft >= 0.5).to(torch::kUInt8).contiguous();
    if (!mask.any().item<bool>()) return soft;
    const auto reach = std::max<std::int64_t>(
        kLeastReach, std::llround(kReachShare * static_cast<double>(std::max(h, w))));
    const auto figure = mask.to(torch::kFloat32);
    const auto beyond = dilate(figure, reach + kContrastReach) > 0.5;
    const auto background = smoothBackground(rgb, beyond);
    if (!background.defined()) return soft;
    const auto distance = colourDistance(rgb, background);
    // The figure's contrast must stand clear of the background's noise just beyond the band.
    const auto noise = noiseFloor(distance, (dilate(figure, reach + kContrastReach + kNoiseRing) > 0.5) & ~beyond);
    if (!noise) return soft;
    const auto floor = static_cast<float>(*noise);

    // Outside the figure, the background darkened evenly over a patch wider than a stroke is
    // a shadow, which the edge does not grow into. A grey part's anti-aliased rim on a light
    // background darkens it evenly too, in a ring a pixel or two wide, and is judged.
    const auto shadow =
        widerThanAStroke(darkenedEvenly(rgb, background) & (mask == 0)).to(torch::kUInt8).contiguous();
    const auto outer = (dilate(figure, reach) > 0.5).to(torch::kUInt8).contiguous();
    const auto inner = (erode(figure, reach) > 0.5).to(torch::kUInt8).contiguous();
    const auto* sh = shadow.data_ptr<std::uint8_t>();
    const auto* out = outer.data_ptr<std::uint8_t>();
    const auto* in = inner.data_ptr<std::uint8_t>();
    const auto* d = distance.data_ptr<float>();
    auto* m = mask.data_ptr<std::uint8_t>();
    auto snapped = soft.to(torch::kFloat32).clone().contiguous();
    auto* s = snapped.data_ptr<float>();
    const float* px = rgb.data_ptr<float>();
    const float* bg = background.data_ptr<float>();
    const auto n = h * w;
    // The figure's coverage of pixel p: its colour taken as a mix of the background's behind it
    // and a colour of the figure within kContrastReach (the one whose mix explains it best),
    // or -1 when no such colour stands clear of the background's noise. With it, how far
    // under ½ the coverage of a pixel covered half may come out (kQuantum).
    struct Coverage {
        float a, tie;
    };
    const auto coverage = [&](std::int64_t p, const std::uint8_t* interior) -> Coverage {
        const auto y = p / w, x = p % w;
        float cb[3];
        for (int ch = 0; ch < 3; ++ch) cb[ch] = px[ch * n + p] - bg[ch * n + p];
        float best = -1.0f, bestMiss = 0.0f, bestLength = 1.0f;
        for (auto yy = std::max<std::int64_t>(0, y - kContrastReach); yy <= std::min(h - 1, y + kContrastReach); ++yy)
            for (auto xx = std::max<std::int64_t>(0, x - kContrastReach); xx <= std::min(w - 1, x + kContrastReach); ++xx) {
                const auto q = yy * w + xx;
                if (!interior[q] || d[q] < floor) continue;
                float fb[3], dot = 0.0f, len = 0.0f;
                for (int ch = 0; ch < 3; ++ch) {
                    fb[ch] = px[ch * n + q] - bg[ch * n + p];
                    dot += cb[ch] * fb[ch];
                    len += fb[ch] * fb[ch];
                }
                const float a = std::clamp(dot / len, 0.0f, 1.0f);
                float miss = 0.0f;
                for (int ch = 0; ch < 3; ++ch) miss += (cb[ch] - a * fb[ch]) * (cb[ch] - a * fb[ch]);
                if (best < 0.0f || miss < bestMiss) best = a, bestMiss = miss, bestLength = len;
            }
        // A colour no such mix explains (a thin part of a colour of its own) is left alone.
        const float unexplained = std::max(floor * floor, kUnexplained * d[p] * d[p]);
        if (best < 0.0f || bestMiss / 3.0f > unexplained) return {-1.0f, 0.0f};
        return {best, kQuantum / std::sqrt(bestLength)};
    };
    const float kBelowHalf = std::nextafter(0.5f, 0.0f);
    std::vector<std::int64_t> flips;
    // A step at a time from the edge: a pixel a few steps off is judged once the pixels
    // between it and the figure have been.
    for (std::int64_t step = 0; step < reach; ++step) {
        const auto interior = (erode(mask.to(torch::kFloat32), 1) > 0.5).to(torch::kUInt8).contiguous();
        const auto* inside = interior.data_ptr<std::uint8_t>();
        flips.clear();
        for (std::int64_t y = 0; y < h; ++y)
            for (std::int64_t x = 0; x < w; ++x) {
                const auto p = y * w + x;
                const bool on = m[p] != 0;
                const bool edge = (x > 0 && m[p - 1] != on) || (x + 1 < w && m[p + 1] != on) ||
                                  (y > 0 && m[p - w] != on) || (y + 1 < h && m[p + w] != on);
                if (!edge || (on ? in[p] : !out[p] || sh[p])) continue;
                const auto [a, tie] = coverage(p, inside);
                if (a < 0.0f || (a >= 0.5f - tie) == on) continue;
                flips.push_back(p);
                s[p] = on ? std::min(a, kBelowHalf) : std::max(a, 0.5f);
            }
        if (flips.empty()) break;
        for (const auto p : flips) m[p] = !m[p];
    }
    return snapped;
}

}  // namespace stageload
