#include "ui/cli/engine_commands.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>

#include <CLI/CLI.hpp>

#include "guard/base/data_dirs.h"
#include "guard/base/huge_page_malloc.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

constexpr std::string_view kBench = "bench";

/// One command the engine runs for `stageload` (all but `run`, which `stageload` parses itself
/// to keep generator runs Torch-free).
struct EngineCommand {
    std::string_view group;  ///< "" for a top-level command, else its parent ("bench")
    std::string_view name;
    std::string_view description;
};

constexpr EngineCommand kCommands[] = {
    {"", "probe",
     "Resident memory of one model before and after loading, warm-up, inference and release, with "
     "the peak inside each"},
    {"", "demo", "Run the stand-in cascade staged, then eager, and compare them stage by stage"},
    {kBench, "cascade", "Run the stand-in cascade (Pixal3D's stage plan, scaled) once"},
    {kBench, "compare", "Compare two fingerprint folders stage by stage (exit 1 if any differ)"},
    {kBench, "character",
     "Every sample picture through the character pipeline, staged and eager: per stage seconds "
     "and peak memory from the traces"},
};

}  // namespace

std::string engineCommandDescription(std::string_view group, std::string_view name) {
    for (const auto& c : kCommands)
        if (c.group == group && c.name == name) return std::string(c.description);
    throw std::logic_error("not an engine command: " + std::string(group) + " " + std::string(name));
}

CLI::App* addBenchGroup(CLI::App& app) {
    auto* bench = app.add_subcommand(
        std::string(kBench), "Benchmarks: the stand-in cascade, run comparisons, the meter, the guard and start times");
    bench->require_subcommand(1);
    return bench;
}

bool isEngineCommandLine(int argc, char** argv) {
    if (argc < 2) return false;
    const std::string_view first = argv[1];
    const std::string_view second = argc > 2 ? std::string_view(argv[2]) : std::string_view();
    for (const auto& c : kCommands)
        if (c.group.empty() ? first == c.name : first == c.group && second == c.name) return true;
    return false;
}

std::filesystem::path engineProgram() {
    if (const char* set = std::getenv("STAGELOAD_ENGINE"); set && *set) return set;
    const auto prefix = programPrefix();
    if (prefix.empty()) return "stageload-engine";
    return prefix / "libexec" / "stageload" / "stageload-engine";
}

int execEngine(char** argv) {
    const std::string engine = engineProgram().string();
    std::fflush(nullptr);
    execWithHugePageMalloc(engine.c_str(), argv);
    std::fprintf(stderr,
                 "stageload: error: cannot start %s, the program that runs models: %s (reinstall "
                 "Stageload, or set STAGELOAD_ENGINE to it)\n",
                 engine.c_str(), std::strerror(errno));
    return 127;
}

void addEngineCommandEntries(CLI::App& app, CLI::App& bench, Selected& selected, char** argv) {
    for (const auto& c : kCommands) {
        CLI::App& parent = c.group.empty() ? app : bench;
        auto* cmd = parent.add_subcommand(std::string(c.name), std::string(c.description));
        cmd->allow_extras();  // its options are the engine's
        cmd->callback([argv, &selected] { selected = [argv] { return execEngine(argv); }; });
    }
}

}  // namespace stageload::cli
