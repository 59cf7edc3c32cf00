#include "guard/base/units.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <limits>
#include <string>

#include "guard/base/text.h"

namespace stageload {
namespace {

/// Splits "1.5GiB" into 1.5 and "gib". Returns false when there is no leading number.
bool splitNumber(std::string_view text, double& value, std::string& unit) {
    text = trim(text);
    std::size_t i = 0;
    bool digits = false;
    while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i, digits = true;
    if (i < text.size() && text[i] == '.') {
        ++i;
        while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i])))
            ++i, digits = true;
    }
    if (!digits) return false;
    const std::string number(text.substr(0, i));
    const auto res = std::from_chars(number.data(), number.data() + number.size(), value);
    if (res.ec != std::errc() || res.ptr != number.data() + number.size()) return false;
    unit = asciiLower(trim(text.substr(i)));
    return std::isfinite(value);
}

}  // namespace

std::int64_t parseSize(std::string_view text) {
    const auto bad = [&] {
        return UsageError("not a size: '" + std::string(text) +
                          "' (examples: 8G, 512M, 1.5g, 2GiB, 100; binary units)");
    };
    double value = 0;
    std::string unit;
    if (!splitNumber(text, value, unit)) throw bad();
    double scale = 0;
    if (unit.empty() || unit == "b")
        scale = 1;
    else if (unit == "k" || unit == "kb" || unit == "kib")
        scale = 1024.0;
    else if (unit == "m" || unit == "mb" || unit == "mib")
        scale = 1024.0 * 1024.0;
    else if (unit == "g" || unit == "gb" || unit == "gib")
        scale = kGiB;
    else if (unit == "t" || unit == "tb" || unit == "tib")
        scale = kGiB * 1024.0;
    else
        throw bad();
    const double bytes = std::round(value * scale);
    if (bytes >= static_cast<double>(std::numeric_limits<std::int64_t>::max())) throw bad();
    return static_cast<std::int64_t>(bytes);
}

double parseDuration(std::string_view text) {
    const auto bad = [&] {
        return UsageError("not a duration: '" + std::string(text) +
                          "' (examples: 30m, 90s, 2h, 250ms, 5 for seconds)");
    };
    double value = 0;
    std::string unit;
    if (!splitNumber(text, value, unit)) throw bad();
    if (unit.empty() || unit == "s" || unit == "sec") return value;
    if (unit == "ms") return value / 1000.0;
    if (unit == "m" || unit == "min") return value * 60.0;
    if (unit == "h") return value * 3600.0;
    throw bad();
}

double parsePercent(std::string_view text, std::string_view what) {
    std::string_view t = trim(text);
    if (!t.empty() && t.back() == '%') t.remove_suffix(1);
    const bool negative = !t.empty() && t.front() == '-';
    if (negative) t.remove_prefix(1);
    double value = 0;
    std::string unit;
    if (!splitNumber(t, value, unit) || !unit.empty())
        throw UsageError(std::string(what) + " '" + std::string(text) +
                         "': not a percentage (example: 40)");
    if (negative || value > 100.0)
        throw UsageError(std::string(what) + " " + std::string(text) +
                         ": out of range, expected 0 to 100");
    return value;
}

std::string formatBytes(std::int64_t bytes) { return formatBytes(bytes, ByteUnits::Binary); }

ByteUnit largeUnit(ByteUnits units) {
    return units == ByteUnits::Decimal ? ByteUnit{1e9, "GB"} : ByteUnit{kGiB, "GiB"};
}

std::string formatBytes(std::int64_t bytes, ByteUnits units) {
    const bool decimal = units == ByteUnits::Decimal;
    const double k = decimal ? 1000.0 : 1024.0;
    const double b = static_cast<double>(bytes);
    const double a = std::fabs(b);
    char buf[64];
    if (a >= k * k * k)
        std::snprintf(buf, sizeof buf, "%.2f %s", b / (k * k * k), decimal ? "GB" : "GiB");
    else if (a >= k * k)
        std::snprintf(buf, sizeof buf, "%.1f %s", b / (k * k), decimal ? "MB" : "MiB");
    else if (a >= k)
        std::snprintf(buf, sizeof buf, "%.1f %s", b / k, decimal ? "kB" : "KiB");
    else
        std::snprintf(buf, sizeof buf, "%lld B", static_cast<long long>(bytes));
    return buf;
}

std::string formatDuration(double seconds) {
    char buf[64];
    if (seconds < 1.0)
        std::snprintf(buf, sizeof buf, "%.0fms", seconds * 1000.0);
    else if (seconds < 60.0)
        std::snprintf(buf, sizeof buf, "%.3gs", seconds);
    else if (seconds < 3600.0) {
        const long s = std::lround(seconds);
        std::snprintf(buf, sizeof buf, "%ldm%02lds", s / 60, s % 60);
    } else {
        const long s = std::lround(seconds);
        std::snprintf(buf, sizeof buf, "%ldh%02ldm", s / 3600, (s % 3600) / 60);
    }
    return buf;
}

std::string formatPercent(double percent) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.1f%%", percent);
    return buf;
}

std::string formatNumber(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.15g", v);
    return buf;
}

}  // namespace stageload
