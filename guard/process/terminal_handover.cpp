#include "guard/process/terminal_handover.h"

#include <csignal>
#include <pthread.h>
#include <unistd.h>

namespace stageload {
namespace {

// tcsetpgrp() from a background group raises SIGTTOU unless it is blocked.
bool setForeground(pid_t group) {
    sigset_t ttou, old;
    sigemptyset(&ttou);
    sigaddset(&ttou, SIGTTOU);
    pthread_sigmask(SIG_BLOCK, &ttou, &old);
    const bool ok = ::tcsetpgrp(STDIN_FILENO, group) == 0;
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

}  // namespace

TerminalHandover::TerminalHandover(pid_t commandGroup) {
    if (commandGroup <= 1 || !::isatty(STDIN_FILENO)) return;
    const pid_t foreground = ::tcgetpgrp(STDIN_FILENO);
    if (foreground < 0 || foreground != ::getpgrp()) return;  // we are not the foreground job
    if (!setForeground(commandGroup)) return;
    previous_ = foreground;
    ::kill(-commandGroup, SIGCONT);
}

TerminalHandover::~TerminalHandover() {
    if (active()) setForeground(previous_);
}

}  // namespace stageload
