#pragma once
// Small fixtures shared by the ui suites.

#include "engine/media/mesh.h"

namespace stageload::test {

/// A closed, outward-facing tetrahedron with UVs, normals and a 2×2 RGB texture: the smallest
/// mesh every exporter, importer and viewer must take.
inline TexturedMesh tetrahedron() {
    TexturedMesh m;
    m.positions = {0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1};
    m.uvs = {0, 0, 1, 0, 0, 1, 1, 1};
    m.indices = {0, 2, 1, 0, 1, 3, 0, 3, 2, 1, 2, 3};
    m.normals = smoothNormals(m.positions, m.indices);
    m.texture = Image(2, 2, 3);
    return m;
}

}  // namespace stageload::test
