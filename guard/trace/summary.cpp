#include "guard/trace/summary.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "guard/base/units.h"

namespace stageload {

std::vector<StageWindow> stageWindows(const std::vector<Event>& events,
                                      const std::vector<MemorySample>& samples) {
    const auto window = [](std::string name, double start) {
        StageWindow w;
        w.name = std::move(name);
        w.start = start;
        return w;
    };
    std::vector<StageWindow> windows{window("setup", 0.0)};
    std::int64_t resident = 0;  // weights loaded and not yet released
    for (std::size_t i = 0; i < events.size(); ++i) {
        const auto& e = events[i];
        if (e.kind == EventKind::Stage) {
            double start = e.t;
            for (std::size_t j = i + 1; j < events.size() && events[j].kind == EventKind::Release; ++j)
                start = events[j].t;
            if (e.name != windows.back().name) windows.push_back(window(e.name, start));  // else merge
        }
        auto& w = windows.back();
        switch (e.kind) {
            case EventKind::Load:
            case EventKind::Reload:
                ++w.loads;
                resident = saturatingAdd(resident, e.nbytes);
                break;
            case EventKind::Release:
                ++w.releases;
                resident = std::max<std::int64_t>(0, resident - e.nbytes);
                break;
            case EventKind::Mark:
                if (e.note == "prebuilt") resident = saturatingAdd(resident, e.nbytes);
                if (e.name == kStagePeakMark && (!w.highWater || e.nbytes > *w.highWater))
                    w.highWater = e.nbytes;
                break;
            case EventKind::Stage:
                break;
        }
        w.weightBytes = resident;
    }
    double last = samples.empty() ? 0.0 : samples.back().t;
    for (const auto& e : events) last = samples.empty() ? std::max(last, e.t) : last;
    for (std::size_t k = 0; k < windows.size(); ++k) {
        auto& w = windows[k];
        const bool isLast = k + 1 == windows.size();
        w.end = isLast ? std::max(last, w.start) : windows[k + 1].start;
        w.seconds = w.end - w.start;
        for (const auto& s : samples) {
            const bool inside = s.t >= w.start && (isLast ? s.t <= w.end : s.t < w.end);
            if (!inside) continue;
            ++w.samples;
            if (!w.peakFootprint || s.footprint > *w.peakFootprint) w.peakFootprint = s.footprint;
        }
    }
    // A first stage at t = 0 leaves setup empty: it is not a window then.
    const auto& setup = windows.front();
    if (windows.size() > 1 && setup.seconds <= 0.0 && setup.samples == 0 && setup.loads == 0 &&
        setup.releases == 0)
        windows.erase(windows.begin());
    return windows;
}

std::optional<std::int64_t> Summary::swapRise() const {
    if (!swapStart || !swapPeak) return std::nullopt;
    return saturatingAdd(*swapPeak, -*swapStart);  // the reader keeps both >= 0
}

std::string stopMark(const std::string& reason) {
    return "guard: stop: " + reason;
}

std::optional<StopMark> stopMarkOf(const Event& e) {
    if (e.kind != EventKind::Mark) return std::nullopt;
    constexpr std::string_view kGuard = "guard: stop: ", kStoppedAt = "stopped at ";
    for (const std::string& text : {e.note, e.name}) {
        if (text.rfind(kGuard, 0) == 0) return StopMark{"", text.substr(kGuard.size())};
        if (text.rfind(kStoppedAt, 0) == 0) return StopMark{text.substr(kStoppedAt.size()), ""};
    }
    return std::nullopt;
}

namespace {
constexpr std::string_view kInterrupted = "interrupted: ";
}

std::string interruptedReason(const std::string& why) {
    return std::string(kInterrupted) + why;
}

bool isInterruption(const std::string& reason) {
    return reason.rfind(kInterrupted, 0) == 0;
}

bool Summary::stoppedByGuard() const {
    return !stoppedAt.empty() && !stopReason.empty() && stopReason != kCancelledReason &&
           !isInterruption(stopReason);
}

std::string Summary::ranTo() const {
    if (stoppedByGuard()) return stoppedAt + " (stopped by the guard: " + stopReason + ")";
    if (!stoppedAt.empty() && isInterruption(stopReason)) return stoppedAt + " (" + stopReason + ")";
    if (!stoppedAt.empty())
        return stoppedAt + (stopReason == kCancelledReason ? " (cancelled)" : " (stopped)");
    if (ended) return "end";
    return (stages.empty() ? std::string("setup") : stages.back().name) + " (no end line)";
}

Summary summarize(const Trace& trace) {
    Summary s;
    s.samples = static_cast<int>(trace.samples.size());
    s.ended = trace.ended;
    s.truncated = trace.truncated;
    s.errors = trace.errors;
    for (const auto& x : trace.samples) {
        if (!s.peakFootprint || x.footprint > *s.peakFootprint) s.peakFootprint = x.footprint;
        if (!s.swapPeak || x.swapUsed > *s.swapPeak) s.swapPeak = x.swapUsed;
        if (!s.minLevel || x.level < *s.minLevel) s.minLevel = x.level;
    }
    if (!trace.samples.empty()) {
        s.swapStart = trace.samples.front().swapUsed;
        s.swapEnd = trace.samples.back().swapUsed;
        s.duration = trace.samples.back().t;
    }
    for (const auto& e : trace.events) {
        if (trace.samples.empty()) s.duration = std::max(s.duration, e.t);
        switch (e.kind) {
            case EventKind::Reload:
                ++s.reloads;
                [[fallthrough]];
            case EventKind::Load:
                ++s.loads;
                s.loadBytes = saturatingAdd(s.loadBytes, e.nbytes);
                s.loadSeconds += e.seconds;
                if (e.note == "outside_stage" &&
                    std::find(s.outsideStage.begin(), s.outsideStage.end(), e.name) ==
                        s.outsideStage.end())
                    s.outsideStage.push_back(e.name);
                break;
            case EventKind::Release:
                ++s.releases;
                s.releaseBytes = saturatingAdd(s.releaseBytes, e.nbytes);
                break;
            case EventKind::Mark:
            case EventKind::Stage:
                break;
        }
    }
    s.stages = stageWindows(trace.events, trace.samples);
    for (const auto& w : s.stages)
        if (w.highWater && (!s.highWater || *w.highWater > *s.highWater)) s.highWater = w.highWater;
    // The first stop counts (a guard stop is followed by the runner's own exit mark).
    for (const auto& e : trace.events) {
        auto stop = stopMarkOf(e);
        if (!stop) continue;
        if (stop->stage.empty()) {
            stop->stage = s.stages.empty() ? std::string("setup") : s.stages.front().name;  // the window it falls in
            for (const auto& w : s.stages)
                if (w.start <= e.t) stop->stage = w.name;
        }
        s.stoppedAt = stop->stage;
        s.stopReason = stop->reason;
        break;
    }
    return s;
}

double roundedGb(std::int64_t bytes) {
    // printf rounds the exact binary value, as Python's round(x, 2) does.
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(bytes) / kGiB);
    return std::strtod(buf, nullptr);
}

