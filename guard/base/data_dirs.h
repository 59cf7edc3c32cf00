#pragma once
// Where the programs find what the project ships with them (generator definitions, samples, the
// weights installer) and the folders learned weights may be installed in, found from the running
// program's own location so that an installed copy works wherever its prefix is (/usr, /opt/…,
// a tarball unpacked anywhere). No path of the build machine is compiled in: the build tree
// mirrors the installed layout (build/ui/share/stageload links to the sources).
//
//   <prefix>/bin/stageload, <prefix>/bin/stageload-studio
//   <prefix>/libexec/stageload/{stageload-engine,stageload-keeper}         programPrefix()
//   <prefix>/share/stageload/{generators,samples,install-weights.sh,…}   dataDir()
//   <prefix>/share/stageload/weights                                       systemWeightsDir()
//
// Plain C++, thread-safe; nothing throws.

#include <filesystem>
#include <vector>

namespace stageload {

/// The running program's file (from /proc/self/exe); empty when it cannot be read.
std::filesystem::path programFile();

/// The folder of programFile(); empty when it cannot be read.
std::filesystem::path programDir();

/// The prefix a program in `programDir` is installed under: the folder above <prefix>/bin (or
/// any folder a program is in), and above <prefix>/libexec/stageload. Empty for an empty path.
std::filesystem::path prefixOf(const std::filesystem::path& programDir);
/// prefixOf(programDir()).
std::filesystem::path programPrefix();

/// ${STAGELOAD_DATA_DIR}, else <programPrefix>/share/stageload. It may not exist:
/// callers say which file is missing.
std::filesystem::path dataDir();

/// The weights folder that an administrator fills for every user of the machine:
/// <programPrefix>/share/stageload/weights (/usr/share/stageload/weights for the .deb).
std::filesystem::path systemWeightsDir();

/// Each entry of ${XDG_DATA_DIRS} (default /usr/local/share:/usr/share) + "/stageload/weights",
/// then systemWeightsDir() when it is not one of them; without duplicates, in that order.
std::vector<std::filesystem::path> sharedWeightsDirs();

}  // namespace stageload
