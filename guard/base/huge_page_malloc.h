#pragma once
// glibc's malloc on transparent huge pages, for the processes that run models.
//
//   int main(int argc, char** argv) {
//       stageload::relaunchWithHugePageMalloc(argv);   // first thing: may re-execute main
//       ...
//
// Model runs fault in and free gigabytes. glibc puts its heap on transparent huge pages only
// when told at start-up (GLIBC_TUNABLES=glibc.malloc.hugetlb=1, read by the dynamic loader
// before main), and then 512 times fewer page faults and frees are needed. Measured on 2 cores of a
// KVM guest (README, Measured): `stageload run knight_white.png` 7.46 s -> 3.27 s, and the stand-in
// cascade's releases return their memory in 1-22 ms instead of 56-103 ms.
//
// So the first call re-executes the program (/proc/self/exe, same arguments) with the tunable
// added to the user's own; the re-executed process puts the user's GLIBC_TUNABLES back (or
// removes it), so the commands it starts (a guarded command, Blender) inherit nothing new.
// Nothing happens when the user already chose glibc.malloc.hugetlb, when
// STAGELOAD_HUGE_PAGES=0, when transparent huge pages are off, with a glibc older than 2.35
// (no such tunable), or off Linux. If the re-execution fails the program simply goes on.

#include <optional>
#include <string>

namespace stageload {

/// What relaunchWithHugePageMalloc decides, from its inputs (pure, for tests).
struct HugePageRelaunch {
    std::string tunables;  ///< GLIBC_TUNABLES for the re-executed process
    std::string restore;   ///< what it puts back: the user's value, or "-" for unset
};

/// `tunables`: the current GLIBC_TUNABLES (nullopt when unset); `thpEnabled`: the text of
/// /sys/kernel/mm/transparent_hugepage/enabled; `glibc`: gnu_get_libc_version(); `optOut`:
/// STAGELOAD_HUGE_PAGES ("0" opts out). nullopt: do not re-execute.
std::optional<HugePageRelaunch> planHugePageRelaunch(const std::optional<std::string>& tunables,
                                                     const std::string& thpEnabled,
                                                     const std::string& glibc,
                                                     const std::optional<std::string>& optOut);

/// Re-executes the program with huge-page malloc when planHugePageRelaunch says so (does not
/// return then); in the re-executed process, restores the user's GLIBC_TUNABLES and returns
/// true. False: this process runs as it was started. Call it first in main, before any thread
/// exists.
bool relaunchWithHugePageMalloc(char** argv);

/// Replaces this process by `program` with arguments `argv`, its heap on huge pages when
/// planHugePageRelaunch says so (the front `stageload` starting its engine: one exec, not two).
/// `program` must call relaunchWithHugePageMalloc() first, which then only restores the user's
/// GLIBC_TUNABLES. Returns only when the exec failed (errno says why), the environment as it
/// was.
void execWithHugePageMalloc(const char* program, char** argv);

}  // namespace stageload
