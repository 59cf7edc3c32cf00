#include "engine/pipelines/character/shade.h"

#include "engine/core/image_tensor.h"

namespace stageload {
namespace {

// The background darkened evenly (a shadow): each channel's factor within this of their mean,
// or within this much of the colour that mean gives (0..1; a dark channel's factor is noisy: a
// JPEG's ±0.02 on a navy background's 0.1 is a fifth of it).
constexpr double kEvenShare = 0.06;
constexpr double kEvenNoise = 0.03;

}  // namespace

torch::Tensor darkenedEvenly(const torch::Tensor& rgb, const torch::Tensor& background) {
    const auto ratio = rgb / background.clamp_min(0.05);
    const auto darkening = ratio.mean(0);
    const auto tolerance = (kEvenNoise / background.clamp_min(0.05)).clamp_min(kEvenShare);
    return (darkening > 0.3) & (darkening < 0.985) & (((ratio - darkening).abs() - tolerance).amax(0) < 0);
}

torch::Tensor widerThanAStroke(const torch::Tensor& evenly) {
    return dilate(erode(evenly.to(torch::kFloat32), 1), 1) > 0.5;
}

torch::Tensor nearShadow(const torch::Tensor& evenly, std::int64_t margin) {
    return dilate(widerThanAStroke(evenly).to(torch::kFloat32), margin) > 0.5;
}

}  // namespace stageload
