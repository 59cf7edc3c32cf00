#include "raster.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stageload {
namespace {

// Bilinear sample of an RGB(A) texture at glTF UV (v = 0 at the top row), clamped at edges.
void sample(const Image& tex, float u, float v, std::uint8_t* out) {
    const float x = std::clamp(u * tex.width - 0.5f, 0.0f, float(tex.width - 1));
    const float y = std::clamp(v * tex.height - 0.5f, 0.0f, float(tex.height - 1));
    const int x0 = static_cast<int>(x), y0 = static_cast<int>(y);
    const int x1 = std::min(x0 + 1, tex.width - 1), y1 = std::min(y0 + 1, tex.height - 1);
    const float fx = x - x0, fy = y - y0;
    for (int c = 0; c < 3; ++c) {
        const float top = tex.at(x0, y0)[c] * (1 - fx) + tex.at(x1, y0)[c] * fx;
        const float bottom = tex.at(x0, y1)[c] * (1 - fx) + tex.at(x1, y1)[c] * fx;
        out[c] = static_cast<std::uint8_t>(std::lround(top * (1 - fy) + bottom * fy));
    }
}

}  // namespace

FrontView renderFront(const TexturedMesh& mesh, std::array<float, 4> box, int width, int height) {
    FrontView view;
    view.image = Image(width, height, 4);
    std::vector<float> depth(std::size_t(width) * height, -std::numeric_limits<float>::infinity());
    const float sx = width / (box[2] - box[0]), sy = height / (box[3] - box[1]);
    const bool textured = !mesh.texture.empty() && mesh.uvs.size() / 2 == mesh.vertexCount();
    const auto& p = mesh.positions;
    for (std::size_t f = 0; f + 2 < mesh.indices.size(); f += 3) {
        const std::uint32_t v[3] = {mesh.indices[f], mesh.indices[f + 1], mesh.indices[f + 2]};
        float X[3], Y[3], Z[3];
        for (int k = 0; k < 3; ++k) {
            X[k] = (p[3 * v[k]] - box[0]) * sx;
            Y[k] = (box[3] - p[3 * v[k] + 1]) * sy;
            Z[k] = p[3 * v[k] + 2];
        }
        const float area = (X[1] - X[0]) * (Y[2] - Y[0]) - (X[2] - X[0]) * (Y[1] - Y[0]);
        if (std::abs(area) < 1e-12f) continue;
        const int x0 = std::max(0, static_cast<int>(std::floor(std::min({X[0], X[1], X[2]}))));
        const int x1 = std::min(width - 1, static_cast<int>(std::ceil(std::max({X[0], X[1], X[2]}))));
        const int y0 = std::max(0, static_cast<int>(std::floor(std::min({Y[0], Y[1], Y[2]}))));
        const int y1 = std::min(height - 1, static_cast<int>(std::ceil(std::max({Y[0], Y[1], Y[2]}))));
        for (int y = y0; y <= y1; ++y) {
            for (int x = x0; x <= x1; ++x) {
                const float px = x + 0.5f, py = y + 0.5f;
                float w[3];
                for (int k = 0; k < 3; ++k) {
                    const int a = (k + 1) % 3, b = (k + 2) % 3;
                    w[k] = ((X[b] - X[a]) * (py - Y[a]) - (px - X[a]) * (Y[b] - Y[a])) / area;
                }
                if (w[0] < 0 || w[1] < 0 || w[2] < 0) continue;
                const float z = w[0] * Z[0] + w[1] * Z[1] + w[2] * Z[2];
                auto& d = depth[std::size_t(y) * width + x];
                if (z <= d) continue;
                d = z;
                auto* out = view.image.at(x, y);
                out[3] = 255;
                if (!textured) {
                    out[0] = out[1] = out[2] = 255;
                    continue;
                }
                float u = 0, vv = 0;
                for (int k = 0; k < 3; ++k) {
                    u += w[k] * mesh.uvs[2 * v[k]];
                    vv += w[k] * mesh.uvs[2 * v[k] + 1];
                }
                sample(mesh.texture, u, vv, out);
            }
        }
    }
    return view;
}

std::array<float, 4> pictureBox(const PicturePlacement& p) {
    return {static_cast<float>(-p.x0 / p.sx), static_cast<float>((p.y0 - p.height) / p.sy),
            static_cast<float>((p.width - p.x0) / p.sx), static_cast<float>(p.y0 / p.sy)};
}

}  // namespace stageload
