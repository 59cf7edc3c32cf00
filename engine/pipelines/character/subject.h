#pragma once
// Finding the character in the picture: the alpha channel when it is
// meaningful, else a learned background remover, else a classical cut-out from the border
// colour; edges refined at full resolution; cropped to the subject with a margin.

#include <functional>
#include <string>

#include <torch/torch.h>

#include "engine/pipelines/character/character_run.h"

namespace stageload {

/// [3,H,W] picture → [H,W] foreground probability at the same size.
using MaskPredictor = std::function<torch::Tensor(const torch::Tensor& rgb)>;

struct Subject {
    torch::Tensor rgb;    ///< [3,h,w] the crop
    torch::Tensor alpha;  ///< [h,w] soft coverage 0..1, zero outside the subject
    torch::Tensor region; ///< [H,W] uint8, the subject in the whole picture (1 inside)
    MaskSource source = MaskSource::Alpha;
};

/// True when an alpha channel separates a subject from a background: some pixels clearly
/// transparent, some clearly opaque.
bool alphaIsMeaningful(const torch::Tensor& alpha);

/// Foreground where colours differ from the border's (median) colour; threshold by Otsu.
torch::Tensor classicalMask(const torch::Tensor& rgb);

/// Guided filter (He et al.) of `mask` with the picture's luminance as guide: soft edges that
/// follow the picture's edges at full resolution.
torch::Tensor refineMask(const torch::Tensor& rgb, const torch::Tensor& mask);

/// The largest 4-connected region of `binary` (bool/uint8 [H,W]) with its holes smaller than
/// `holeFraction` of its area filled.
torch::Tensor largestRegion(const torch::Tensor& binary, double holeFraction);

/// Cuts the subject out of `rgba` ([4,H,W], alpha used only when `useAlpha`). `learned` (the
/// remover `learnedSource` names) may be empty: then the classical cut-out is used. `name` is
/// used in messages.
Subject extractSubject(const torch::Tensor& rgba, bool useAlpha, const MaskPredictor& learned,
                       MaskSource learnedSource, const std::string& name);

}  // namespace stageload
