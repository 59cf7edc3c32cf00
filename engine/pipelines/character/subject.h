#pragma once
// Finding the character in the picture: the alpha channel when it is meaningful, else a
// learned background remover (completed by the figure's drawn outline, its edge then snapped
// onto the picture's, and on an even or smooth background by the classical cut-out), else a
// classical cut-out from the border's colour; edges refined at full resolution; every part of
// it kept (a held item, a floating orb), specks dropped; cropped to the subject with a margin.

#include <functional>
#include <string>
#include <vector>

#include "engine/core/torch_core.h"

#include "engine/pipelines/character/character_run.h"
#include "engine/pipelines/character/even_background.h"

namespace stageload {

/// [3,H,W] picture → [H,W] foreground probability at the same size.
using MaskPredictor = std::function<torch::Tensor(const torch::Tensor& rgb)>;

struct Subject {
    torch::Tensor rgb;    ///< [3,h,w] the crop
    /// The crop's top-left corner in the picture, in pixels (negative where the crop runs past
    /// the picture's edge and is padded).
    std::int64_t cropX = 0, cropY = 0;
    torch::Tensor alpha;  ///< [h,w] soft coverage 0..1, zero outside the subject
    torch::Tensor region; ///< [H,W] uint8, the subject in the whole picture (1 inside)
    MaskSource source = MaskSource::Alpha;
    int parts = 0;         ///< separate regions kept
    int droppedParts = 0;  ///< specks dropped (smaller than the minimum share)
    /// The picture's edges the subject touches ("top", "bottom", "left", "right"): it is
    /// probably cut off there.
    std::vector<std::string> cutAt;
};

/// The regions of a mask that make up the subject.
struct SubjectParts {
    torch::Tensor mask;  ///< [H,W] uint8, 1 inside a kept region
    int kept = 0;
    int dropped = 0;
};

/// True when an alpha channel separates a subject from a background: some pixels clearly
/// transparent, some clearly opaque.
bool alphaIsMeaningful(const torch::Tensor& alpha);

/// Foreground where colours differ from the background read off the border (evenBackground:
/// its median colour, or the smooth shade of a gradient), threshold by Otsu, plus
/// every region the foreground encloses that does not have the background's colour, less the
/// shadows (an even darkening of the background) that join the background.
torch::Tensor classicalMask(const torch::Tensor& rgb);
/// The same against a background already read off the border (evenBackground(rgb)).
torch::Tensor classicalMask(const torch::Tensor& rgb, const EvenBackground& background);

/// True when the picture's background is one even colour: 95 % of the border's pixels within
/// 0.02 of its median colour. The background a classical cut-out separates best, detached
/// parts included. (On a gradient, evenBackground, or on blurred blobs, backgroundBehind, the
/// classical cut-out completes a learned remover's mask.)
bool plainBackground(const torch::Tensor& rgb);

/// Guided filter (He et al.) of `mask` with the picture's luminance as guide: soft edges that
/// follow the picture's edges at full resolution.
torch::Tensor refineMask(const torch::Tensor& rgb, const torch::Tensor& mask);

/// The 4-connected regions of `binary` (bool/uint8 [H,W]) whose area, with what they enclose
/// (a ring's inside), is at least `minShare` (0..1) of all the regions' area together, with
/// the holes smaller than `holeFraction` of the kept area filled (holes that touch the
/// picture's border are background, not holes). A region inside another's hole is one part
/// with it.
SubjectParts subjectParts(const torch::Tensor& binary, double minShare, double holeFraction);

/// The picture's edges (see Subject::cutAt) that `region` ([H,W]) has pixels on.
std::vector<std::string> edgesTouched(const torch::Tensor& region);

/// Cuts the subject out of `rgba` ([4,H,W], alpha used only when `useAlpha`). `learned` (the
/// remover `learnedSource` names) may be empty: then the classical cut-out is used. Parts
/// under `minPartShare` (0..1) of the subject's area are dropped. `name` is used in messages.
Subject extractSubject(const torch::Tensor& rgba, bool useAlpha, const MaskPredictor& learned,
                       MaskSource learnedSource, double minPartShare, const std::string& name);

}  // namespace stageload
