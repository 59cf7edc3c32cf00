#pragma once
// Runs one command in a new process group and stops that group — the only processes the guard
// ever signals.
//
//   stageload::GroupCommand cmd({"python3", "run.py"});   // throws StartError (exit 127)
//   pid_t group = cmd.pgid();
//   if (auto code = cmd.poll()) return *code;             // its exit code, 128+N for signal N
//   cmd.stop(5.0, [&](double s) { block.wait(s); });      // SIGTERM, SIGKILL after 5 s
//
// The child gets `childMask` as its signal mask (the guard's mask before it blocked signals).
// stop() sends SIGTERM to the group, then SIGKILL to what is left after `grace`, and returns
// when no member is left (or after 5 more seconds: false). With setReaper(true) (Linux), the
// guard adopts orphaned members so it can reap them and "gone" means gone.
// The destructor does not signal anything. Not thread-safe: one owner thread.
// Descendants that leave the group (setsid) are found by track() and stopped with it.
// GroupCommand(adopt, pgid) stands for a group another process started (the keeper's view of
// its owner's run): stop(), track() and groupAlive() work on it; poll() reaps nothing.

#include <csignal>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "guard/base/error.h"
#include "guard/process/process_list.h"

namespace stageload {

/// The command could not be started (not found, not executable). The message names it.
class StartError : public Error {
public:
    using Error::Error;
};

/// How the command is started, beyond its argv.
struct SpawnOptions {
    std::string workdir;  ///< the child's working folder; empty: ours
    /// Variables set (or replaced) in the child's environment; the rest is inherited.
    std::vector<std::pair<std::string, std::string>> env;
    /// stdout and stderr to pipes the owner reads (stdoutFd(), stderrFd()); stdin from /dev/null.
    bool captureOutput = false;
};

class GroupCommand {
public:
    struct Adopt {};
    /// A group this process did not start: `pgid` is its leader's pid (which may have exited).
    GroupCommand(Adopt, pid_t pgid);
    GroupCommand(const std::vector<std::string>& argv, const sigset_t* childMask = nullptr,
                 const SpawnOptions& options = {});
    ~GroupCommand();  ///< closes the pipes; signals nothing
    GroupCommand(const GroupCommand&) = delete;
    GroupCommand& operator=(const GroupCommand&) = delete;

    /// The read ends of the child's stdout and stderr (non-blocking), -1 unless captured.
    int stdoutFd() const { return out_; }
    int stderrFd() const { return err_; }

    pid_t pid() const { return pid_; }
    pid_t pgid() const { return pid_; }

    /// Reaps exited members of the group; returns the leader's code once it has exited.
    std::optional<int> poll();
    /// True while any process of the group runs. A zombie holds no memory and does not count:
    /// an adopted group's exited members wait for a parent that is not this process (init, a
    /// slow one in some containers) to reap them. Where the process table cannot be read, any
    /// process of the group counts.
    bool groupAlive() const;
    /// Remembers the command's descendants among `processes` that left its group (setsid(),
    /// setpgid()), so stop() reaches them too: "nothing left running" covers them. Call it now
    /// and then while the command runs (the guard does, twice a second).
    void track(const std::vector<ProcessInfo>& processes);
    /// The descendants outside the group that track() found and that still run.
    std::vector<pid_t> escaped() const;
    /// Every descendant track() found outside the group, with its start time (clock ticks since
    /// boot, to tell it from a later process given the same pid), whether it runs now or not.
    const std::map<pid_t, long long>& escapedStarts() const { return escaped_; }
    /// Counts `pid` (started at `startTicks`) as a descendant that left the group (what another
    /// process's track() found).
    void addEscaped(pid_t pid, long long startTicks) { escaped_.emplace(pid, startTicks); }
    /// Sends `sig` to the whole group. Returns false when the group is already gone.
    bool signalGroup(int sig) const;
    /// SIGTERM (with SIGCONT, so a stopped member gets it), then SIGKILL after `grace` seconds,
    /// to the group and to the descendants that left it; `sleep(s)` waits (and may wake early). True when all of them are gone.
    bool stop(double grace, const std::function<void(double)>& sleep);
    /// The leader's exit code once known (after poll() or stop()).
    std::optional<int> exitCode() const { return code_; }

    /// Makes this process adopt orphaned descendants (Linux PR_SET_CHILD_SUBREAPER).
    static bool setReaper(bool on);

private:
    pid_t pid_ = -1;
    std::optional<int> code_;
    int out_ = -1;
    int err_ = -1;
    std::map<pid_t, long long> escaped_;  ///< pid -> its start time (ticks), against pid reuse
};

/// 128+N for a death by signal N, else the exit status.
int exitCodeFromStatus(int status);

}  // namespace stageload
