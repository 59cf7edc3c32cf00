#pragma once
// Resident memory of a process as Linux reports it in /proc/<pid>/status.
//
//   auto before = stageload::readProcessMemory();          // this process
//   stageload::resetPeakRss();                              // start a new peak window
//   ... load a model ...
//   auto peak = stageload::readProcessMemory().peakRss;
//
// Cheap (one small read, no iostreams), safe to call from any thread. Throws FileError when the
// file cannot be read (no such process, or not Linux).

#include <cstdint>
#include <string_view>

#include <sys/types.h>

namespace stageload {

struct ProcessMemory {
    std::int64_t rss = 0;      ///< VmRSS: resident set, bytes
    std::int64_t peakRss = 0;  ///< VmHWM: highest resident set since start or resetPeakRss()
    std::int64_t swap = 0;     ///< VmSwap: this process's pages in swap, bytes
};

/// Parses the text of /proc/<pid>/status. Missing fields stay 0.
ProcessMemory parseProcStatus(std::string_view text);

/// Reads /proc/<pid>/status; pid 0 means this process.
ProcessMemory readProcessMemory(pid_t pid = 0);

/// The process's memory footprint: Linux VmRSS, macOS phys_footprint
/// (what Activity Monitor shows). pid 0 means this process. Throws FileError like above.
std::int64_t readFootprint(pid_t pid = 0);

/// Resets this process's VmHWM to its current VmRSS (Linux: "5" to /proc/self/clear_refs).
/// Returns false where the kernel does not allow it.
bool resetPeakRss();

}  // namespace stageload
