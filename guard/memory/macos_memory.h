#pragma once
// Internal: macOS readers (compiled only under __APPLE__; written against the documented APIs,
// not run on this project's Linux CI).
//
//   footprint  proc_pid_rusage(RUSAGE_INFO_V4).ri_phys_footprint   (Activity Monitor's "Memory")
//   swap used  sysctl vm.swapusage (xsw_usage.xsu_used)
//   level      sysctl kern.memorystatus_level (percent of memory available)
//
// Thread-safe; throw FileError naming the call that failed.

#if defined(__APPLE__)
#include <cstdint>

#include <sys/types.h>

#include "guard/memory/system_memory.h"

namespace stageload::macos {

std::int64_t readFootprint(pid_t pid);
SystemMemory readSystemMemory();

}  // namespace stageload::macos
#endif
