#pragma once
// One texture for the whole character: the front seen in the picture and a back made up from
// it (mirrored, its small features — eyes, mouth, emblems — painted over by the colour around
// them, a little shaded, with a seeded grain), side by side or stacked in a
// square atlas. Colours continue past the subject's outline (push-pull), so the steep sides and
// mip-mapped edges never pick up the picture's background.

#include <array>

#include "engine/core/torch_nn.h"

namespace stageload {

/// Where the crop lands in the atlas: atlas pixel = origin + crop pixel × scale (the back
/// region mirrors x).
struct AtlasLayout {
    std::int64_t size = 0;
    std::int64_t cropWidth = 0, cropHeight = 0;
    std::array<double, 2> frontOrigin{}, backOrigin{};
    std::array<double, 2> scale{};  ///< x, y
};

/// Plans the layout for a crop of `width`×`height` pixels in a `size`² atlas.
AtlasLayout planAtlas(std::int64_t width, std::int64_t height, std::int64_t size);

/// glTF UV (v down) of crop pixel (x, y) on the front or the back.
std::array<float, 2> atlasUv(const AtlasLayout& layout, bool back, double x, double y);

class TextureBakerImpl : public torch::nn::Module {
public:
    /// Buffers for a `size`² RGB atlas.
    TextureBakerImpl(std::int64_t size, torch::Device device = torch::kCPU);
    std::int64_t size() const { return size_; }

    /// Bakes the crop ([3,h,w], alpha [h,w]) into the atlas; returns it, [3,size,size]. Draws the
    /// back's grain from the global CPU generator.
    torch::Tensor bake(const torch::Tensor& rgb, const torch::Tensor& alpha, const AtlasLayout& layout);

private:
    std::int64_t size_;
    torch::Tensor atlas_;
};
TORCH_MODULE(TextureBaker);

}  // namespace stageload
