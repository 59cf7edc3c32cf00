// stageload-keeper: started by the guard before each command it runs, it stops the command's
// whole group if the program that started it ends without doing so (see keeper_watch.h).
// It is not meant to be run by hand.

#include <cstdio>

#include <unistd.h>

#include "guard/keeper/keeper_watch.h"

int main() {
    if (::isatty(0)) {
        std::fprintf(stderr,
                     "stageload-keeper is started by stageload's guard for each run; it is not "
                     "meant to be run by hand.\n");
        return 2;
    }
    ::setsid();  // out of the owner's session: the terminal's SIGINT and SIGHUP do not reach it
    return stageload::keepWatch(0, [](const std::string& line) {
        std::fprintf(stderr, "stageload-keeper: %s\n", line.c_str());
    });
}
