#pragma once
// The guard's flags on a subcommand, made from the guard's option table: `stageload guard` and
// `stageload run` take the same flags with the same help and defaults, and run a command
// under the guard the same way.
//
//   auto flags = std::make_shared<stageload::cli::GuardFlags>();
//   stageload::cli::addGuardFlags(*cmd, *flags);
//   ... after parsing:
//   stageload::GuardParams p = flags->params();   // SettingError names the flag
//
// Values the user did not give keep GuardParams' defaults.

#include <map>
#include <string>
#include <vector>

#include "guard/policy/guard_params.h"

namespace CLI {
class App;
}

namespace stageload::cli {

struct GuardFlags {
    std::map<std::string, std::string> given;  ///< option key -> text, for the flags given
    std::vector<std::string> busy;             ///< the repeatable --busy
    std::string trace;                         ///< --trace, when the command has it

    /// Defaults, then each given value; validated (throws SettingError).
    GuardParams params() const;
};

/// Adds every row of guardOptions() as a flag of `cmd`, with its default in the help text.
void addGuardFlags(CLI::App& cmd, GuardFlags& flags);

/// Runs `command` under the guard with `params`, its log on stderr (a likely mistake in the
/// params first, as a note). Returns the guard's exit code; 1 for a command that succeeded
/// but whose trace was lost (the command's success is not the guard's).
int runGuarded(const GuardParams& params, const std::vector<std::string>& command);

}  // namespace stageload::cli
