#pragma once
// Completing a learned background remover's mask with the figure's parts apart from the body.
// U²-Netp finds the character and leaves out what floats beside it (a potion, an orb, a
// chain's beads, a dropped weapon), which is the artist's as much as the body is. Such a part
// stands out from the background around it; the background is taken to be smooth (flat, a
// gradient, blurred blobs), so it is estimated from what lies away from the mask. A part it
// cut off at the mask's edge (in a hue close to the background's) stands out so too. Against
// the same estimate, the background U²-Netp takes for the figure where the figure encloses it
// (a ring's inside on noise) is taken out.
//
//   soft = stageload::addDetachedParts(rgb, closeByOutline(rgb, learnedSoft));

#include <optional>

#include "engine/core/torch_core.h"
#include "engine/pipelines/character/even_background.h"

namespace stageload {

/// smoothBackground's cells: this share of the picture's long side across.
inline constexpr double kBackgroundCellShare = 1.0 / 32.0;

/// The background behind `rgb` [3,H,W] where `mask` [H,W] (1 = subject) is not: the median
/// colour of the unmasked pixels in cells `cellShare` of the long side across (at least 8 px),
/// cells with too few of them filled from their neighbours, and the whole grown smoothly to
/// the picture's size. [3,H,W].
torch::Tensor smoothBackground(const torch::Tensor& rgb, const torch::Tensor& mask,
                               double cellShare = kBackgroundCellShare);

/// What lies within reach of the mask of `soft` [H,W] (0..1): the mask grown by 1/100 of the
/// picture's long side, at least 3 px (a pixel or two of its edge, a glow), which a background
/// estimated beside the mask leaves out. [H,W] bool.
torch::Tensor maskReach(const torch::Tensor& soft);

/// The background behind a figure whose remover's mask is `soft` [H,W] (0..1), estimated from
/// what lies beyond its reach: smoothBackground, first in cells 1/8 of the long side across,
/// then in its own from what does not stand out of that rough estimate; with the spread of
/// what it was estimated from about it (the 95th percentile of their colour distances). Even
/// on blurred blobs of colour as on a gradient; not on noise or texture. Spread 1 when too
/// little of the picture is left.
EvenBackground backgroundBehind(const torch::Tensor& rgb, const torch::Tensor& soft);

/// The least contrast that stands clear of the background's own noise: 0.08 (colour distance,
/// 0..1), or 2.5 times the 95th percentile of `residual` [H,W] (each pixel's colourDistance
/// from smoothBackground) over the pixels where `where` [H,W] bool is set, if larger. Empty
/// when fewer than 64 pixels are measured.
std::optional<double> noiseFloor(const torch::Tensor& residual, const torch::Tensor& where);

/// `soft` [H,W] (0..1) less the background seen through the figure that a learned remover took
/// for it (a ring's inside, the gap between an arm and the body): regions inside the mask (not
/// joined to what it leaves open at the picture's border) where, around each pixel, `rgb`
/// [3,H,W] is like the background beside the mask is about itself: its mean colour no further
/// from the background's estimate than 95 % of the background's, its grain about the
/// background's. On noise drawn pixel by pixel only (where a box blur quiets the background
/// 4-fold: not on a busy drawing or a photo's texture, where too much of the figure is like
/// the background by these measures); on an even background completedByClassical leaves such
/// regions out.
torch::Tensor withoutBackgroundSeenThrough(const torch::Tensor& rgb, const torch::Tensor& soft);

/// `soft` [H,W] (0..1) with every part apart from its mask added that differs clearly from the
/// smooth background (beyond the background's own noise; on noise drawn pixel by pixel, in
/// its mean around each pixel too, as a potion's does), lies apart from the mask (not within
/// 2 px of it), does not reach the picture's border, is at most half the mask's size (larger,
/// it is scenery) and is not a shadow (the background darkened evenly); of each, the pixels
/// that stand out at least half as much as most of it (a glow fades out below), with what they
/// enclose (an orb's inside, which may look like its own glow). `minArea`: the fewest pixels a
/// part may have. And what the remover cut off at the mask's edge (a crescent of hair, a
/// hammer's head in the background's hue): what stands out pixel by pixel within the mask's
/// reach, beside it and past the rim of half-covered pixels round it, ending in a step (a
/// glow fades out) and no shadow.
torch::Tensor addDetachedParts(const torch::Tensor& rgb, const torch::Tensor& soft, std::int64_t minArea);

}  // namespace stageload
