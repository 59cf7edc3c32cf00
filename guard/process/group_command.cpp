#include "guard/process/group_command.h"

#include <cerrno>
#include <chrono>
#include <cstring>

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

GroupCommand::GroupCommand(const std::vector<std::string>& argv, const sigset_t* childMask) {
    if (argv.empty()) throw StartError("no command to run");
    std::vector<char*> args;
    for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
    args.push_back(nullptr);

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
    const int rc = posix_spawnp(&pid, args[0], nullptr, &attr, args.data(), environ);
    posix_spawnattr_destroy(&attr);
    if (rc != 0) throw StartError("cannot run '" + argv[0] + "': " + std::strerror(rc));
    pid_ = pid;
}

std::optional<int> GroupCommand::poll() {
    for (;;) {
        int status = 0;
        const pid_t got = ::waitpid(-pid_, &status, WNOHANG);  // any child in the group
        if (got <= 0) break;
        if (got == pid_) code_ = exitCodeFromStatus(status);
    }
    return code_;
}

bool GroupCommand::groupAlive() const {
    if (pid_ <= 1) return false;
    return ::kill(-pid_, 0) == 0 || errno == EPERM;
}

bool GroupCommand::signalGroup(int sig) const {
    // Only ever our own child's group, never 0/1/-1 (which would reach far more).
    if (pid_ <= 1 || pid_ == ::getpgrp()) return false;
    return ::kill(-pid_, sig) == 0;
}

bool GroupCommand::stop(double grace, const std::function<void(double)>& sleep) {
    using Clock = std::chrono::steady_clock;
    const auto waitGone = [&](double seconds) {
        const auto until = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                              std::chrono::duration<double>(seconds));
        for (;;) {
            poll();
            if (!groupAlive()) return true;
            if (Clock::now() >= until) return false;
            sleep(0.02);
        }
    };
    poll();
    if (!groupAlive()) return true;
    signalGroup(SIGTERM);
    if (waitGone(grace)) return true;
    signalGroup(SIGKILL);
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
