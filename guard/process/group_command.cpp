#include "guard/process/group_command.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <set>

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#if defined(__linux__)
#include <sys/prctl.h>
#endif

extern char** environ;

namespace stageload {

int exitCodeFromStatus(int status) {
    if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 1;
}

namespace {

// Closes what it holds when it goes out of scope (the spawn's error paths).
struct Fds {
    int fd[4] = {-1, -1, -1, -1};  // stdout read, stdout write, stderr read, stderr write
    ~Fds() {
        for (int f : fd)
            if (f >= 0) ::close(f);
    }
};

// environ with `extra` set on top, as "KEY=VALUE" strings.
std::vector<std::string> environmentWith(const std::vector<std::pair<std::string, std::string>>& extra) {
    std::vector<std::string> out;
    for (char** e = environ; e && *e; ++e) {
        const std::string entry(*e);
        const auto key = entry.substr(0, entry.find('='));
        bool replaced = false;
        for (const auto& [k, v] : extra) replaced = replaced || k == key;
        if (!replaced) out.push_back(entry);
    }
    for (const auto& [k, v] : extra) out.push_back(k + "=" + v);
    return out;
}

}  // namespace

GroupCommand::GroupCommand(const std::vector<std::string>& argv, const sigset_t* childMask,
                           const SpawnOptions& options) {
    if (argv.empty()) throw StartError("no command to run");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);
    const auto envStrings = environmentWith(options.env);
    std::vector<char*> envp;
    for (const auto& e : envStrings) envp.push_back(const_cast<char*>(e.c_str()));
    envp.push_back(nullptr);

