#pragma once
// Sizes, durations and percentages as users type them, and bytes as people read them.
//
//   std::int64_t budget = stageload::parseSize("8G");        // 8 * 2^30
//   double poll = stageload::parseDuration("250ms");         // 0.25 (seconds)
//   double pct = stageload::parsePercent("40", "--wait-free"); // 40.0
//   std::string s = stageload::formatBytes(1536 << 20);      // "1.50 GiB"
//
// Sizes use binary units, case-insensitive: 100, 512K, 512M, 8G, 1.5g, 2GiB, 3GB (= 3 GiB), 1T.
// Durations: 250ms, 90s, 30m, 2h, or a bare number of seconds. All functions are pure and
// thread-safe; the parsers throw UsageError with a message that quotes the bad text and shows
// valid examples.

#include <cstdint>
#include <string>
#include <string_view>

#include "guard/base/error.h"

namespace stageload {

inline constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

/// Bytes from "8G", "512M", "1.5g", "2GiB", "100". Throws UsageError ("not a size: '8X' ...").
std::int64_t parseSize(std::string_view text);

/// Seconds from "30m", "90s", "2h", "250ms", "5". Negative values are errors; zero is allowed
/// here (callers that need a positive value check it). Throws UsageError ("not a duration ...").
double parseDuration(std::string_view text);

/// A percentage 0..100 from "40" or "40%". `what` names the flag in the message
/// ("--wait-free 140: out of range, expected 0 to 100"). Throws UsageError.
double parsePercent(std::string_view text, std::string_view what);

/// a + b, held at the int64 limits instead of overflowing (for totals of byte counts that come
/// from files: a lying trace must not make a sum undefined).
constexpr std::int64_t saturatingAdd(std::int64_t a, std::int64_t b) {
    std::int64_t sum = 0;
    if (!__builtin_add_overflow(a, b, &sum)) return sum;
    return b > 0 ? INT64_MAX : INT64_MIN;
}

/// "0 B", "512 KiB", "1.50 GiB": binary units, 2 decimals above bytes.
std::string formatBytes(std::int64_t bytes);

/// The unit family sizes are written in for people: binary (KiB, MiB, GiB: powers of 1024, as
/// the kernel and the guard count) or decimal (kB, MB, GB: powers of 1000, as macOS and disk
/// makers write them). Parsing is not affected: "8G" is always 8 GiB.
enum class ByteUnits { Binary, Decimal };

/// A unit of `units`' family: its size in bytes and its symbol.
struct ByteUnit {
    double bytes;
    const char* symbol;
};
/// The unit charts and tables plot sizes in: GiB (2^30 bytes) or GB (10^9 bytes).
ByteUnit largeUnit(ByteUnits units);

/// formatBytes() in `units`' family: "1.50 GiB", or "1.61 GB" for the same bytes.
std::string formatBytes(std::int64_t bytes, ByteUnits units);

/// "90s", "1m30s", "250ms": short human form of a duration in seconds.
std::string formatDuration(double seconds);

/// "12.5%": a share of memory as the guard reports it, one decimal.
std::string formatPercent(double percent);

/// "15", "7.5", "1e+20": a number as a user would type it back (up to 15 significant digits,
/// no trailing zeros), for settings and the values named in their error messages.
std::string formatNumber(double v);

}  // namespace stageload
