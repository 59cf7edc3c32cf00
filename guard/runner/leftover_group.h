#pragma once
// A guarded run's process group still running after the program that watched it is gone (the
// app and its keeper both killed, the keeper failed): found from the run's trace, which names
// the group and when its leader started, so the next start can offer to stop it.
//
//   if (const auto left = stageload::findLeftoverGroup(record.trace))
//       if (askUser(left->describe())) stageload::stopLeftoverGroup(*left, 5.0);
//
// Linux and macOS (through listProcesses()). Thread-safe; nothing throws.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>
#include <sys/types.h>

namespace stageload {

/// The keys of a guarded run's trace start line that name its group: the group id and its
/// leader's start time (clock ticks after boot), so a later group given the same id is not
/// taken for it.
inline constexpr const char* kGroupKey = "pgid";
inline constexpr const char* kGroupStartKey = "group_start_ticks";

struct LeftoverGroup {
    pid_t pgid = 0;
    std::vector<pid_t> members;  ///< that still run
    std::int64_t footprint = 0;  ///< bytes they hold together
    std::string command;         ///< the trace's command, joined by spaces ("" when it has none)

    /// "group 1234 (python3 run.py …): 3 processes holding 12.4 GiB"
    std::string describe() const;
};

/// The group a trace's start line names, if members of it still run: those of its process group
/// that started no earlier than its leader (the leader itself must be that very process when it
/// is still there). nullopt when none runs, when the line names no group or no start time (the
/// guard wrote it before it kept one), or when the file cannot be read.
std::optional<LeftoverGroup> findLeftoverGroup(const std::string& tracePath);
std::optional<LeftoverGroup> findLeftoverGroup(const nlohmann::json& start);

/// SIGTERM to the group (SIGCONT with it), SIGKILL after `grace` seconds; true when it is gone.
bool stopLeftoverGroup(const LeftoverGroup& group, double grace);

}  // namespace stageload
