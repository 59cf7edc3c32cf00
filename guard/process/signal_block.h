#pragma once
// Blocks the signals the guard handles itself (SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGCHLD) in the
// calling thread for the object's lifetime, and waits for them with a timeout. Threads started
// while it lives (the meter) inherit the mask, so those signals reach the waiting thread.
//
//   stageload::SignalBlock block;                 // restores the old mask when destroyed
//   int sig = block.wait(5.0);                    // 0 after 5 s, else the signal number
//   if (sig == SIGTERM) stopCommandThenExit(128 + sig);
//
// A signal whose disposition is SIG_IGN when the block is made (SIGHUP under nohup) is left
// alone: it stays ignored and never wakes wait().
// SignalBlock(Waits::ChildOnly) is for a guard run by a program that handles the termination
// signals itself on another thread (the app): they stay blocked here, so the kernel never hands
// this thread one, and wait() returns SIGCHLD only.
// Children should start with childMask() (the process group runner does): the old mask without
// the termination signals, which a program may have blocked from its first instruction
// (blockTermination()) so that none is lost before the block exists. Not thread-safe: use it
// from the thread that created it. Throws nothing.

#include <csignal>
#include <string>

namespace stageload {

class SignalBlock {
public:
    /// Which of the blocked signals wait() returns.
    enum class Waits {
        All,        ///< the termination signals and SIGCHLD: this thread handles "stop"
        ChildOnly,  ///< SIGCHLD: the termination signals wait for the program's own handler
    };

    explicit SignalBlock(Waits waits = Waits::All);
    ~SignalBlock();
    SignalBlock(const SignalBlock&) = delete;
    SignalBlock& operator=(const SignalBlock&) = delete;

    /// Waits up to `seconds` for one of the blocked signals; returns it, or 0 on timeout.
    int wait(double seconds);
    /// True for the signals that mean "stop" (not SIGCHLD).
    static bool isTermination(int sig);
    /// "SIGTERM (logout, systemctl stop, kill)" for the signals the block handles, else
    /// "signal N".
    static std::string describe(int sig);

    /// Blocks SIGTERM, SIGINT, SIGHUP and SIGQUIT in the calling thread: the first thing a
    /// guarding program does, so that a signal that comes while it starts waits for the
    /// SignalBlock that records it instead of killing the program unrecorded.
    static void blockTermination();
    /// Undoes blockTermination(): for the commands that handle no signal themselves (a signal
    /// that came in between is delivered now).
    static void unblockTermination();

    /// The mask a child process should start with: the one before this block, without the
    /// termination signals.
    const sigset_t& childMask() const { return child_; }

private:
    sigset_t set_{};     ///< blocked
    sigset_t waited_{};  ///< what wait() takes: set_, or SIGCHLD alone
    sigset_t old_{};
    sigset_t child_{};
};

}  // namespace stageload
