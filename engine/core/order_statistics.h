#pragma once
// Order statistics of a sample, found in place by partial sorting (std::nth_element): the
// median and the value a share of the way up, as the cut-out measures contrast and noise.
//
//   const float p90 = stageload::valueAtShare(distances, 0.9);
//
// Header-only, no Torch. Both reorder `v`, which must not be empty.

#include <algorithm>
#include <cstddef>
#include <vector>

namespace stageload {

/// The value at index ⌊share · (n − 1)⌋ of `v` sorted ascending (share in 0..1).
inline float valueAtShare(std::vector<float>& v, double share) {
    const auto at = static_cast<std::ptrdiff_t>(share * static_cast<double>(v.size() - 1));
    std::nth_element(v.begin(), v.begin() + at, v.end());
    return v[static_cast<std::size_t>(at)];
}

/// The upper median: the value at index n / 2 of `v` sorted ascending.
inline float median(std::vector<float>& v) {
    const auto at = static_cast<std::ptrdiff_t>(v.size() / 2);
    std::nth_element(v.begin(), v.begin() + at, v.end());
    return v[static_cast<std::size_t>(at)];
}

}  // namespace stageload
