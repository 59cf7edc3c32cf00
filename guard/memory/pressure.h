#pragma once
// Memory pressure (Linux pressure stall information, PSI): the share of time tasks stalled on
// memory — a machine that thrashes shows it long before "available" falls under a threshold.
// systemd-oomd and nohang judge by the same "full avg10" figure: the share of the last 10 s in
// which every non-idle task was stalled on memory at once.
//
//   if (auto p = stageload::readMemoryPressure()) use(p->fullAvg10);   // 0..100 %
//   else say("this kernel has no PSI (/proc/pressure/memory)");
//
// Pure parsing, and one small read of /proc; thread-safe. Nothing throws.

#include <optional>
#include <string_view>

namespace stageload {

/// The extra key of a run's samples that carries the machine's memory pressure (full avg10, %).
inline constexpr const char* kMemoryPressureKey = "memory_pressure";

/// Where the kernel says it: /proc/pressure/memory.
inline constexpr const char* kMemoryPressureFile = "/proc/pressure/memory";

struct MemoryPressure {
    double someAvg10 = 0.0;  ///< % of the last 10 s some task stalled on memory
    double fullAvg10 = 0.0;  ///< % of the last 10 s all non-idle tasks stalled on memory at once
};

/// Parses the text of /proc/pressure/memory ("some avg10=0.00 avg60=... total=...\nfull avg10=...
/// ..."); nullopt when it has no "full" line with an avg10.
std::optional<MemoryPressure> parseMemoryPressure(std::string_view text);

/// The machine's memory pressure now; nullopt where there is none to read (no PSI: a kernel
/// without CONFIG_PSI or booted with psi=0, macOS).
std::optional<MemoryPressure> readMemoryPressure();

/// What a user is told when an option needs PSI and the kernel has none.
inline constexpr const char* kNoPressureText =
    "this machine reports no memory pressure (no /proc/pressure/memory: a kernel without PSI, or "
    "booted with psi=0)";

}  // namespace stageload
