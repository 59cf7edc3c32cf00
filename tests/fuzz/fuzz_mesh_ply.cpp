// PLY meshes (ascii and binary, any element layout): refused with FileError, or decoded into a
// mesh whose arrays agree and whose indices all point at a vertex.
#include <string>

#include "engine/media/mesh_files.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        // The texture a "comment TextureFile" names is looked for in a folder that is not there.
        const auto m = stageload::decodePly(std::string(reinterpret_cast<const char*>(data), size),
                                            "/nonexistent-fuzz-folder/input.ply");
        FUZZ_CHECK(m.positions.size() == 3 * m.vertexCount());
        FUZZ_CHECK(m.normals.size() == m.positions.size());
        FUZZ_CHECK(m.uvs.size() == 2 * m.vertexCount());
        FUZZ_CHECK(!m.indices.empty() && m.indices.size() % 3 == 0);
        for (const auto i : m.indices) FUZZ_CHECK(i < m.vertexCount());
        FUZZ_CHECK(m.texture.empty());
    } catch (const stageload::FileError&) {
    }
    return 0;
}
