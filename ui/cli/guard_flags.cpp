#include "ui/cli/guard_flags.h"

#include <CLI/CLI.hpp>
#include <cstdio>

#include "engine/api/failure.h"
#include "guard/policy/guard_options.h"
#include "guard/runner/guard_runner.h"

namespace stageload::cli {

GuardParams GuardFlags::params() const {
    GuardParams p;
    for (const auto& [key, text] : given) setGuardValue(p, *findGuardOption(key), text);
    p.busy = busy;
    p.tracePath = trace;
    validate(p);
    return p;
}

void addGuardFlags(CLI::App& cmd, GuardFlags& flags) {
    const GuardParams defaults;
    for (const auto& o : guardOptions()) {
        const std::string flag(o.flag);
        std::string help(o.help);
        if (o.kind == GuardValueKind::Patterns) {
            cmd.add_option(flag, flags.busy, help);
            continue;
        }
        const std::string value = guardValueText(defaults, o);
        if (!value.empty()) help += " (default " + value + ")";
        const std::string key(o.key);
        cmd.add_option_function<std::string>(
            flag, [&flags, key](const std::string& text) { flags.given[key] = text; }, help);
    }
}

int runGuarded(const GuardParams& params, const std::vector<std::string>& command) {
    if (const auto warning = guardWarning(params); !warning.empty())
        std::fprintf(stderr, "stageload: note: %s\n", warning.c_str());
    Guard guard(params);
    guard.onLog = [](const GuardLogEntry& e) {
        std::fprintf(stderr, "%s\n", e.line().c_str());
        std::fflush(stderr);
    };
    const int code = guard.run(command);
    // The command did its work, but the trace asked for is incomplete: what `run` says then.
    return code == 0 && !guard.traceProblem().empty() ? exitCode(FailureKind::CannotWrite) : code;
}

}  // namespace stageload::cli
