#include "ui/cli/commands.h"

#include <cstdio>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "engine/api/failure.h"
#include "guard/base/error.h"

namespace stageload::cli {

void setUpApp(CLI::App& app) {
    app.require_subcommand(1);
    app.set_version_flag("--version", "stageload " STAGELOAD_VERSION);
    spdlog::set_pattern("%^%l%$: %v");
}

std::optional<int> parseCommandLine(CLI::App& app, int argc, char** argv) {
    try {
        app.parse(argc, argv);
        return std::nullopt;
    } catch (const CLI::CallForHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForAllHelp& e) {
        return app.exit(e);
    } catch (const CLI::CallForVersion& e) {
        return app.exit(e);
    } catch (const CLI::ParseError& e) {
        app.exit(e);
        return 2;
    }
}

int runSelected(const Selected& selected) {
    // Whatever a command lets through (a LibTorch error, a filesystem error, no memory) ends in
    // a message and an exit code of its kind, never an abort.
    try {
        return selected ? selected() : 0;
    } catch (const UsageError& e) {
        std::fprintf(stderr, "stageload: error: %s\n", e.what());
        return 2;
    } catch (const Error& e) {
        std::fprintf(stderr, "stageload: error: %s\n", e.what());
        return 1;
    } catch (...) {
        const auto f = classifyFailure(std::current_exception());
        std::fprintf(stderr, "stageload: error: %s\n", f.message.c_str());
        return exitCode(f.kind);
    }
}

}  // namespace stageload::cli
