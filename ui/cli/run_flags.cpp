#include "ui/cli/run_flags.h"

#include <algorithm>

#include <CLI/CLI.hpp>

namespace stageload::cli {

RunSettings RunFlags::settings() const {
    RunSettings s;
    for (const auto& [field, text] : given) setSetting(s, field, text);
    validate(s);
    return s;
}

void addRunFlags(CLI::App& cmd, RunFlags& flags, std::initializer_list<RunField> fields) {
    const RunSettings defaults;
    for (const auto& f : runFields()) {
        if (fields.size() != 0 && std::find(fields.begin(), fields.end(), f.field) == fields.end())
            continue;
        const std::string help =
            std::string(f.help) + " (default " + settingText(defaults, f.field) + ")";
        cmd.add_option_function<std::string>(
            std::string(f.flag),
            [&flags, field = f.field](const std::string& text) { flags.given[field] = text; }, help);
    }
}

}  // namespace stageload::cli
