#pragma once
// The run settings' flags on a subcommand, made from the engine's settings table: `stageload
// run` and `stageload bench character` take the same flags with the same help and defaults.
//
//   auto flags = std::make_shared<stageload::cli::RunFlags>();
//   stageload::cli::addRunFlags(*cmd, *flags, {RunField::TextureSize, RunField::Triangles});
//   ... after parsing:
//   stageload::RunSettings s = flags->settings();   // SettingError names the flag
//
// Values the user did not give keep RunSettings' defaults.

#include <initializer_list>
#include <map>
#include <string>

#include "engine/api/run_settings.h"

namespace CLI {
class App;
}

namespace stageload::cli {

struct RunFlags {
    std::map<RunField, std::string> given;  ///< the flags given, as typed

    /// Defaults, then each given value; validated (throws SettingError).
    RunSettings settings() const;
    bool has(RunField field) const { return given.count(field) != 0; }
};

/// Adds the flags of `fields` (all of runFields() when empty) to `cmd`.
void addRunFlags(CLI::App& cmd, RunFlags& flags, std::initializer_list<RunField> fields = {});

}  // namespace stageload::cli
