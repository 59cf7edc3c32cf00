#include "guard/process/signal_block.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <ctime>
#include <initializer_list>
#include <iterator>

#include <pthread.h>

namespace stageload {
namespace {

constexpr int kTermination[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};  // what "stop" means

sigset_t terminationSignals() {
    sigset_t set;
    sigemptyset(&set);
    for (int sig : kTermination) sigaddset(&set, sig);
    return set;
}

}  // namespace

SignalBlock::SignalBlock(Waits waits) {
    sigemptyset(&set_);
    for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD}) {
        // A signal that was ignored when this process started (SIGHUP under nohup, SIGINT in
        // a background job) stays ignored, as in any well-behaved Unix program: left unblocked,
        // the kernel drops it. (A blocked signal would be queued and seen here.)
        struct sigaction current {};
        if (sig != SIGCHLD && ::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN)
            continue;
        sigaddset(&set_, sig);
    }
    waited_ = set_;
    if (waits == Waits::ChildOnly) {
        sigemptyset(&waited_);
        sigaddset(&waited_, SIGCHLD);
    }
    pthread_sigmask(SIG_BLOCK, &set_, &old_);
    child_ = old_;
    for (int sig : kTermination) sigdelset(&child_, sig);
}

void SignalBlock::blockTermination() {
    const sigset_t set = terminationSignals();
    pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

void SignalBlock::unblockTermination() {
    const sigset_t set = terminationSignals();
    pthread_sigmask(SIG_UNBLOCK, &set, nullptr);
}

SignalBlock::~SignalBlock() {
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
}

bool SignalBlock::isTermination(int sig) {
    return std::find(std::begin(kTermination), std::end(kTermination), sig) != std::end(kTermination);
}

std::string SignalBlock::describe(int sig) {
    switch (sig) {
        case SIGTERM: return "SIGTERM (logout, systemctl stop, kill)";
        case SIGINT: return "SIGINT (Ctrl+C)";
        case SIGHUP: return "SIGHUP (its terminal was closed)";
        case SIGQUIT: return "SIGQUIT";
        default: return "signal " + std::to_string(sig);
    }
}

int SignalBlock::wait(double seconds) {
    if (seconds < 0) seconds = 0;
#if defined(__APPLE__)
    // No sigtimedwait on macOS: poll the pending set.
    const double step = 0.01;
    for (double waited = 0;; waited += step) {
        sigset_t pending;
        sigpending(&pending);
        for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD})
            if (sigismember(&waited_, sig) && sigismember(&pending, sig)) {
                int got = 0;
                sigset_t one;
                sigemptyset(&one);
                sigaddset(&one, sig);
                sigwait(&one, &got);
                return got;
            }
        if (waited >= seconds) return 0;
        timespec ts{0, static_cast<long>(step * 1e9)};
        nanosleep(&ts, nullptr);
    }
#else
    timespec ts;
    ts.tv_sec = static_cast<time_t>(std::floor(seconds));
    ts.tv_nsec = static_cast<long>((seconds - std::floor(seconds)) * 1e9);
    for (;;) {
        const int sig = sigtimedwait(&waited_, nullptr, &ts);
        if (sig > 0) return sig;
        if (errno == EAGAIN) return 0;
        if (errno != EINTR) return 0;
    }
#endif
}

}  // namespace stageload