std::string formatGb(std::optional<std::int64_t> bytes) {
    if (!bytes) return "–";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.2f", static_cast<double>(*bytes) / kGiB);
    return buf;
}

namespace {

nlohmann::ordered_json optBytes(std::optional<std::int64_t> v) {
    return v ? nlohmann::ordered_json(*v) : nlohmann::ordered_json(nullptr);
}
nlohmann::ordered_json optGb(std::optional<std::int64_t> v) {
    return v ? nlohmann::ordered_json(roundedGb(*v)) : nlohmann::ordered_json(nullptr);
}
double round3(double v) {
    return std::round(v * 1000.0) / 1000.0;
}

}  // namespace

nlohmann::ordered_json toJson(const Summary& s) {
    nlohmann::ordered_json j;
    j["duration"] = round3(s.duration);
    j["samples"] = s.samples;
    j["ran_to"] = s.ranTo();
    j["stopped_at"] =
        s.stoppedAt.empty() ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(s.stoppedAt);
    j["stop_reason"] = s.stopReason.empty() ? nlohmann::ordered_json(nullptr)
                                            : nlohmann::ordered_json(s.stopReason);
    j["stopped_by_guard"] = s.stoppedByGuard();
    j["ended"] = s.ended;
    j["truncated"] = s.truncated;
    j["peak_footprint"] = optBytes(s.peakFootprint);
    j["peak_footprint_gb"] = optGb(s.peakFootprint);
    j["high_water"] = optBytes(s.highWater);
    j["high_water_gb"] = optGb(s.highWater);
    j["swap"] = {{"start", optBytes(s.swapStart)},
                 {"peak", optBytes(s.swapPeak)},
                 {"end", optBytes(s.swapEnd)},
                 {"rise", optBytes(s.swapRise())},
                 {"rise_gb", optGb(s.swapRise())}};
    j["min_level"] = s.minLevel ? nlohmann::ordered_json(*s.minLevel) : nullptr;
    j["loads"] = {{"count", s.loads},
                  {"reloads", s.reloads},
                  {"bytes", s.loadBytes},
                  {"gb", roundedGb(s.loadBytes)},
                  {"seconds", round3(s.loadSeconds)}};
    j["releases"] = {
        {"count", s.releases}, {"bytes", s.releaseBytes}, {"gb", roundedGb(s.releaseBytes)}};
    j["outside_stage"] = s.outsideStage;
    auto errors = nlohmann::ordered_json::array();
    for (const auto& e : s.errors) errors.push_back({{"t", e.t}, {"error", e.error}});
    j["errors"] = errors;
    auto stages = nlohmann::ordered_json::array();
    for (const auto& w : s.stages)
        stages.push_back({{"name", w.name},
                          {"start", round3(w.start)},
                          {"seconds", round3(w.seconds)},
                          {"samples", w.samples},
                          {"peak_footprint", optBytes(w.peakFootprint)},
                          {"peak_footprint_gb", optGb(w.peakFootprint)},
                          {"high_water", optBytes(w.highWater)},
                          {"high_water_gb", optGb(w.highWater)},
                          {"weights", w.weightBytes},
                          {"weights_gb", roundedGb(w.weightBytes)},
                          {"loads", w.loads},
                          {"releases", w.releases}});
    j["stages"] = stages;
    return j;
}

