#include "guard/policy/guard_options.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <regex>

#include "guard/base/error.h"
#include "guard/base/text.h"
#include "guard/base/units.h"
#include "guard/memory/pressure.h"
#include "guard/policy/busy_patterns.h"

namespace stageload {
namespace {

using K = GuardValueKind;

const GuardOption kOptions[] = {
    {"waitFree", "--wait-free", "Start when free ≥", "Start when available memory >= PCT of RAM",
     "Start a run only when at least this share of the machine's memory is available (0: at once)",
     "e.g. 40", K::Percent, true, &GuardParams::waitFree},
    {"killFree", "--kill-free", "Stop when free <",
     "Stop when available memory < PCT for two readings in a row",
     "Stop the run when the memory available stays under this share for two readings in a row",
     "e.g. 10", K::Percent, true, &GuardParams::killFree},
    {"swapBudget", "--swap-budget", "Swap growth allowed",
     "Stop when swap used grows by more than SIZE since start",
     "Stop the run when swap in use grows by more than this since it started", "e.g. 8G", K::Size,
     true, nullptr, &GuardParams::swapBudget},
    {"swapLimit", "--swap-limit", "Swap ceiling",
     "Start only if swap + budget <= SIZE; stop when swap exceeds SIZE (empty: unset)",
     "Start only if swap in use plus the growth allowed stays under this; stop the run when swap "
     "goes past it (empty: no ceiling)",
     "unset", K::OptionalSize, true, nullptr, nullptr, &GuardParams::swapLimit},
    {"need", "--need", "Memory needed",
     "Start only when at least SIZE is available (empty: unset), or 'forecast': the run's forecast "
     "peak + 10 % (`stageload run` and `stageload guard -- stageload run ...`)",
     "Start only when at least this much memory is available (empty: any); 'forecast' waits for "
     "the run's forecast peak, as \"Wait until the forecast fits\" does for each run",
     "e.g. 12G or forecast", K::OptionalSize, true, nullptr, nullptr, &GuardParams::need, nullptr,
     "forecast", &GuardParams::needForecast},
    {"quietFor", "--quiet-for", "Quiet for", "Busy processes must have been gone this long",
     "After the last busy program (below) is gone, wait this long before starting", "e.g. 1m",
     K::Duration, true, &GuardParams::quietFor},
    {"startTimeout", "--start-timeout", "Give up after", "Give up waiting for room after DUR: exit 4",
     "Stop waiting for room after this long; the run is then not started", "e.g. 30m",
     K::Duration, true, &GuardParams::startTimeout},
    {"poll", "--poll", "Check every", "Time between readings while waiting and running (zero is refused)",
     "How often memory is read while a run waits and while it runs", "e.g. 5s", K::Duration, true,
     &GuardParams::poll},
    {.key = "pressureWait", .flag = "--pressure-wait", .label = "Start when pressure ≤",
     .help = "Start only when memory pressure (Linux PSI full avg10) is at most PCT (empty: unset)",
     .panelHelp = "Start a run only when the machine is not thrashing: the share of the last 10 s in "
                  "which every program waited for memory is at most this (empty: do not look)",
     .placeholder = "unset, e.g. 10", .kind = K::OptionalPercent, .optional = &GuardParams::pressureWait,
     .needsPressure = true},
    {.key = "pressureKill", .flag = "--pressure-kill", .label = "Stop when pressure >",
     .help = "Stop when memory pressure (PSI full avg10) stays above PCT for DUR, as PCT/DUR (e.g. "
             "60/10s, as systemd-oomd judges; empty: unset)",
     .panelHelp = "Stop the run when the machine thrashes: every program waited for memory more than "
                  "this share of the time, for this long (e.g. 60/10s; empty: do not stop for it)",
     .placeholder = "unset, e.g. 60/10s", .kind = K::PercentFor, .percentFor = &GuardParams::pressureKill,
     .needsPressure = true},
    {.key = "stallKill", .flag = "--stall-kill", .label = "Stop when stalled for",
     .help = "Stop when the command's group used under 1 % of a core and printed nothing for DUR: "
             "a hung generator (empty: unset)",
     .panelHelp = "Stop a generator that hangs: its processes used almost no CPU and printed nothing "
                  "for this long (e.g. 10m; empty: never)",
     .placeholder = "unset, e.g. 10m", .kind = K::OptionalDuration, .optional = &GuardParams::stallKill},
    {"busy", "--busy", "Wait while running",
     "Wait while a process whose command line matches REGEX runs (like pgrep -f; repeatable)",
     "Wait while a program whose command line matches one of these patterns runs (one per line)",
     "one regex per line, e.g. ffmpeg", K::Patterns, true, nullptr, nullptr, nullptr,
     &GuardParams::busy},
    {"traceInterval", "--trace-interval", "Trace interval",
     "Time between trace samples, at least 20ms", "Time between trace samples", "e.g. 0.5s",
     K::Duration, false, &GuardParams::traceInterval},
};

// Exact, parseable by parseSize, and in the units every other size is shown in: "8 GiB",
// "3584 MiB", "100".
std::string sizeText(std::int64_t bytes) {
    static const std::pair<std::int64_t, const char*> units[] = {{std::int64_t(1) << 40, " TiB"},
                                                                 {std::int64_t(1) << 30, " GiB"},
                                                                 {std::int64_t(1) << 20, " MiB"},
                                                                 {std::int64_t(1) << 10, " KiB"}};
    for (const auto& [size, unit] : units)
        if (bytes != 0 && bytes % size == 0) return std::to_string(bytes / size) + unit;
    return std::to_string(bytes);
}

// Exact and parseable by parseDuration: "30m", "90s", "250ms", "2h", "1.5s" (formatDuration's
// "1m30s" is for reading; parseDuration does not take it back).
std::string durationText(double seconds) {
    const double ms = std::round(seconds * 1000.0);
    if (std::fabs(seconds * 1000.0 - ms) < 1e-6 && std::fabs(ms) < 9e15) {
        const auto n = static_cast<std::int64_t>(ms);
        if (n == 0) return "0s";
        if (n % 3600000 == 0) return std::to_string(n / 3600000) + "h";
        if (n % 60000 == 0) return std::to_string(n / 60000) + "m";
        if (n % 1000 == 0) return std::to_string(n / 1000) + "s";
        if (n > 0 && n < 1000) return std::to_string(n) + "ms";
    }
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.15gs", seconds);
    return buf;
}

// Reruns `parse`, turning its UsageError into a SettingError for `o`.
template <typename F>
auto asSetting(const GuardOption& o, F&& parse) {
    try {
        return parse();
    } catch (const SettingError&) {
        throw;
    } catch (const UsageError& e) {
        throw SettingError(std::string(o.key), std::string(o.flag), e.what());
    }
}

}  // namespace

std::span<const GuardOption> guardOptions() {
    return kOptions;
}

const GuardOption* findGuardOption(std::string_view key) {
    for (const auto& o : kOptions)
        if (o.key == key) return &o;
    return nullptr;
}

std::string guardValueText(const GuardParams& p, const GuardOption& o) {
    switch (o.kind) {
        case K::Percent: return formatNumber(p.*o.real);
        case K::Duration: return durationText(p.*o.real);
        case K::Size: return sizeText(p.*o.size);
        case K::OptionalSize:
            if (o.wordFlag && p.*o.wordFlag) return std::string(o.word);
            return p.*o.limit ? sizeText(*(p.*o.limit)) : std::string();
        case K::OptionalPercent: return p.*o.optional ? formatNumber(*(p.*o.optional)) : std::string();
        case K::OptionalDuration: return p.*o.optional ? durationText(*(p.*o.optional)) : std::string();
        case K::PercentFor:
            return p.*o.percentFor ? formatNumber((p.*o.percentFor)->percent) + "/" +
                                         durationText((p.*o.percentFor)->seconds)
                                   : std::string();
        case K::Patterns: {
            std::string lines;
            for (const auto& pattern : p.*o.patterns) lines += (lines.empty() ? "" : "\n") + pattern;
            return lines;
        }
    }
    return {};
}

void setGuardValue(GuardParams& p, const GuardOption& o, std::string_view text) {
    const std::string_view t = trim(text);
    const auto percent = [&](std::string_view value, const char* example) {
        std::string number(trim(value));
        if (!number.empty() && number.back() == '%') number.pop_back();
        char* end = nullptr;
        const double v = std::strtod(number.c_str(), &end);
        if (number.empty() || *end != '\0' || !std::isfinite(v))
            throw SettingError(std::string(o.key), std::string(o.flag) + " '" + std::string(text) + "'",
                               std::string("not a percentage (example: ") + example + ")");
        return v;
    };
    switch (o.kind) {
        case K::Percent:
            p.*o.real = percent(t, "40");
            return;
        case K::OptionalPercent:
            if (t.empty())
                (p.*o.optional).reset();
            else
                p.*o.optional = percent(t, "10; leave it empty for none");
            return;
        case K::OptionalDuration:
            if (t.empty())
                (p.*o.optional).reset();
            else
                p.*o.optional = asSetting(o, [&] { return parseDuration(t); });
            return;
        case K::PercentFor: {
            if (t.empty()) {
                (p.*o.percentFor).reset();
                return;
            }
            const auto slash = t.find('/');
            if (slash == std::string_view::npos)
                throw SettingError(std::string(o.key), std::string(o.flag) + " '" + std::string(text) + "'",
                                   "expected PCT/DURATION, e.g. 60/10s");
            PressureLimit limit;
            limit.percent = percent(t.substr(0, slash), "60/10s");
            limit.seconds = asSetting(o, [&] { return parseDuration(trim(t.substr(slash + 1))); });
            p.*o.percentFor = limit;
            return;
        }
        case K::Duration:
            p.*o.real = asSetting(o, [&] { return parseDuration(t); });
            return;
        case K::Size:
            p.*o.size = asSetting(o, [&] { return parseSize(t); });
            return;
        case K::OptionalSize:
            if (o.wordFlag) p.*o.wordFlag = !o.word.empty() && t == o.word;
            if (t.empty() || (o.wordFlag && p.*o.wordFlag))
                (p.*o.limit).reset();
            else
                try {
                    p.*o.limit = parseSize(t);
                } catch (const UsageError& e) {
                    throw SettingError(std::string(o.key), std::string(o.flag),
                                       std::string(e.what()) + "; leave it empty for no limit");
                }
            return;
        case K::Patterns: {
            std::vector<std::string> patterns;
            std::size_t line = 0, start = 0;
            while (start <= text.size()) {
                const std::size_t end = std::min(text.find('\n', start), text.size());
                ++line;
                const std::string one(trim(text.substr(start, end - start)));
                start = end + 1;
                if (one.empty()) continue;
                try {
                    BusyPatterns check({one});
                } catch (const UsageError& e) {
                    throw SettingError(std::string(o.key), std::string(o.flag),
                                       "line " + std::to_string(line) + ": " + e.what());
                }
                patterns.push_back(one);
            }
            p.*o.patterns = std::move(patterns);
            return;
        }
    }
}

namespace {

// Each threshold's flag, the pattern of the flag with its value as the policy writes it
// (40.0%, 8.00 GiB, 512 MiB, 30m00s, 250ms) or alone, and its label without its comparison
// ("Start when free ≥": the reason has its own). Made once.
struct FlagWords {
    std::string_view flag;
    std::regex pattern;
    std::string label;
};

const std::vector<FlagWords>& flagWords() {
    static const std::vector<FlagWords> words = [] {
        static const std::string kValue = R"(([0-9][0-9.hms]*(?:%| (?:B|KiB|MiB|GiB|TiB)\b)?))";
        std::vector<FlagWords> out;
        for (const auto& o : guardOptions()) {
            std::string label(o.label);
            for (const std::string_view sign : {" ≥", " ≤", " <", " >"})
                if (label.size() > sign.size() && label.ends_with(sign)) label.resize(label.size() - sign.size());
            const std::string flag(o.flag);
            out.push_back({o.flag, std::regex(flag + " " + kValue + "|" + flag + "\\b"), std::move(label)});
        }
        return out;
    }();
    return words;
}

// `text` (nothing quoted in it) with `w`'s flag in its words (see guardReasonInWords()).
std::string flagInWords(const std::string& text, const FlagWords& w) {
    if (text.find(w.flag) == std::string::npos) return text;
    std::string out;
    auto from = text.cbegin();
    for (std::sregex_iterator it(text.cbegin(), text.cend(), w.pattern), end; it != end; ++it) {
        out.append(from, (*it)[0].first);
        out += (*it)[1].matched ? (*it)[1].str() + " (" + w.label + ")" : w.label;
        from = (*it)[0].second;
    }
    out.append(from, text.cend());
    return out;
}

}  // namespace

std::string unsupportedOptionsNotice(const GuardParams& params, bool havePressure) {
    if (havePressure) return {};
    std::string flags;
    for (const auto& o : guardOptions())
        if (o.needsPressure && guardValueText(params, o) != guardValueText(GuardParams{}, o))
            flags += (flags.empty() ? "" : " and ") + std::string(o.flag);
    return flags.empty() ? std::string() : flags + " cannot work here: " + kNoPressureText;
}

std::string guardReasonInWords(std::string_view reason) {
    // What is quoted (a busy process's command line) is left as it is.
    std::string out;
    bool quoted = false;
    for (std::size_t start = 0; start <= reason.size();) {
        const auto end = std::min(reason.find('\'', start), reason.size());
        std::string part(reason.substr(start, end - start));
        if (!quoted)
            for (const auto& w : flagWords()) part = flagInWords(part, w);
        out += part;
        if (end < reason.size()) out += '\'';
        quoted = !quoted;
        start = end + 1;
    }
    return out;
}

}  // namespace stageload
