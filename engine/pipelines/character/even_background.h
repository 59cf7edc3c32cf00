#pragma once
// The background a classical cut-out separates the figure from: read off the picture's border,
// either one colour (white, a flat colour) or a smooth shade across the picture (a studio
// gradient, a vignette). A figure that the frame cuts covers part of the border; it is left
// out of the estimate.
//
//   const auto background = stageload::evenBackground(rgb);
//   if (background.even()) distance = colourDistance(rgb, background.colour);

#include "engine/core/torch_core.h"

namespace stageload {

/// Under this spread (EvenBackground::spread) the background is even.
inline constexpr double kEvenBackgroundSpread = 0.02;

struct EvenBackground {
    /// [3,1,1] for one colour, else [3,H,W]: the background's colour behind every pixel.
    torch::Tensor colour;
    /// How far the border's pixels stray from `colour`, 0..1. One colour: the 95th percentile
    /// of the border's colour distances (of all, or of those not in a ground shadow running
    /// out of the frame: evenBackground). A shade: the ring's sides cut into four pieces
    /// each, the median of the pieces' 95th percentiles (a figure the frame cuts covers a few
    /// pieces). Under kEvenBackgroundSpread the background is even.
    double spread = 1.0;

    bool even() const { return spread < kEvenBackgroundSpread; }
    /// One colour, not a shade.
    bool flat() const { return colour.dim() == 3 && colour.size(1) == 1 && colour.size(2) == 1; }
};

/// The picture's outermost pixels (a ring 1 % of the short side wide) of `image` [C,H,W],
/// [C,N].
torch::Tensor borderPixels(const torch::Tensor& image);

/// The background of `rgb` [3,H,W]: the border's median colour when the border's spread
/// about it is under kEvenBackgroundSpread, or when most of the border is that colour (what
/// strays is a figure, a shadow or a blob crossing the frame; the spread is then measured
/// without the border's pixels that are that colour darkened evenly, a ground shadow running
/// out of the frame). Else the smooth shade (per channel a quadratic in x and y fitted to the
/// border, the pixels far from it left out) when the border strays less from that: a gradient.
EvenBackground evenBackground(const torch::Tensor& rgb);

}  // namespace stageload