/// Right-aligns `text` in `width` terminal columns (UTF-8 aware: "–" is one column).
static std::string padLeft(const std::string& text, std::size_t width) {
    std::size_t columns = 0;
    for (unsigned char c : text)
        if ((c & 0xC0) != 0x80) ++columns;
    return columns >= width ? text : std::string(width - columns, ' ') + text;
}

std::string formatTable(const Summary& s) {
    // Stage rows in GiB with seconds to 0.1 s, or, when nothing in them reaches 1 GiB, in MiB with
    // seconds to 0.01 s (a light run's 0.31 GiB, 0.00 GiB of weights and 0.0 s would say little).
    std::int64_t largest = std::max(s.peakFootprint.value_or(0), s.highWater.value_or(0));
    for (const auto& w : s.stages) largest = std::max(largest, w.weightBytes);
    const bool highWater = s.highWater.has_value();
    const bool gb = largest >= kGiB;
    const char* unit = gb ? "GiB" : "MiB";
    const auto amount = [gb](std::optional<std::int64_t> bytes) {
        if (gb || !bytes) return formatGb(bytes);
        char buf[64];
        std::snprintf(buf, sizeof buf, "%.1f", static_cast<double>(*bytes) / (1 << 20));
        return std::string(buf);
    };
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-16s %10s   peak (%s)", "stage", "seconds", unit);
    out += line;
    if (highWater) out += "  high-water";
    std::snprintf(line, sizeof line, "  weights (%s)  loads  releases\n", unit);
    out += line;
    for (const auto& w : s.stages) {
        std::snprintf(line, sizeof line, "%-16s %10.*f ", w.name.c_str(), gb ? 1 : 2, w.seconds);
        out += line + padLeft(amount(w.peakFootprint), 12);
        if (highWater) out += padLeft(amount(w.highWater), 12);
        std::snprintf(line, sizeof line, " %13s %6d %9d\n", amount(w.weightBytes).c_str(), w.loads,
                      w.releases);
        out += line;
    }
    std::snprintf(line, sizeof line, "%-16s %10.*f ", "total", gb ? 1 : 2, s.duration);
    out += line + padLeft(amount(s.peakFootprint), 12);
    if (highWater) out += padLeft(amount(s.highWater), 12);
    std::snprintf(line, sizeof line, " %13s %6d %9d\n", "", s.loads, s.releases);
    out += line;
    out +=
        "\nran to:        " + s.ranTo() + (s.truncated ? " (last line half-written)" : "") + "\n";
    out += "swap (GiB):    start " + formatGb(s.swapStart) + ", peak " + formatGb(s.swapPeak) +
           ", end " + formatGb(s.swapEnd) + ", rise " + formatGb(s.swapRise()) + "\n";
    if (s.minLevel) {
        std::snprintf(line, sizeof line, "min level:     %.0f %% available\n", *s.minLevel);
        out += line;
    }
    std::snprintf(line, sizeof line, "loads:         %d (%d reloads), %s GiB in %.1f s\n", s.loads,
                  s.reloads, formatGb(s.loadBytes).c_str(), s.loadSeconds);
    out += line;
    std::snprintf(line, sizeof line, "releases:      %d, %s GiB\n", s.releases,
                  formatGb(s.releaseBytes).c_str());
    out += line;
    if (!s.outsideStage.empty()) {
        out += "outside stage:";
        for (const auto& name : s.outsideStage) out += " " + name;
        out += "\n";
    }
    std::snprintf(line, sizeof line, "errors:        %zu\n", s.errors.size());
    out += line;
    for (const auto& e : s.errors) {
        std::snprintf(line, sizeof line, "  t=%.3f: ", e.t);
        out += line + e.error + "\n";
    }
    return out;
}

}  // namespace stageload
