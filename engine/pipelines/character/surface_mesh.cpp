#include "engine/pipelines/character/surface_mesh.h"

#include <meshoptimizer.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

#include "engine/core/image_tensor.h"
#include "engine/core/regions.h"
#include "engine/media/mesh.h"

namespace stageload {
namespace {

struct Grid {
    std::int64_t gh, gw;
    const std::vector<std::uint8_t>& cells;
    bool in(std::int64_t r, std::int64_t c) const {
        return r >= 0 && c >= 0 && r < gh && c < gw && cells[r * gw + c];
    }
    // Corner (r, c) touches cells (r-1, c-1), (r-1, c), (r, c-1), (r, c).
    int around(std::int64_t r, std::int64_t c) const {
        return in(r - 1, c - 1) + in(r - 1, c) + in(r, c - 1) + in(r, c);
    }
    bool interior(std::int64_t r, std::int64_t c) const { return around(r, c) == 4; }
    bool used(std::int64_t r, std::int64_t c) const { return around(r, c) > 0; }
};

// Drops the 4-connected regions of cells under `minShare` of all cells (the largest stays).
std::int64_t dropSmallRegions(std::vector<std::uint8_t>& cells, std::int64_t gh, std::int64_t gw,
                              double minShare) {
    const auto regions = labelRegions(gh, gw, [&cells](std::int64_t p) { return cells[p] != 0; });
    const auto& label = regions.labels;
    const auto& sizes = regions.sizes;
    if (sizes.size() <= 2) return 0;
    std::int64_t total = 0;
    for (std::size_t id = 1; id < sizes.size(); ++id) total += sizes[id];
    const auto largest = *std::max_element(sizes.begin() + 1, sizes.end());
    const double limit = std::min(minShare * static_cast<double>(total), static_cast<double>(largest));
    std::int64_t dropped = 0;
    for (std::size_t i = 0; i < cells.size(); ++i)
        if (cells[i] && static_cast<double>(sizes[label[i]]) < limit) cells[i] = 0, ++dropped;
    return dropped;
}

// Bilinear sample of a [H,W] float image at pixel coordinates (pixel centres at +0.5).
double sampleAt(const float* img, std::int64_t H, std::int64_t W, double x, double y) {
    x = std::clamp(x - 0.5, 0.0, double(W - 1));
    y = std::clamp(y - 0.5, 0.0, double(H - 1));
    const auto x0 = static_cast<std::int64_t>(x), y0 = static_cast<std::int64_t>(y);
    const auto x1 = std::min(x0 + 1, W - 1), y1 = std::min(y0 + 1, H - 1);
    const double fx = x - x0, fy = y - y0;
    return (img[y0 * W + x0] * (1 - fx) + img[y0 * W + x1] * fx) * (1 - fy) +
           (img[y1 * W + x0] * (1 - fx) + img[y1 * W + x1] * fx) * fy;
}

// The depth of a sheet ([H,W] heights) at a pixel position, at least a quarter pixel: where
// the heights are nil (a thin part widened past the mask, see meshCells) the front and back
// stay apart, or they would be one vertex.
double sheetDepth(const torch::Tensor& field, double px, double py) {
    const auto H = field.size(0), W = field.size(1);
    return std::max(sampleAt(field.data_ptr<float>(), H, W, px, py), 0.25 / static_cast<double>(std::max(H, W)));
}

std::uint32_t addVertex(SheetMesh& mesh, double px, double py, double z, VertexSide side) {
    const auto H = mesh.front.size(0), W = mesh.front.size(1);
    const double unit = 1.0 / static_cast<double>(std::max(H, W));  // pixels -> long side 1
    mesh.positions.insert(mesh.positions.end(),
                          {static_cast<float>((px - W / 2.0) * unit),
                           static_cast<float>((H - py) * unit), static_cast<float>(z)});
    mesh.pixels.insert(mesh.pixels.end(), {static_cast<float>(px), static_cast<float>(py)});
    mesh.sides.push_back(side);
    return static_cast<std::uint32_t>(mesh.sides.size() - 1);
}

bool isBack(const SheetMesh& m, const std::uint32_t* t) {
    int vote = 0;
    for (int k = 0; k < 3; ++k)
        vote += m.sides[t[k]] == VertexSide::Back ? -1 : m.sides[t[k]] == VertexSide::Front ? 1 : 0;
    if (vote != 0) return vote < 0;
    const auto* p = m.positions.data();
    const double nz = (p[3 * t[1]] - p[3 * t[0]]) * (p[3 * t[2] + 1] - p[3 * t[0] + 1]) -
                      (p[3 * t[1] + 1] - p[3 * t[0] + 1]) * (p[3 * t[2]] - p[3 * t[0]]);
    return nz < 0;
}

// Simplification sometimes folds a sheet onto itself, leaving a triangle and its mirror image
// (same corners, opposite winding) inside the surface; the pair encloses nothing. Drops both.
void dropFoldedPairs(SheetMesh& m) {
    std::map<std::array<std::uint32_t, 3>, std::vector<std::size_t>> byCorners;
    for (std::size_t f = 0; f + 2 < m.indices.size(); f += 3) {
        std::array<std::uint32_t, 3> key{m.indices[f], m.indices[f + 1], m.indices[f + 2]};
        std::sort(key.begin(), key.end());
        byCorners[key].push_back(f);
    }
    std::vector<char> drop(m.indices.size() / 3, 0);
    auto winding = [&](std::size_t f) {  // +1 / -1: the cyclic order of the sorted corners
        const auto* t = &m.indices[f];
        const auto lowest = std::min_element(t, t + 3) - t;
        return t[(lowest + 1) % 3] < t[(lowest + 2) % 3] ? 1 : -1;
    };
    for (const auto& [key, fs] : byCorners) {
        std::vector<std::size_t> plus, minus;
        for (auto f : fs) (winding(f) > 0 ? plus : minus).push_back(f);
        for (std::size_t i = 0; i < std::min(plus.size(), minus.size()); ++i)
            drop[plus[i] / 3] = drop[minus[i] / 3] = 1;
    }
    std::vector<std::uint32_t> kept;
    kept.reserve(m.indices.size());
    for (std::size_t f = 0; f + 2 < m.indices.size(); f += 3)
        if (!drop[f / 3]) kept.insert(kept.end(), m.indices.begin() + f, m.indices.begin() + f + 3);
    m.indices = std::move(kept);
}

// Splits every edge between two outline vertices that lies inside a sheet (two faces of that
// sheet): such an edge exists in the other sheet too after simplification thinned a neck.
void splitChords(SheetMesh& m) {
    for (bool back : {false, true}) {
        for (bool changed = true; changed;) {
            changed = false;
            std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> faces;
            for (std::size_t f = 0; f + 2 < m.indices.size(); f += 3) {
                if (isBack(m, &m.indices[f]) != back) continue;
                for (int k = 0; k < 3; ++k) {
                    const auto a = m.indices[f + k], b = m.indices[f + (k + 1) % 3];
                    if (m.sides[a] == VertexSide::Outline && m.sides[b] == VertexSide::Outline)
                        faces[{std::min(a, b), std::max(a, b)}].push_back(f);
                }
            }
            for (const auto& [edge, fs] : faces) {
                if (fs.size() != 2) continue;  // one face: the outline itself
                const auto [a, b] = edge;
                const double px = (m.pixels[2 * a] + m.pixels[2 * b]) / 2;
                const double py = (m.pixels[2 * a + 1] + m.pixels[2 * b + 1]) / 2;
                const auto& field = back ? m.back : m.front;
                const double h = sampleAt(field.data_ptr<float>(), field.size(0), field.size(1), px, py);
                const auto mid = addVertex(m, px, py, back ? -h : h, back ? VertexSide::Back : VertexSide::Front);
                for (auto f : fs) {
                    // Rotate the face so that it reads (p, q, r) with {p, q} = {a, b}.
                    std::uint32_t t[3] = {m.indices[f], m.indices[f + 1], m.indices[f + 2]};
                    while (!((t[0] == a || t[0] == b) && (t[1] == a || t[1] == b)))
                        std::rotate(t, t + 1, t + 3);
                    m.indices[f] = t[0], m.indices[f + 1] = mid, m.indices[f + 2] = t[2];
                    m.indices.insert(m.indices.end(), {mid, t[1], t[2]});
                }
                changed = true;
                break;  // face indices moved: collect again
            }
        }
    }
}

// The outline vertices sit on the sub-pixel contour, the rings inside them on grid lines: on
// the steep rim that shows as terraces. Umbrella smoothing of the inner vertices' picture
// positions (a no-op on the regular grid inside) lets the first rings follow the contour; their
// heights are then sampled again.
void relaxTowardsOutline(SheetMesh& m, int iterations = 8, double lambda = 0.5) {
    const auto n = m.sides.size();
    std::vector<std::vector<std::uint32_t>> neighbours(n);
    for (std::size_t f = 0; f + 2 < m.indices.size(); f += 3)
        for (int k = 0; k < 3; ++k) {
            const auto a = m.indices[f + k], b = m.indices[f + (k + 1) % 3];
            neighbours[a].push_back(b);
            neighbours[b].push_back(a);
        }
    for (auto& list : neighbours) {
        std::sort(list.begin(), list.end());
        list.erase(std::unique(list.begin(), list.end()), list.end());
    }
    auto pixels = m.pixels;
    for (int it = 0; it < iterations; ++it) {
        auto next = pixels;
        for (std::size_t v = 0; v < n; ++v) {
            if (m.sides[v] == VertexSide::Outline || neighbours[v].empty()) continue;
            double x = 0, y = 0;
            for (auto w : neighbours[v]) x += pixels[2 * w], y += pixels[2 * w + 1];
            const auto count = static_cast<double>(neighbours[v].size());
            next[2 * v] = static_cast<float>(pixels[2 * v] + lambda * (x / count - pixels[2 * v]));
            next[2 * v + 1] = static_cast<float>(pixels[2 * v + 1] + lambda * (y / count - pixels[2 * v + 1]));
        }
        pixels = std::move(next);
    }
    const auto H = m.front.size(0), W = m.front.size(1);
    const double unit = 1.0 / static_cast<double>(std::max(H, W));
    for (std::size_t v = 0; v < n; ++v) {
        if (m.sides[v] == VertexSide::Outline) continue;
        const double px = pixels[2 * v], py = pixels[2 * v + 1];
        const bool back = m.sides[v] == VertexSide::Back;
        const double h = sheetDepth(back ? m.back : m.front, px, py);
        m.pixels[2 * v] = pixels[2 * v];
        m.pixels[2 * v + 1] = pixels[2 * v + 1];
        m.positions[3 * v] = static_cast<float>((px - W / 2.0) * unit);
        m.positions[3 * v + 1] = static_cast<float>((H - py) * unit);
        m.positions[3 * v + 2] = static_cast<float>(back ? -h : h);
    }
}

// The cells of a gh × gw grid over `mask` ([H,W], 0..1) that make the mesh: those the mask
// covers at least half of, cleaned (cleanCells). A part narrower than about two cells (a
// stalk, a chain's ring, a blade's tip) has no inner corner on the grid and would vanish from
// the mesh, with what it holds (the ball on a stalk) and a small part's whole outline; so the
// pixels the kept cells leave more than a cell away are widened by a cell on each
// side (within the mask's bounding box) and the cells chosen again. The outline's vertices
// are still moved onto the mask's own contour (up to 0.45 cell), so a widened part keeps
// about its own width.
std::vector<std::uint8_t> meshCells(const torch::Tensor& mask, std::int64_t gh, std::int64_t gw,
                                    double minShare) {
    const auto H = mask.size(0), W = mask.size(1);
    auto choose = [&](const torch::Tensor& m) {
        const auto coverage = resizeTensor(m, gh, gw).contiguous();
        const auto* cov = coverage.data_ptr<float>();
        std::vector<std::uint8_t> cells(std::size_t(gh * gw));
        for (std::int64_t i = 0; i < gh * gw; ++i) cells[i] = cov[i] >= 0.5f;
        cleanCells(cells, gh, gw, minShare);
        return cells;
    };
    auto cells = choose(mask);
    const double cellPx = static_cast<double>(std::max(H, W)) / static_cast<double>(std::max(gh, gw));
    const auto cell = std::max<std::int64_t>(1, std::llround(cellPx));
    namespace F = torch::nn::functional;
    const auto kept = F::interpolate(torch::from_blob(cells.data(), {1, 1, gh, gw}, torch::kUInt8).to(torch::kFloat32),
                                     F::InterpolateFuncOptions().size(std::vector<std::int64_t>{H, W}).mode(torch::kNearest))
                          .view({H, W});
    const auto lost = ((mask >= 0.5) & (dilate(kept, cell) < 0.5)).to(torch::kFloat32);
    if (!lost.any().item<bool>()) return cells;
    // Widened within the mask's bounding box: a stalk's tip must not lengthen the figure.
    auto widened = dilate(lost, std::llround(cellPx));
    const auto solid = mask >= 0.5;
    const auto rows = solid.any(1).nonzero().flatten(), cols = solid.any(0).nonzero().flatten();
    auto box = torch::zeros({H, W});
    box.slice(0, rows.min().item<std::int64_t>(), rows.max().item<std::int64_t>() + 1)
        .slice(1, cols.min().item<std::int64_t>(), cols.max().item<std::int64_t>() + 1)
        .fill_(1.0f);
    return choose(torch::maximum(mask, widened * box));
}

}  // namespace

std::int64_t cleanCells(std::vector<std::uint8_t>& cells, std::int64_t gh, std::int64_t gw,
                        double minShare) {
    std::int64_t dropped = 0;
    for (bool changed = true; changed;) {
        changed = false;
        const Grid g{gh, gw, cells};
        std::vector<std::int64_t> drop;
        auto neighbours = [&](std::int64_t r, std::int64_t c) {
            return g.in(r - 1, c) + g.in(r + 1, c) + g.in(r, c - 1) + g.in(r, c + 1);
        };
        // Of two cells, drop the one with fewer neighbours (the later one on a tie).
        auto dropWeaker = [&](std::int64_t r0, std::int64_t c0, std::int64_t r1, std::int64_t c1) {
            if (neighbours(r0, c0) < neighbours(r1, c1)) drop.push_back(r0 * gw + c0);
            else drop.push_back(r1 * gw + c1);
        };
        for (std::int64_t r = 0; r < gh; ++r) {
            for (std::int64_t c = 0; c < gw; ++c) {
                if (!g.in(r, c)) continue;
                // A cell with no interior corner would make front and back triangles coincide.
                if (!g.interior(r, c) && !g.interior(r, c + 1) && !g.interior(r + 1, c) &&
                    !g.interior(r + 1, c + 1))
                    drop.push_back(r * gw + c);
                // The edge shared with the cell below / to the right: both ends on the outline
                // would make it an edge of four faces.
                if (g.in(r + 1, c) && !g.interior(r + 1, c) && !g.interior(r + 1, c + 1))
                    dropWeaker(r, c, r + 1, c);
                if (g.in(r, c + 1) && !g.interior(r, c + 1) && !g.interior(r + 1, c + 1))
                    dropWeaker(r, c, r, c + 1);
            }
        }
        // Corners where two cells meet diagonally and the other two are empty.
        for (std::int64_t r = 1; r < gh; ++r) {
            for (std::int64_t c = 1; c < gw; ++c) {
                const bool a = g.in(r - 1, c - 1), b = g.in(r - 1, c), d = g.in(r, c - 1),
                           e = g.in(r, c);
                if (a && e && !b && !d) dropWeaker(r - 1, c - 1, r, c);
                if (b && d && !a && !e) dropWeaker(r - 1, c, r, c - 1);
            }
        }
        for (auto i : drop) {
            if (cells[i]) cells[i] = 0, ++dropped, changed = true;
        }
        const auto split = dropSmallRegions(cells, gh, gw, minShare);
        dropped += split;
        changed = changed || split > 0;
    }
    return dropped;
}

SheetMesh buildSheetMesh(const torch::Tensor& maskIn, const torch::Tensor& frontIn,
                         const torch::Tensor& backIn, std::int64_t cellsLong, double minPartShare) {
    torch::NoGradGuard noGrad;
    auto mask = gaussianBlur(maskIn.to(torch::kCPU, torch::kFloat32), 0.7).contiguous();
    auto front = frontIn.to(torch::kCPU, torch::kFloat32).contiguous();
    auto back = backIn.to(torch::kCPU, torch::kFloat32).contiguous();
    const auto H = mask.size(0), W = mask.size(1);
    const double cellPx = static_cast<double>(std::max(H, W)) / static_cast<double>(cellsLong);
    const auto gh = std::max<std::int64_t>(1, std::llround(H / cellPx));
    const auto gw = std::max<std::int64_t>(1, std::llround(W / cellPx));
    const double sy = static_cast<double>(H) / gh, sx = static_cast<double>(W) / gw;

    const auto cells = meshCells(maskIn.to(torch::kCPU, torch::kFloat32).contiguous(), gh, gw, minPartShare);
    const Grid g{gh, gw, cells};

    const auto* m = mask.data_ptr<float>();
    // The mask blurred by a cell, made when first needed (a widened part's side).
    torch::Tensor reachMask;
    const float* reach = nullptr;
    auto sample = [&](const float* img, double x, double y) { return sampleAt(img, H, W, x, y); };

    SheetMesh out;
    out.front = front;
    out.back = back;
    auto add = [&](double px, double py, double z, VertexSide side) {
        return addVertex(out, px, py, z, side);
    };

    // Vertices: outline corners once (moved onto the contour), inner corners front and back.
    const auto corners = (gh + 1) * (gw + 1);
    std::vector<std::uint32_t> frontId(std::size_t(corners), UINT32_MAX), backId(std::size_t(corners), UINT32_MAX);
    for (std::int64_t r = 0; r <= gh; ++r) {
        for (std::int64_t c = 0; c <= gw; ++c) {
            if (!g.used(r, c)) continue;
            double px = c * sx, py = r * sy;
            const auto k = r * (gw + 1) + c;
            if (g.interior(r, c)) {
                frontId[k] = add(px, py, sheetDepth(front, px, py), VertexSide::Front);
                backId[k] = add(px, py, -sheetDepth(back, px, py), VertexSide::Back);
                continue;
            }
            // Newton steps towards the 0.5 level along the mask's gradient.
            const double ox = px, oy = py, limit = 0.45 * std::min(sx, sy);
            for (int it = 0; it < 4; ++it) {
                const double v = sample(m, px, py);
                const double gx = sample(m, px + 0.5, py) - sample(m, px - 0.5, py);
                const double gy = sample(m, px, py + 0.5) - sample(m, px, py - 0.5);
                const double g2 = gx * gx + gy * gy;
                if (g2 >= 1e-8) {
                    px += (0.5 - v) * gx / g2;
                    py += (0.5 - v) * gy / g2;
                } else {
                    // Beyond the mask's blur (a widened part's side): a cell's reach to the
                    // mask, as far as the limit allows.
                    if (v >= 0.5) break;
                    if (!reach) {
                        reachMask = gaussianBlur(maskIn.to(torch::kCPU, torch::kFloat32), cellPx).contiguous();
                        reach = reachMask.data_ptr<float>();
                    }
                    const double wx = sample(reach, px + 0.5, py) - sample(reach, px - 0.5, py);
                    const double wy = sample(reach, px, py + 0.5) - sample(reach, px, py - 0.5);
                    const double wl = std::hypot(wx, wy);
                    if (wl < 1e-9) break;
                    px += limit * wx / wl;
                    py += limit * wy / wl;
                }
                const double dx = px - ox, dy = py - oy, d = std::hypot(dx, dy);
                if (d > limit) px = ox + dx * limit / d, py = oy + dy * limit / d;
            }
            frontId[k] = backId[k] = add(px, py, 0.0, VertexSide::Outline);
        }
    }

    // Two triangles per cell and sheet, split along a diagonal through an inner corner.
    for (std::int64_t r = 0; r < gh; ++r) {
        for (std::int64_t c = 0; c < gw; ++c) {
            if (!g.in(r, c)) continue;
            const auto a = r * (gw + 1) + c, b = a + 1, d = a + gw + 1, e = d + 1;  // a b / d e
            const bool diagonalAE = g.interior(r, c) || g.interior(r + 1, c + 1);
            auto emit = [&](const std::vector<std::uint32_t>& id, bool flip) {
                std::uint32_t t[6];
                if (diagonalAE) {
                    t[0] = id[a], t[1] = id[e], t[2] = id[b], t[3] = id[a], t[4] = id[d], t[5] = id[e];
                } else {
                    t[0] = id[a], t[1] = id[d], t[2] = id[b], t[3] = id[b], t[4] = id[d], t[5] = id[e];
                }
                if (flip) std::swap(t[1], t[2]), std::swap(t[4], t[5]);
                out.indices.insert(out.indices.end(), t, t + 6);
            };
            emit(frontId, false);  // counter-clockwise seen from +z (y up, rows down)
            emit(backId, true);
        }
    }
    relaxTowardsOutline(out);
    return out;
}

bool decimateSheetMesh(SheetMesh& mesh, std::size_t triangles) {
    if (mesh.indices.size() / 3 <= triangles) return true;
    const auto n = mesh.sides.size();
    // Front and back are simplified apart with their shared outline locked, so they still meet
    // vertex for vertex: collapses across the thin rim could fold one sheet onto the other.
    std::vector<unsigned int> sheets[2];
    for (std::size_t f = 0; f + 2 < mesh.indices.size(); f += 3) {
        const bool back = isBack(mesh, &mesh.indices[f]);
        sheets[back].insert(sheets[back].end(), mesh.indices.begin() + f, mesh.indices.begin() + f + 3);
    }
    const auto total = static_cast<double>(mesh.indices.size() / 3);
    // Now and then a collapse sequence overlaps a sheet with itself in a way no local repair
    // undoes; another target gives another sequence. Room is left for the few faces
    // splitChords adds (two per split edge).
    for (double fill : {0.99, 0.97, 0.94, 0.9, 0.85}) {
        SheetMesh candidate = mesh;
        candidate.indices.clear();
        for (const auto& sheet : sheets) {
            const auto share = static_cast<double>(sheet.size() / 3) / total;
            const auto target = static_cast<std::size_t>(share * fill * static_cast<double>(triangles)) * 3;
            std::vector<unsigned int> out(sheet.size());
            float error = 0.0f;
            out.resize(meshopt_simplify(out.data(), sheet.data(), sheet.size(), mesh.positions.data(), n,
                                        sizeof(float) * 3, target, 1.0f, meshopt_SimplifyLockBorder,
                                        &error));
            candidate.indices.insert(candidate.indices.end(), out.begin(), out.end());
        }
        dropFoldedPairs(candidate);
        splitChords(candidate);
        if (candidate.indices.size() / 3 > triangles ||
            !checkMesh(candidate.positions, candidate.indices).closedManifold())
            continue;
        // Keep the vertices still used, in first-use order.
        std::vector<std::uint32_t> remap(candidate.sides.size(), UINT32_MAX);
        SheetMesh out;
        out.front = mesh.front;
        out.back = mesh.back;
        for (auto& i : candidate.indices) {
            if (remap[i] == UINT32_MAX) {
                remap[i] = static_cast<std::uint32_t>(out.sides.size());
                out.positions.insert(out.positions.end(), candidate.positions.begin() + 3 * i,
                                     candidate.positions.begin() + 3 * i + 3);
                out.pixels.insert(out.pixels.end(), candidate.pixels.begin() + 2 * i,
                                  candidate.pixels.begin() + 2 * i + 2);
                out.sides.push_back(candidate.sides[i]);
            }
            i = remap[i];
        }
        out.indices = std::move(candidate.indices);
        mesh = std::move(out);
        return true;
    }
    return false;
}

}  // namespace stageload
