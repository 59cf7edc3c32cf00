#pragma once
// The memory of one process group, read many times a second for almost nothing: what the
// guard's meter sums for a generator and everything it started.
//
//   stageload::GroupMeter group(pgid);
//   for (;;) {
//       std::int64_t bytes = group.footprint();   // the live members' resident memory, summed
//       int n = group.processes();                // how many there were
//   }
//
// A scan of every process in /proc (what finding a group's members takes) costs a few
// milliseconds on a desktop; at 10 samples a second that is 2 % of a core. So the meter keeps
// the group's members instead, each with its /proc/<pid>/statm and the children file of its
// main thread held open: a sample is two small reads per member, plus one /proc/<pid>/stat read
// for each new child, to learn whether it stayed in the group (children are looked for at most
// every 0.1 s, so a faster sampler pays only the statm reads). A full scan runs every
// `fullScanEvery` seconds (and at the first sample): it finds members that a member's other
// threads started (their children files are not read) and processes that joined the group some
// other way. A file held open belongs to the process it was opened for, so an exited member
// reads as gone even once its pid is given to a new process; exited members not yet reaped
// (zombies, which hold no memory) are not counted.
//
// Linux; elsewhere (macOS), and for a group of more than kMaxKept members (or where no file
// descriptor is left), every sample is a full scan with readFootprint(). One owner: calls
// are serialised by a mutex, so the meter thread and a reader of processes() may share it.
// Throws nothing: a process that vanishes while being read is simply gone.

#include <sys/types.h>

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>

namespace stageload {

class GroupMeter {
public:
    /// `clock`: seconds, for the full-scan schedule (default: a steady clock).
    explicit GroupMeter(pid_t pgid, double fullScanEvery = 2.0, std::function<double()> clock = {});
    ~GroupMeter();
    GroupMeter(const GroupMeter&) = delete;
    GroupMeter& operator=(const GroupMeter&) = delete;

    pid_t pgid() const { return pgid_; }
    /// The group's footprint now: the resident memory of its live members, summed (0 when it
    /// has none).
    std::int64_t footprint();
    /// The live members the last footprint() counted.
    int processes() const;
    /// Full scans of /proc so far (for tests and `stageload bench generator`).
    int fullScans() const;
    /// Children of members found outside the group (they left it: setsid, setpgid) and still
    /// running when found, with their start times (clock ticks after boot, against pid reuse):
    /// the guard stops them with the group. Grows as footprint() finds more; leaverCount()
    /// tells a caller when to look again.
    std::map<pid_t, long long> leavers() const;
    std::size_t leaverCount() const;

private:
    struct Member;
    void fullScan();
    void findChildren();
    void add(pid_t pid);
    std::int64_t scannedFootprint();

    /// Members kept open (two descriptors each) at most; a larger group, or one that meets the
    /// descriptor limit, is metered by a scan of every process for each sample instead.
    static constexpr std::size_t kMaxKept = 256;
    bool overflow_ = false;

    pid_t pgid_;
    double fullScanEvery_;
    std::function<double()> clock_;
    /// How often the members' children are looked for: a sampler at 50 Hz pays for it at 10 Hz.
    static constexpr double kChildrenEvery = 0.1;
    double nextScan_ = 0.0;
    double nextChildren_ = 0.0;
    bool scanned_ = false;
    int fullScans_ = 0;
    int processes_ = 0;
    std::map<pid_t, std::unique_ptr<Member>> members_;
    std::set<pid_t> outsiders_;  ///< children already found outside the group (until the next scan)
    std::map<pid_t, long long> leavers_;
    mutable std::mutex mutex_;
};

}  // namespace stageload
