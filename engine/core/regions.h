#pragma once
// Connected regions of a grid (pixels, mesher cells), found by one flood fill for every user:
// the cut-out's parts and holes, the mesher's cell regions, the back texture's colour regions.
//
//   const auto r = stageload::labelRegions(h, w, [&](auto p) { return on[p] != 0; });
//   for (std::size_t id = 1; id < r.sizes.size(); ++id) use(r.sizes[id]);
//
// Header-only, no Torch. Pure and thread-safe.

#include <cstdint>
#include <vector>

namespace stageload {

/// Calls `visit(q)` for each of the up to 4 neighbours q of cell `p` on an `h`×`w` grid.
template <class Visit>
void forNeighbours(std::int64_t h, std::int64_t w, std::int64_t p, Visit visit) {
    const auto y = p / w, x = p % w;
    if (x > 0) visit(p - 1);
    if (x + 1 < w) visit(p + 1);
    if (y > 0) visit(p - w);
    if (y + 1 < h) visit(p + w);
}

struct Regions {
    std::vector<std::int32_t> labels;  ///< per cell, row-major: 0 outside every region, else 1..
    std::vector<std::int64_t> sizes;   ///< cells per label; sizes[0] counts nothing
};

/// The 4-connected regions of the `h`×`w` cells for which `member(index)` holds; two neighbouring
/// members belong to one region when `joined(index, neighbour)` (by default: always).
template <class Member, class Joined>
Regions labelRegions(std::int64_t h, std::int64_t w, Member member, Joined joined) {
    Regions r;
    r.labels.assign(std::size_t(h * w), 0);
    r.sizes.assign(1, 0);
    std::vector<std::int64_t> stack;
    for (std::int64_t start = 0; start < h * w; ++start) {
        if (r.labels[start] || !member(start)) continue;
        const auto id = static_cast<std::int32_t>(r.sizes.size());
        r.sizes.push_back(0);
        r.labels[start] = id;
        stack.push_back(start);
        while (!stack.empty()) {
            const auto p = stack.back();
            stack.pop_back();
            ++r.sizes[id];
            forNeighbours(h, w, p, [&](std::int64_t q) {
                if (!r.labels[q] && member(q) && joined(p, q)) r.labels[q] = id, stack.push_back(q);
            });
        }
    }
    return r;
}

template <class Member>
Regions labelRegions(std::int64_t h, std::int64_t w, Member member) {
    return labelRegions(h, w, member, [](std::int64_t, std::int64_t) { return true; });
}

/// Per label of `r` (on an `h`×`w` grid): whether the region has a cell on the grid's border.
inline std::vector<char> touchingBorder(const Regions& r, std::int64_t h, std::int64_t w) {
    std::vector<char> touches(r.sizes.size(), 0);
    for (std::int64_t x = 0; x < w; ++x) touches[r.labels[x]] = touches[r.labels[(h - 1) * w + x]] = 1;
    for (std::int64_t y = 0; y < h; ++y) touches[r.labels[y * w]] = touches[r.labels[y * w + w - 1]] = 1;
    touches[0] = 0;
    return touches;
}

}  // namespace stageload
