// Test helper for test_huge_page_malloc: relaunches itself the way the app and the CLI do, then
// prints whether it is the re-executed process and what its environment says now.
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#include "guard/base/huge_page_malloc.h"

int main(int, char** argv) {
    const bool relaunched = stageload::relaunchWithHugePageMalloc(argv);
    const char* now = std::getenv("GLIBC_TUNABLES");
    std::printf("pid=%d\nrelaunched=%d\nnow=%s\nmarker=%s\n", static_cast<int>(::getpid()),
                relaunched ? 1 : 0, now ? now : "(unset)",
                std::getenv("STAGELOAD_RELAUNCH_RESTORE") ? "left" : "gone");
    return 0;
}
