#pragma once
// Machine-wide memory: total, available and swap (a trace's `level` and `swap_used`).
//
//   auto m = stageload::readSystemMemory();
//   double level = m.availablePercent();      // Linux MemAvailable / MemTotal * 100
//   std::int64_t swap = m.swapUsed();         // SwapTotal - SwapFree
//
// Linux reads /proc/meminfo (one small read, fine at 50 Hz); macOS uses hw.memsize,
// kern.memorystatus_level and vm.swapusage. Thread-safe. readSystemMemory() throws FileError when
// the source cannot be read; the parser never throws (missing fields stay 0).

#include <cstdint>
#include <string_view>

namespace stageload {

struct SystemMemory {
    std::int64_t total = 0;      ///< MemTotal, bytes
    std::int64_t available = 0;  ///< MemAvailable, bytes
    std::int64_t swapTotal = 0;  ///< SwapTotal, bytes
    std::int64_t swapFree = 0;   ///< SwapFree, bytes

    std::int64_t swapUsed() const { return swapTotal > swapFree ? swapTotal - swapFree : 0; }
    /// Available memory as a percentage of total (0 when total is unknown).
    double availablePercent() const {
        return total > 0 ? 100.0 * static_cast<double>(available) / static_cast<double>(total)
                         : 0.0;
    }
};

/// Parses the text of /proc/meminfo ("MemTotal:  24000000 kB" ...).
SystemMemory parseMeminfo(std::string_view text);

/// Reads the machine's memory now (Linux /proc/meminfo, macOS sysctl).
SystemMemory readSystemMemory();

}  // namespace stageload
