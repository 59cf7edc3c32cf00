#pragma once
// The owner's end of a stageload-keeper: a small process started before a guarded command, told
// the command's group, the descendants that left it and the run's trace, and told "done" once
// the run has ended. When the owner ends any other way (SIGKILL, a crash, an exception past the
// guard) its end of the socket closes without "done", and the keeper stops the whole group and
// ends the trace with a stop mark: a generator never outlives the program that started it.
//
//   stageload::KeeperLink keeper(stageload::keeperProgram());  // throws StartError
//   keeper.watch(cmd.pgid(), 5.0);
//   keeper.trace("run/trace.jsonl", meter.epoch());
//   keeper.escaped(cmd.escapedStarts());   // after each track(): only new ones are sent
//   keeper.release();                      // the group is stopped: the keeper leaves quietly
//
// The protocol is in keeper_watch.h. Messages that cannot be sent (the keeper is gone) are
// dropped without SIGPIPE; alive() says whether the keeper still listens. Not thread-safe: one
// owner thread. Throws StartError from the constructor only.

#include <chrono>
#include <filesystem>
#include <map>
#include <set>
#include <string>

#include <sys/types.h>

namespace stageload {

/// ${STAGELOAD_KEEPER}, else <programPrefix>/libexec/stageload/stageload-keeper (data_dirs.h).
/// It may not exist: KeeperLink's constructor then says so.
std::filesystem::path keeperProgram();

class KeeperLink {
public:
    /// Starts `program` with its end of a socket pair as stdin. Throws StartError naming it.
    explicit KeeperLink(const std::filesystem::path& program);
    /// Without release(): closes the socket, so the keeper stops what it was told to watch.
    ~KeeperLink();
    KeeperLink(const KeeperLink&) = delete;
    KeeperLink& operator=(const KeeperLink&) = delete;

    /// The group to stop if this process ends first, with the grace between SIGTERM and SIGKILL.
    void watch(pid_t pgid, double grace);
    /// The trace the stop mark goes to; its `t` counts from `epoch` (the meter's).
    void trace(const std::filesystem::path& path, std::chrono::steady_clock::time_point epoch);
    /// Sends the descendants among `escaped` (pid -> start ticks) not sent before.
    void escaped(const std::map<pid_t, long long>& escaped);
    /// The run ended and its group is stopped: tells the keeper to leave, and reaps it.
    void release();

    pid_t pid() const { return pid_; }
    /// False once a message could not be sent (the keeper died).
    bool alive() const { return fd_ >= 0 && !lost_; }

private:
    void send(const std::string& line);

    pid_t pid_ = -1;
    int fd_ = -1;
    bool lost_ = false;
    std::set<std::pair<pid_t, long long>> sent_;
};

}  // namespace stageload
