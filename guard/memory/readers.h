#pragma once
// One memory sample and the injectable readers that take it.
//
//   auto readers = stageload::processReaders();          // this process + the machine
//   stageload::MemorySample s = readers.read(1.5);       // t = 1.5 s since the meter started
//   // s.footprint, s.swapUsed, s.level, s.extra = {{"available", ...}, {"process_swap", ...}}
//
//   auto group = stageload::groupReaders(childPgid);     // a guarded command's whole group
//   stageload::MemoryReaders fake{[] { return 100; }, [] { return stageload::SystemMemory{...}; }};
//
// Every reader is a std::function so tests, the app and the engine can swap them. Where an NVIDIA
// driver is, both sets also carry "cuda": the GPU memory of the process or the group, as
// nvidia-smi counts it (gpu_memory.h); where the kernel reports memory pressure (PSI), both carry
// "memory_pressure" too (pressure.h).
// read() throws whatever a reader throws (FileError for /proc trouble); the readers made here are
// thread-safe and cheap enough for 50 Hz (a group reader keeps its members: group_meter.h).

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "guard/memory/group_meter.h"
#include "guard/memory/system_memory.h"

namespace stageload {

/// The extra key of a generator run's samples that carries the command's own footprint (from
/// the trace it writes), beside its whole group's.
inline constexpr const char* kCommandFootprintKey = "command_footprint";

struct MemorySample {
    double t = 0.0;              ///< seconds since the meter started
    std::int64_t footprint = 0;  ///< bytes (Linux VmRSS, macOS phys_footprint)
    std::int64_t swapUsed = 0;   ///< bytes of system swap in use
    double level = 0.0;          ///< percent of memory available
    std::int64_t available = 0;  ///< bytes available (0 when unknown)
    /// Extra keys written after the standard ones, e.g. {"process_swap", 0}.
    std::vector<std::pair<std::string, double>> extra;
};

struct MemoryReaders {
    std::function<std::int64_t()> footprint;  ///< required
    std::function<SystemMemory()> system;     ///< required
    /// Extra keys; a reader that returns NaN (no value at the moment) adds nothing.
    std::vector<std::pair<std::string, std::function<double()>>> extra;

    /// Calls every reader once. Throws what they throw.
    MemorySample read(double t) const;
};

/// Footprint of process `pid` (0: this process) and the machine's memory; on Linux also
/// "process_swap" (the process's VmSwap) as an extra key, and "cuda" with an NVIDIA driver.
MemoryReaders processReaders(pid_t pid = 0);

/// Footprint summed over the live members of process group `pgid`, the machine's memory, and
/// "processes" (how many members) as an extra key; "cuda" with an NVIDIA driver. The members
/// are kept by a GroupMeter (group_meter.h); pass one to learn what it finds too.
MemoryReaders groupReaders(pid_t pgid);
MemoryReaders groupReaders(std::shared_ptr<GroupMeter> group);

/// Sum of the footprints of the live members of group `pgid` (0 when it is empty).
std::int64_t readGroupFootprint(pid_t pgid);

}  // namespace stageload
