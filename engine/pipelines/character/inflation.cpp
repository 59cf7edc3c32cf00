#include "engine/pipelines/character/inflation.h"

#include <cmath>

#include "engine/core/image_tensor.h"

namespace stageload {

SurfaceSolverImpl::SurfaceSolverImpl(std::int64_t resolution, torch::Device device)
    : resolution_(resolution) {
    const auto options = torch::TensorOptions(torch::kFloat32).device(device);
    field_ = register_buffer("field", torch::zeros({resolution + 2, resolution + 2}, options));
    update_ = register_buffer("update", torch::zeros({2, resolution, resolution}, options));
    scratch_ = register_buffer("scratch", torch::zeros({resolution, resolution}, options));
}

torch::Tensor SurfaceSolverImpl::solve(const torch::Tensor& mask, const torch::Tensor& initial,
                                       int iterations) {
    torch::NoGradGuard noGrad;
    const auto h = mask.size(0), w = mask.size(1);
    TORCH_CHECK(h <= resolution_ && w <= resolution_, "silhouette ", h, "x", w,
                " is larger than the solver's ", resolution_);
    // Everything below works in place on the buffers: no allocation per iteration.
    auto padded = field_.slice(0, 0, h + 2).slice(1, 0, w + 2);
    padded.zero_();
    auto u = padded.slice(0, 1, h + 1).slice(1, 1, w + 1);
    auto up = padded.slice(0, 0, h).slice(1, 1, w + 1), down = padded.slice(0, 2, h + 2).slice(1, 1, w + 1);
    auto left = padded.slice(0, 1, h + 1).slice(1, 0, w), right = padded.slice(0, 1, h + 1).slice(1, 2, w + 2);
    auto sum = scratch_.slice(0, 0, h).slice(1, 0, w);
    auto inside = (mask.to(u.options()) > 0.5).to(u.options());
    if (initial.defined()) u.copy_(resizeTensor(initial.to(u.options()), h, w) * inside);

    const auto longSide = static_cast<double>(std::max(h, w));
    const double source = 1.0 / (longSide * longSide);  // f·d² with f = 1 and d = 1 / long side
    // Over-relaxation tuned to the widest error still there: the whole shape from zeros, a few
    // coarse cells from a coarser solution.
    const double scale = initial.defined() ? std::min(longSide, 64.0) : longSide;
    const double omega = 2.0 / (1.0 + std::sin(M_PI / scale));
    auto idx = torch::arange(h, u.options()).view({-1, 1}) + torch::arange(w, u.options()).view({1, -1});
    auto red = torch::remainder(idx, 2.0);
    const torch::Tensor colour[2] = {
        update_[0].slice(0, 0, h).slice(1, 0, w).copy_(inside * (1 - red) * omega),
        update_[1].slice(0, 0, h).slice(1, 0, w).copy_(inside * red * omega)};
    auto neighbours = [&] {
        torch::add_out(sum, up, down);
        sum.add_(left).add_(right);
    };
    for (int i = 0; i < iterations; ++i) {
        for (const auto& c : colour) {
            neighbours();
            // u += ω·(Gauss-Seidel value − u) on this colour's inside cells
            sum.add_(source).mul_(0.25).sub_(u).mul_(c);
            u.add_(sum);
        }
    }
    neighbours();
    residual_ = ((sum - 4 * u) / source + 1).mul(inside).abs().max().item<double>();
    return u.clone();
}

torch::Tensor inflateHeight(const torch::Tensor& u, double thickness) {
    return u.clamp_min(0).sqrt() * (std::sqrt(2.0) * thickness);
}

}  // namespace stageload
