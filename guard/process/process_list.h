#pragma once
// The machine's processes as the guard sees them: pid, parent, process group and the whole
// command line (what `pgrep -f` matches against).
//
//   for (const auto& p : stageload::listProcesses())
//       if (p.pgid == child) total += stageload::readFootprint(p.pid);
//   auto mine = stageload::selfAndAncestors(stageload::listProcesses());  // never "busy"
//
// Linux reads /proc/<pid>/stat and /proc/<pid>/cmdline; macOS uses sysctl(KERN_PROC_ALL,
// KERN_PROCARGS2). Processes that vanish while being read are skipped. Thread-safe; the list
// functions throw FileError only when the process table itself cannot be read.

#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

namespace stageload {

struct ProcessInfo {
    pid_t pid = 0;
    pid_t ppid = 0;
    pid_t pgid = 0;
    char state = '?';     ///< R, S, D, Z, T ... ('Z': exited, not yet reaped)
    std::string comm;     ///< short name
    std::string cmdline;  ///< arguments joined by spaces; "[comm]" when the kernel gives none
    long long startTicks = -1;  ///< start time, clock ticks after boot (-1: not in the text)
    /// CPU time it used and that of its children it waited for (utime + stime + cutime +
    /// cstime), clock ticks (-1: not in the text; macOS).
    long long cpuTicks = -1;
};

/// Parses "/proc/<pid>/stat" text ("123 (my prog) S 1 123 ..."); comm may hold spaces and ')'.
/// Returns nullopt for text that is not a stat line.
std::optional<ProcessInfo> parseProcStat(std::string_view text);

/// Seconds since this process started, a re-execution included (exec keeps the start time),
/// to the kernel's clock tick (10 ms). nullopt where the system cannot tell.
std::optional<double> processAgeSeconds();

/// Turns the NUL-separated /proc/<pid>/cmdline into one line ("sh -c sleep 1").
std::string joinCmdline(std::string_view raw);

/// Every process visible now. With `withCmdline` false only the stat fields are read (cheaper).
std::vector<ProcessInfo> listProcesses(bool withCmdline = true);

/// The process `pid` now (stat fields only), or nullopt when there is none.
std::optional<ProcessInfo> readProcess(pid_t pid);
/// True while `pid` runs and is the process that started at `startTicks` (not a later one
/// given the same pid); an exited process (a zombie) does not run.
bool processRuns(pid_t pid, long long startTicks);

/// This process and all its ancestors up to pid 1 (found through `processes`).
std::set<pid_t> selfAndAncestors(const std::vector<ProcessInfo>& processes);

/// CPU seconds used so far by the processes of group `pgid` and by `others` (descendants that
/// left it), each with the children it waited for; nullopt where the list has no CPU times.
std::optional<double> groupCpuSeconds(const std::vector<ProcessInfo>& processes, pid_t pgid,
                                      const std::vector<pid_t>& others = {});
/// Pids of the processes in group `pgid` that have not exited (zombies excluded).
std::vector<pid_t> liveGroupMembers(const std::vector<ProcessInfo>& processes, pid_t pgid);

}  // namespace stageload
