#include "ui/cli/guard_flags.h"

#include <CLI/CLI.hpp>

#include "guard/policy/guard_options.h"

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

}  // namespace stageload::cli
