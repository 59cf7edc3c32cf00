#pragma once
// What stageload-keeper does (keeper_main.cpp is only its entry point): it reads its owner's
// lines from a socket and, when the owner is gone without saying "done", stops the group it
// was told about — setsid'd descendants included — and appends a stop mark to the run's trace.
//
// Lines, owner -> keeper (anything else is ignored):
//   group PGID GRACE      the command's process group; seconds between SIGTERM and SIGKILL
//   escaped PID TICKS     a descendant that left the group, with its start time (clock ticks)
//   trace EPOCH_NS PATH   the run's trace; its t counts from EPOCH_NS (steady clock, ns)
//   done                  the run ended and its group is stopped: leave without signalling
// End of file before "done" means the owner ended (killed, crashed): the keeper stops the group.
// A SIGTERM, SIGINT, SIGHUP or SIGQUIT to the keeper (a logout reaches every process of the
// session) does not stop it: it gives the owner GRACE + 10 s to stop the run itself, then stops
// the group on its own.
//
//   int code = stageload::keepWatch(0, log);   // the keeper's stdin; returns its exit code

#include <functional>
#include <optional>
#include <string>

#include <sys/types.h>

namespace stageload {

/// One parsed owner line.
struct KeeperMessage {
    enum class Kind { Group, Escaped, Trace, Done } kind = Kind::Done;
    pid_t pid = -1;            ///< Group: the pgid; Escaped: the descendant
    double grace = 5.0;        ///< Group
    long long ticks = 0;       ///< Escaped: its start time
    long long epochNs = 0;     ///< Trace
    std::string path;          ///< Trace
};

/// The message a line carries, or nullopt for anything else (the keeper ignores it).
std::optional<KeeperMessage> parseKeeperLine(const std::string& line);

/// The trace line the keeper appends: a stop mark at `t` seconds naming `reason`.
std::string keeperStopLine(const std::string& reason, double t);

/// Watches `fd` until "done" (returns 0) or its end (stops the group, returns 0; 1 when some
/// process survived SIGKILL). `log` gets what the keeper did, one line each.
int keepWatch(int fd, const std::function<void(const std::string&)>& log);

}  // namespace stageload
