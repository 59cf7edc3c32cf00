#pragma once
// Small textured meshes for the suites that write, read and draw them.
//
//   auto box = testmesh::box({-0.4f, 0, -0.15f}, {0.4f, 1.2f, 0.15f}, {0, 0}, {1, 1},
//                            testmesh::halves(16, 16, {230, 30, 30}, {30, 30, 230}));

#include <algorithm>
#include <array>
#include <cstdint>
#include <utility>

#include "engine/media/mesh.h"

namespace testmesh {

using Rgb = std::array<std::uint8_t, 3>;

/// A `w` × `h` RGB texture: `left` on the left half, `right` on the right.
inline stageload::Image halves(int w, int h, Rgb left, Rgb right) {
    stageload::Image image(w, h, 3);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            const Rgb& c = x < w / 2 ? left : right;
            std::copy(c.begin(), c.end(), image.at(x, y));
        }
    return image;
}

/// The box from `lo` to `hi` with one quad per face (24 vertices, so each face has its own
/// UVs), every face mapped onto the UV rectangle `uvLo`..`uvHi` (v = 0 at the top row, as in
/// glTF), smooth normals and `texture`.
inline stageload::TexturedMesh box(std::array<float, 3> lo, std::array<float, 3> hi,
                                   std::array<float, 2> uvLo, std::array<float, 2> uvHi,
                                   stageload::Image texture) {
    // The unit cube's corners per face, counter-clockwise seen from outside.
    const int faces[6][4][3] = {
        {{0, 0, 1}, {1, 0, 1}, {1, 1, 1}, {0, 1, 1}},  // +z
        {{1, 0, 0}, {0, 0, 0}, {0, 1, 0}, {1, 1, 0}},  // -z
        {{1, 0, 1}, {1, 0, 0}, {1, 1, 0}, {1, 1, 1}},  // +x
        {{0, 0, 0}, {0, 0, 1}, {0, 1, 1}, {0, 1, 0}},  // -x
        {{0, 1, 1}, {1, 1, 1}, {1, 1, 0}, {0, 1, 0}},  // +y
        {{0, 0, 0}, {1, 0, 0}, {1, 0, 1}, {0, 0, 1}},  // -y
    };
    const int uv[4][2] = {{0, 1}, {1, 1}, {1, 0}, {0, 0}};
    stageload::TexturedMesh m;
    m.name = "box";
    for (std::uint32_t f = 0; f < 6; ++f) {
        for (int k = 0; k < 4; ++k) {
            for (int a = 0; a < 3; ++a) m.positions.push_back(faces[f][k][a] ? hi[a] : lo[a]);
            for (int a = 0; a < 2; ++a) m.uvs.push_back(uv[k][a] ? uvHi[a] : uvLo[a]);
        }
        const std::uint32_t b = 4 * f;
        m.indices.insert(m.indices.end(), {b, b + 1, b + 2, b, b + 2, b + 3});
    }
    m.normals = stageload::smoothNormals(m.positions, m.indices);
    m.texture = std::move(texture);
    return m;
}

}  // namespace testmesh
