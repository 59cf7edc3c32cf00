#pragma once
// What the back's painter and its soft-feature finder share (internal to the character
// pipeline): the working grid, masks on it as byte vectors and as tensors, and when two
// neighbouring pixels are one colour.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <vector>

#include "engine/core/torch_core.h"

namespace stageload::paint {

// Two neighbours belong to one colour region when every channel differs by less than this:
// smooth shading stays in its region, an outline or an eye's edge separates...
inline constexpr float kStep = 0.08f;
// ... and, across them, the pixels one and two further out on each side differ by less than
// this: a step spread over a few pixels (JPEG's halved chroma, a picture scaled up) is an edge
// too, where a chain of small steps would join an eye's white to the face or a belt to its
// tunic.
inline constexpr float kSpan = 2 * kStep;
inline constexpr std::int64_t kSpanReach = 2;

struct Grid {
    std::int64_t h, w;
    std::int64_t size() const { return h * w; }
};

inline torch::Tensor toTensor(const std::vector<char>& mask, const Grid& g) {
    auto t = torch::empty({g.h, g.w}, torch::kBool);
    std::copy(mask.begin(), mask.end(), t.data_ptr<bool>());
    return t;
}

inline std::vector<char> toMask(const torch::Tensor& t) {
    const auto c = t.to(torch::kCPU, torch::kBool).contiguous();
    return {c.data_ptr<bool>(), c.data_ptr<bool>() + c.numel()};
}

/// Whether two neighbouring pixels of an interleaved RGB picture (float, h×w×3, on grid `g`) are
/// one colour: within `step` of each other, and each pair of pixels on either side of them across
/// the pair, up to kSpanReach out, within `span` (where the grid has them).
struct SameColour {
    const float* rgb;
    Grid g;
    float step = kStep;
    float span = kSpan;
    bool close(std::int64_t p, std::int64_t q, float limit) const {
        return std::abs(rgb[3 * p] - rgb[3 * q]) < limit && std::abs(rgb[3 * p + 1] - rgb[3 * q + 1]) < limit &&
               std::abs(rgb[3 * p + 2] - rgb[3 * q + 2]) < limit;
    }
    bool operator()(std::int64_t p, std::int64_t q) const {
        if (!close(p, q, step)) return false;
        const auto across = q - p;  // ±1 along a row, ±w across rows
        for (std::int64_t out = 1; out <= kSpanReach; ++out) {
            const auto a = p - out * across, b = q + out * across;
            if (a < 0 || b < 0 || a >= g.size() || b >= g.size()) return true;
            if ((across == 1 || across == -1) && (a / g.w != p / g.w || b / g.w != q / g.w)) return true;
            if (!close(a, b, span)) return false;
        }
        return true;
    }
};

}  // namespace stageload::paint