    Fds fds;
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    if (options.captureOutput) {
        if (::pipe2(fds.fd, O_CLOEXEC) != 0 || ::pipe2(fds.fd + 2, O_CLOEXEC) != 0) {
            posix_spawn_file_actions_destroy(&actions);
            throw StartError("cannot run '" + argv[0] + "': no pipe for its output (" +
                             std::strerror(errno) + ")");
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
        posix_spawn_file_actions_adddup2(&actions, fds.fd[1], 1);
        posix_spawn_file_actions_adddup2(&actions, fds.fd[3], 2);
    }
    if (!options.workdir.empty())
        posix_spawn_file_actions_addchdir_np(&actions, options.workdir.c_str());

    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    short flags = POSIX_SPAWN_SETPGROUP;
    posix_spawnattr_setpgroup(&attr, 0);  // a new group led by the child
    if (childMask) {
        flags |= POSIX_SPAWN_SETSIGMASK;
        posix_spawnattr_setsigmask(&attr, childMask);
    }
    posix_spawnattr_setflags(&attr, flags);
    pid_t pid = -1;
    const int rc = posix_spawnp(&pid, args[0], &actions, &attr, args.data(), envp.data());
    posix_spawnattr_destroy(&attr);
    posix_spawn_file_actions_destroy(&actions);
    if (rc != 0) throw StartError("cannot run '" + argv[0] + "': " + std::strerror(rc));
    pid_ = pid;
    if (options.captureOutput) {
        out_ = std::exchange(fds.fd[0], -1);
        err_ = std::exchange(fds.fd[2], -1);
        for (int f : {out_, err_}) ::fcntl(f, F_SETFL, ::fcntl(f, F_GETFL) | O_NONBLOCK);
    }
}

GroupCommand::GroupCommand(Adopt, pid_t pgid) : pid_(pgid) {}

GroupCommand::~GroupCommand() {
    for (int f : {out_, err_})
        if (f >= 0) ::close(f);
}

std::optional<int> GroupCommand::poll() {
    for (;;) {
        int status = 0;
        const pid_t got = ::waitpid(-pid_, &status, WNOHANG);  // any child in the group
        if (got <= 0) break;
        if (got == pid_) code_ = exitCodeFromStatus(status);
    }
    // Escaped descendants orphaned to this process (the guard is their subreaper).
    for (const auto& [pid, start] : escaped_) {
        int status = 0;
        ::waitpid(pid, &status, WNOHANG);  // ECHILD when it is not ours: nothing to do
    }
    return code_;
}

void GroupCommand::track(const std::vector<ProcessInfo>& processes) {
    if (pid_ <= 1) return;
    std::map<pid_t, const ProcessInfo*> byPid;
    for (const auto& p : processes) byPid[p.pid] = &p;
    // Forget the ones that are gone (or whose pid now belongs to another process).
    for (auto it = escaped_.begin(); it != escaped_.end();) {
        const auto found = byPid.find(it->first);
        const bool same = found != byPid.end() && found->second->startTicks == it->second &&
                          found->second->state != 'Z' && found->second->state != 'X';
        it = same ? std::next(it) : escaped_.erase(it);
    }
    // Descendants: the command, its group, the escaped ones, and whatever they started.
    std::set<pid_t> family{pid_};
    for (const auto& p : processes)
        if (p.pgid == pid_) family.insert(p.pid);
    for (const auto& [pid, start] : escaped_) family.insert(pid);
    for (bool grew = true; grew;) {
        grew = false;
        for (const auto& p : processes)
            if (!family.count(p.pid) && family.count(p.ppid)) grew = family.insert(p.pid).second || grew;
    }
    for (pid_t pid : family) {
        const auto found = byPid.find(pid);
        if (found == byPid.end()) continue;
        const auto& p = *found->second;
        if (p.pgid != pid_ && p.state != 'Z' && p.state != 'X' && p.pid != ::getpid())
            escaped_.emplace(p.pid, p.startTicks);
    }
}

std::vector<pid_t> GroupCommand::escaped() const {
    std::vector<pid_t> alive;
    for (const auto& [pid, start] : escaped_)
        if (processRuns(pid, start)) alive.push_back(pid);
    return alive;
}

bool GroupCommand::groupAlive() const {
    if (pid_ <= 1) return false;
    if (::kill(-pid_, 0) != 0 && errno != EPERM) return false;
    try {
        return !liveGroupMembers(listProcesses(false), pid_).empty();
    } catch (const Error&) {
        return true;
    }
}

bool GroupCommand::signalGroup(int sig) const {
    // Only ever our own child's group, never 0/1/-1 (which would reach far more).
    if (pid_ <= 1 || pid_ == ::getpgrp()) return false;
    return ::kill(-pid_, sig) == 0;
}

bool GroupCommand::stop(double grace, const std::function<void(double)>& sleep) {
    using Clock = std::chrono::steady_clock;
    const auto anyAlive = [&] { return groupAlive() || !escaped().empty(); };
    const auto signalAll = [&](int sig) {
        signalGroup(sig);
        for (pid_t pid : escaped()) ::kill(pid, sig);
    };
    const auto look = [&] {
        try {
            track(listProcesses(false));  // descendants that left the group, new ones too
        } catch (const Error&) {
            // the process table cannot be read: the group alone is stopped
        }
    };
    const auto waitGone = [&](double seconds) {
        const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(seconds));
        for (int i = 1;; ++i) {
            poll();
            // A process ignoring SIGTERM may start more during the grace period: look again.
            if (i % 10 == 0) look();
            if (!anyAlive()) {
                poll();  // the zombies that are ours: none is left for the caller to find
                return true;
            }
            if (Clock::now() >= until) return false;
            sleep(0.02);
        }
    };
    look();
    poll();
    if (!anyAlive()) return true;
    signalAll(SIGTERM);
    signalAll(SIGCONT);  // a stopped process (SIGSTOP, a debugger) acts on SIGTERM only once it runs
    if (waitGone(grace)) return true;
    look();  // right before the parents die, while their children still name them
    signalAll(SIGKILL);
    return waitGone(5.0);
}

bool GroupCommand::setReaper(bool on) {
#if defined(__linux__)
    return ::prctl(PR_SET_CHILD_SUBREAPER, on ? 1 : 0, 0, 0, 0) == 0;
#else
    (void)on;
    return false;
#endif
}

}  // namespace stageload
