#pragma once
// Inflating a silhouette into a rounded surface, the way sketch-based modellers do: solve
// ∇²u = −1 inside the silhouette with u = 0 on its outline, then height = k·√u. A limb of width
// w gets a round cross-section of depth ≈ w, the body gets thick, thin parts stay thin.
//
// The solve is a cascade from coarse to fine: each SurfaceSolver owns the buffers of one
// resolution (the registry loads and releases it like a model), starts from the coarser level's
// solution and runs red-black successive over-relaxation.

#include "engine/core/torch_nn.h"

namespace stageload {

class SurfaceSolverImpl : public torch::nn::Module {
public:
    /// Buffers for silhouettes up to `resolution` pixels on their long side.
    SurfaceSolverImpl(std::int64_t resolution, torch::Device device = torch::kCPU);

    std::int64_t resolution() const { return resolution_; }

    /// Solves on `mask` ([h,w], 1 inside; long side ≤ resolution, in units where the long side
    /// is 1) starting from `initial` (resized here; undefined = zeros). Returns u, [h,w].
    /// From zeros it over-relaxes for the slowest (whole-shape) error; from a coarser solution
    /// the error left is a few cells wide, and it relaxes for that.
    torch::Tensor solve(const torch::Tensor& mask, const torch::Tensor& initial, int iterations);

    /// max |∇²u + 1| over the inside after the last solve (a convergence measure).
    double residual() const { return residual_; }

private:
    std::int64_t resolution_;
    torch::Tensor field_;    ///< u with a border of zeros, [R+2,R+2]
    torch::Tensor update_;   ///< per colour: over-relaxation factor inside, 0 elsewhere, [2,R,R]
    torch::Tensor scratch_;  ///< neighbour sums, [R,R]
    double residual_ = 0.0;
};
TORCH_MODULE(SurfaceSolver);

/// Height above the silhouette plane from the solution: √2·thickness·√u (a circular
/// cross-section for a limb when thickness is 1).
torch::Tensor inflateHeight(const torch::Tensor& u, double thickness);

}  // namespace stageload
