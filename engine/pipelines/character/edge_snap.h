#pragma once
// Moving a learned background remover's edge onto the picture's. U²-Netp sees the picture at
// 320 × 320 and its mask, grown back to full size, runs a pixel or two off the figure's edge
// (most often outside it, taking a ring of background along). Where the background is smooth
// (flat, a gradient, blurred blobs) each edge pixel says by its colour how much of it is
// figure: a mix of the figure's colour beside it and the background's behind it.
//
// It runs on the learned mask after the outline has completed it (closeByOutline adds the
// outline's anti-aliased pixels back, a ring this takes off again where they are mostly
// background), and again on the classical cut-out, alone or completing the learned mask (its
// guided filter shrinks a part a few pixels across):
//
//   soft = snapToColourEdge(rgb, closeByOutline(rgb, withoutGroundShadows(rgb, refineMask(...))));

#include "engine/core/torch_core.h"

namespace stageload {

/// `soft` [H,W] (0..1) with its edge moved onto the edge in `rgb` [3,H,W], a step at a time
/// inwards or outwards from the mask's edge (at most about 1/150 of the picture's long side,
/// at least 2 px). Each edge pixel's colour c is taken as a mix of the smooth background B
/// behind it (smoothBackground) and one colour F of the figure's inside within 3 px, the one
/// whose mix explains c best: its coverage is a = (c − B)·(F − B) / |F − B|², and it is figure
/// when a ≥ ½, less what 8-bit rounding takes off a pixel covered exactly half. Pixels that
/// flip take a as their soft value (at least ½ for those that become figure). The edge stays
/// where it was where no figure colour stands clear of the background's own noise (a busy
/// background, a part in the background's colour), where no mix explains the pixel (a thin
/// part of a colour of its own), and where the pixel outside is the background darkened evenly
/// over a patch wider than a stroke (a shadow; a grey part's anti-aliased rim on white is a
/// thin ring, judged).
torch::Tensor snapToColourEdge(const torch::Tensor& rgb, const torch::Tensor& soft);

}  // namespace stageload
