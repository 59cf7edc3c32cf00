#include "guard/memory/pressure.h"

#include <cstdlib>
#include <string>

#include "guard/base/small_file.h"

namespace stageload {
namespace {

// The value after "avg10=" in `line`; nullopt when it is not there or not a number.
std::optional<double> avg10(std::string_view line) {
    constexpr std::string_view key = "avg10=";
    const auto at = line.find(key);
    if (at == std::string_view::npos) return std::nullopt;
    const std::string value(line.substr(at + key.size(), line.find(' ', at) - at - key.size()));
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    if (end == value.c_str() || v < 0 || v > 100) return std::nullopt;
    return v;
}

}  // namespace

std::optional<MemoryPressure> parseMemoryPressure(std::string_view text) {
    MemoryPressure p;
    bool full = false;
    while (!text.empty()) {
        const auto eol = text.find('\n');
        const auto line = text.substr(0, eol);
        text = eol == std::string_view::npos ? std::string_view() : text.substr(eol + 1);
        if (line.rfind("some ", 0) == 0) {
            if (const auto v = avg10(line)) p.someAvg10 = *v;
        } else if (line.rfind("full ", 0) == 0) {
            const auto v = avg10(line);
            if (!v) return std::nullopt;
            p.fullAvg10 = *v;
            full = true;
        }
    }
    if (!full) return std::nullopt;
    return p;
}

std::optional<MemoryPressure> readMemoryPressure() {
    // A kept file would save the open and close at the meter's rate; readers made per run
    // share this one (a /proc file regenerates its text on every read from offset 0).
    static const KeptFile file(kMemoryPressureFile);
    std::string text;
    if (!file.read(text, 4096)) return std::nullopt;
    return parseMemoryPressure(text);
}

}  // namespace stageload
