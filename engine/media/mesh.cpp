#include "engine/media/mesh.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>
#include <unordered_map>

namespace stageload {
namespace {

struct Vec3 {
    double x, y, z;
};
Vec3 sub(Vec3 a, Vec3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
Vec3 cross(Vec3 a, Vec3 b) { return {a.y * b.z - a.z * b.y, a.z * b.x - a.x * b.z, a.x * b.y - a.y * b.x}; }
double dot(Vec3 a, Vec3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }

Vec3 position(const std::vector<float>& p, std::uint32_t i) {
    return {p[3 * i], p[3 * i + 1], p[3 * i + 2]};
}

// Maps every vertex to the first vertex with the same position.
std::vector<std::uint32_t> weld(const std::vector<float>& positions) {
    const auto n = static_cast<std::uint32_t>(positions.size() / 3);
    std::map<std::array<float, 3>, std::uint32_t> first;
    std::vector<std::uint32_t> remap(n);
    for (std::uint32_t i = 0; i < n; ++i) {
        const std::array<float, 3> key{positions[3 * i], positions[3 * i + 1], positions[3 * i + 2]};
        remap[i] = first.emplace(key, i).first->second;
    }
    return remap;
}

std::uint64_t edgeKey(std::uint32_t a, std::uint32_t b) { return (std::uint64_t(a) << 32) | b; }

}  // namespace

std::string MeshReport::describe() const {
    std::ostringstream s;
    s << vertices << " vertices, " << triangles << " triangles: ";
    if (closedManifold()) {
        s << "closed, manifold, outward";
        return s.str();
    }
    const char* sep = "";
    auto add = [&](std::int64_t n, const char* what) {
        if (n == 0) return;
        s << sep << n << ' ' << what;
        sep = ", ";
    };
    add(openEdges, "open edges");
    add(nonManifoldEdges, "edges shared by more than two faces");
    add(misorientedEdges, "edges with inconsistent winding");
    add(nonManifoldVertices, "non-manifold vertices");
    add(degenerateTriangles, "degenerate triangles");
    if (volume <= 0.0) s << sep << "normals point inward (volume " << volume << ")";
    return s.str();
}

MeshReport checkMesh(const std::vector<float>& positions, const std::vector<std::uint32_t>& indices,
                     double minArea) {
    MeshReport r;
    const auto remap = weld(positions);
    r.triangles = static_cast<std::int64_t>(indices.size() / 3);
    // Directed edge -> count; undirected edge -> count.
    std::unordered_map<std::uint64_t, int> directed, undirected;
    std::vector<std::vector<std::uint32_t>> corners(remap.size());  // faces around each vertex
    for (std::size_t f = 0; f + 2 < indices.size(); f += 3) {
        const std::uint32_t v[3] = {remap[indices[f]], remap[indices[f + 1]], remap[indices[f + 2]]};
        const auto a = position(positions, v[0]), b = position(positions, v[1]),
                   c = position(positions, v[2]);
        const auto n = cross(sub(b, a), sub(c, a));
        const double area = 0.5 * std::sqrt(dot(n, n));
        r.area += area;
        r.volume += dot(a, cross(b, c)) / 6.0;
        if (v[0] == v[1] || v[1] == v[2] || v[0] == v[2] || area <= minArea) {
            ++r.degenerateTriangles;
            continue;
        }
        for (int k = 0; k < 3; ++k) {
            const auto p = v[k], q = v[(k + 1) % 3];
            ++directed[edgeKey(p, q)];
            ++undirected[edgeKey(std::min(p, q), std::max(p, q))];
            corners[p].push_back(static_cast<std::uint32_t>(f / 3));
        }
    }
    for (const auto& [key, count] : undirected) {
        const auto a = static_cast<std::uint32_t>(key >> 32), b = static_cast<std::uint32_t>(key);
        if (count == 1) ++r.openEdges;
        else if (count > 2) ++r.nonManifoldEdges;
        else if (directed.count(edgeKey(a, b)) != 1 || directed.count(edgeKey(b, a)) != 1 ||
                 directed[edgeKey(a, b)] != 1)
            ++r.misorientedEdges;
    }
    // A manifold vertex's faces form one fan: walking from face to face across the edges at the
    // vertex reaches all of them.
    std::vector<char> used(remap.size(), 0);
    for (std::uint32_t i = 0; i < remap.size(); ++i) {
        if (remap[i] != i) continue;
        used[i] = 1;
        const auto& faces = corners[i];
        if (faces.empty()) continue;
        ++r.vertices;
        // Union the faces around i that share a second vertex.
        std::map<std::uint32_t, std::vector<std::size_t>> byNeighbour;
        for (std::size_t k = 0; k < faces.size(); ++k) {
            const auto f = faces[k] * 3;
            for (int j = 0; j < 3; ++j) {
                const auto w = remap[indices[f + j]];
                if (w != i) byNeighbour[w].push_back(k);
            }
        }
        std::vector<std::size_t> parent(faces.size());
        for (std::size_t k = 0; k < parent.size(); ++k) parent[k] = k;
        auto find = [&](std::size_t k) {
            while (parent[k] != k) k = parent[k] = parent[parent[k]];
            return k;
        };
        for (const auto& [w, ks] : byNeighbour)
            for (std::size_t k = 1; k < ks.size(); ++k) parent[find(ks[k])] = find(ks[0]);
        std::size_t fans = 0;
        for (std::size_t k = 0; k < parent.size(); ++k) fans += find(k) == k;
        if (fans > 1) ++r.nonManifoldVertices;
    }
    return r;
}

std::vector<float> smoothNormals(const std::vector<float>& positions,
                                 const std::vector<std::uint32_t>& indices) {
    const auto remap = weld(positions);
    std::vector<double> sum(positions.size(), 0.0);
    for (std::size_t f = 0; f + 2 < indices.size(); f += 3) {
        const auto a = position(positions, indices[f]), b = position(positions, indices[f + 1]),
                   c = position(positions, indices[f + 2]);
        const auto n = cross(sub(b, a), sub(c, a));  // length = 2 × area: area weighting
        for (int k = 0; k < 3; ++k) {
            const auto v = remap[indices[f + k]];
            sum[3 * v] += n.x;
            sum[3 * v + 1] += n.y;
            sum[3 * v + 2] += n.z;
        }
    }
    std::vector<float> normals(positions.size(), 0.0f);
    for (std::size_t i = 0; i < remap.size(); ++i) {
        const auto v = remap[i];
        const double x = sum[3 * v], y = sum[3 * v + 1], z = sum[3 * v + 2];
        const double len = std::sqrt(x * x + y * y + z * z);
        if (len > 0) {
            normals[3 * i] = static_cast<float>(x / len);
            normals[3 * i + 1] = static_cast<float>(y / len);
            normals[3 * i + 2] = static_cast<float>(z / len);
        } else {
            normals[3 * i + 2] = 1.0f;
        }
    }
    return normals;
}

std::array<float, 6> meshBounds(const std::vector<float>& positions) {
    std::array<float, 6> b{};
    if (positions.empty()) return b;
    const float inf = std::numeric_limits<float>::infinity();
    b = {inf, inf, inf, -inf, -inf, -inf};
    for (std::size_t i = 0; i + 2 < positions.size(); i += 3) {
        for (int k = 0; k < 3; ++k) {
            b[k] = std::min(b[k], positions[i + k]);
            b[3 + k] = std::max(b[3 + k], positions[i + k]);
        }
    }
    return b;
}

}  // namespace stageload
