#pragma once
// Hands the controlling terminal to the command's process group while it runs, the way a shell
// puts a job in the foreground. Without it, a guarded command that reads the terminal (a prompt,
// a password) is stopped by SIGTTIN, since it runs in a group of its own.
//
//   stageload::TerminalHandover terminal(command.pgid());   // no-op when not in a terminal
//   ... wait for the command ...
//   // destroyed: the terminal goes back to the guard's group
//
// Only acts when standard input is a terminal whose foreground group is the guard's own (not
// when the guard runs in the background or with input redirected). The command's group gets a
// SIGCONT in case it was stopped reading before the handover; it is the only process group it
// ever signals. Throws nothing; use from the guard's thread.

#include <sys/types.h>

namespace stageload {

class TerminalHandover {
public:
    explicit TerminalHandover(pid_t commandGroup);
    ~TerminalHandover();
    TerminalHandover(const TerminalHandover&) = delete;
    TerminalHandover& operator=(const TerminalHandover&) = delete;

    bool active() const { return previous_ > 0; }

private:
    pid_t previous_ = -1;
};

}  // namespace stageload
