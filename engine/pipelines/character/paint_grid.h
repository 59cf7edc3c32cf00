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
// smooth shading stays in its region, an outline or an eye's edge separates.
inline constexpr float kStep = 0.08f;

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

/// Whether two pixels of an interleaved RGB picture (float, h×w×3) are one colour (kStep).
struct SameColour {
    const float* rgb;
    bool operator()(std::int64_t p, std::int64_t q) const {
        return std::abs(rgb[3 * p] - rgb[3 * q]) < kStep && std::abs(rgb[3 * p + 1] - rgb[3 * q + 1]) < kStep &&
               std::abs(rgb[3 * p + 2] - rgb[3 * q + 2]) < kStep;
    }
};

}  // namespace stageload::paint
