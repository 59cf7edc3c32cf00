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
// Children should start with childMask() (the process group runner does): the old mask without
// the termination signals, which a program may have blocked from its first instruction
// (blockTermination()) so that none is lost before the block exists. Not thread-safe: use it
// from the thread that created it. Throws nothing.

#include <csignal>
#include <string>

namespace stageload {

class SignalBlock {
public:
    SignalBlock();
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
    sigset_t set_{};
    sigset_t old_{};
    sigset_t child_{};
};

}  // namespace stageload
