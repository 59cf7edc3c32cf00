#pragma once
// Where the learned background removers' weights live and whether they are installed, for the
// pipeline (which loads them), the CLI and the app (which show what is missing). No Torch and
// no Qt here. Pure and thread-safe; nothing throws.
//
//   if (!stageload::removerInstalled(stageload::RemoverChoice::U2NetP))
//       menu.markNotInstalled("u2netp", stageload::installHint(stageload::RemoverChoice::U2NetP));

#include <filesystem>
#include <string>

#include "engine/api/choices.h"

namespace stageload {

/// ${STAGELOAD_WEIGHTS_DIR} or ${XDG_DATA_HOME:-~/.local/share}/stageload/weights.
std::filesystem::path defaultWeightsDir();

/// The weight file of a learned remover in `dir` (defaultWeightsDir() when empty); empty for
/// Auto and Classical, which have none.
std::filesystem::path removerWeightsFile(RemoverChoice remover, const std::filesystem::path& dir = {});

/// True for Auto and Classical; for a learned remover, when its weight file exists.
bool removerInstalled(RemoverChoice remover, const std::filesystem::path& dir = {});

/// How to install a learned remover, in one sentence ("" for Auto and Classical).
std::string installHint(RemoverChoice remover);

}  // namespace stageload
