#include "engine/pipelines/cascade/cascade_mesh.h"

#include <cmath>

namespace stageload {
namespace {

constexpr int kRings = 16;     // latitude bands
constexpr int kSegments = 24;  // longitude steps
constexpr double kPi = 3.14159265358979323846;

}  // namespace

TexturedMesh cascadeMesh(const CascadeResult& result) {
    std::vector<float> bumps;
    std::string fingerprint;
    if (!result.stages.empty() && !result.stages.back().latent.empty()) {
        bumps = result.stages.back().latent;
        fingerprint = result.stages.back().fingerprint;
    }
    TexturedMesh mesh;
    mesh.name = "cascade";
    // Poles are single vertices, so the surface is closed; radius 0.9 m ± 5 % from the latent.
    const auto radius = [&](int ring, int seg) {
        if (bumps.empty()) return 0.9;
        const float v = bumps[static_cast<std::size_t>(ring * kSegments + seg) % bumps.size()];
        return 0.9 * (1.0 + 0.05 * std::tanh(static_cast<double>(v)));
    };
    const auto add = [&](double theta, double phi, double r, float u, float v) {
        mesh.positions.push_back(static_cast<float>(r * std::sin(theta) * std::cos(phi)));
        mesh.positions.push_back(static_cast<float>(0.9 + r * std::cos(theta)));
        mesh.positions.push_back(static_cast<float>(r * std::sin(theta) * std::sin(phi)));
        mesh.uvs.push_back(u);
        mesh.uvs.push_back(v);
    };
    add(0.0, 0.0, 0.9, 0.5f, 0.0f);  // top pole
    for (int ring = 1; ring < kRings; ++ring)
        for (int seg = 0; seg < kSegments; ++seg)
            add(kPi * ring / kRings, 2 * kPi * seg / kSegments, radius(ring, seg),
                static_cast<float>(seg) / kSegments, static_cast<float>(ring) / kRings);
    add(kPi, 0.0, 0.9, 0.5f, 1.0f);  // bottom pole
    const auto at = [](int ring, int seg) {
        return static_cast<std::uint32_t>(1 + (ring - 1) * kSegments + (seg % kSegments));
    };
    const std::uint32_t bottom = static_cast<std::uint32_t>(mesh.positions.size() / 3 - 1);
    for (int seg = 0; seg < kSegments; ++seg) {  // counter-clockwise seen from outside
        mesh.indices.insert(mesh.indices.end(), {0u, at(1, seg + 1), at(1, seg)});
        for (int ring = 1; ring + 1 < kRings; ++ring)
            mesh.indices.insert(mesh.indices.end(), {at(ring, seg), at(ring, seg + 1), at(ring + 1, seg),
                                                     at(ring, seg + 1), at(ring + 1, seg + 1),
                                                     at(ring + 1, seg)});
        mesh.indices.insert(mesh.indices.end(), {at(kRings - 1, seg), at(kRings - 1, seg + 1), bottom});
    }
    mesh.normals = smoothNormals(mesh.positions, mesh.indices);
    mesh.texture = Image(4, 4, 3);
    for (std::size_t i = 0; i < mesh.texture.pixels.size(); ++i)
        mesh.texture.pixels[i] = fingerprint.empty()
                                     ? 160
                                     : static_cast<std::uint8_t>(96 + 4 * (fingerprint[i % fingerprint.size()] % 32));
    return mesh;
}

}  // namespace stageload
