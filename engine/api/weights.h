#pragma once
// Where the learned background removers' weights live and whether they are installed, for the
// pipeline (which loads them), the CLI and the app (which show what is missing). No Torch and
// no Qt here. Pure and thread-safe; nothing throws.
//
//   if (!stageload::removerInstalled(stageload::RemoverChoice::U2NetP))
//       menu.markNotInstalled("u2netp", stageload::installHint(stageload::RemoverChoice::U2NetP));

#include <filesystem>
#include <string>
#include <vector>

#include "engine/api/choices.h"

namespace stageload {

/// Where this user's installs go: ${STAGELOAD_WEIGHTS_DIR} or
/// ${XDG_DATA_HOME:-~/.local/share}/stageload/weights.
std::filesystem::path defaultWeightsDir();

/// The folders weights are looked for in, first match wins: `dir` alone when given, else
/// ${STAGELOAD_WEIGHTS_DIR} alone when set, else defaultWeightsDir() and then the machine's
/// folders for every user (sharedWeightsDirs(): /usr/local/share/stageload/weights,
/// /usr/share/stageload/weights, the program's own <prefix>/share/stageload/weights).
std::vector<std::filesystem::path> weightsSearchDirs(const std::filesystem::path& dir = {});

/// The weight file of a learned remover: the first of weightsSearchDirs(dir) that has it, else
/// where it would be installed (in the first of them). Empty for Auto and Classical.
std::filesystem::path removerWeightsFile(RemoverChoice remover, const std::filesystem::path& dir = {});

/// True for Auto and Classical; for a learned remover, when its weight file exists.
bool removerInstalled(RemoverChoice remover, const std::filesystem::path& dir = {});

/// How to install a learned remover, in one sentence ("" for Auto and Classical).
std::string installHint(RemoverChoice remover);

}  // namespace stageload
