#pragma once
// The summary of a trace: totals and, per stage, seconds and peak footprint.
//
//   auto trace = stageload::readTrace("staged-1.trace.jsonl");
//   stageload::Summary s = stageload::summarize(trace);
//   for (const auto& w : s.stages)
//       printf("%s %.1f s %s GiB\n", w.name.c_str(), w.seconds,
//       stageload::formatGb(w.peakFootprint).c_str());
//
// Stage windows: an implicit `setup` from t=0 (left out when the first stage starts at 0);
// each stage event opens a window at its own t,
// unless release events follow it directly, then at the t of the last of those releases (the
// memory still belongs to the previous stage until the frees its start triggered are done);
// consecutive windows of the same name merge; a window runs to the next one's start, the last
// to the last sample, which it includes. A window without samples has no peak. Events count
// in the window of the last stage event before them (the releases a stage's start triggers
// are that stage's, as the engine's StageRunner counts them).
// Pure functions, thread-safe, throw nothing.

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "guard/trace/trace_reader.h"

namespace stageload {

struct StageWindow {
    std::string name;
    double start = 0.0;
    double end = 0.0;
    double seconds = 0.0;
    std::optional<std::int64_t> peakFootprint;  ///< nullopt when no sample fell in the window
    int samples = 0;
    /// The engine's exact high-water mark of the stage (its kStagePeakMark), when it wrote one:
    /// unlike the sampled peak it does not miss a stage shorter than the sample interval.
    std::optional<std::int64_t> highWater;
    int loads = 0;  ///< load and reload events from the window's stage event to the next one
    int releases = 0;
    std::int64_t weightBytes = 0;  ///< loaded minus released (and prebuilt) bytes at its end

    /// The stage's peak as forecasts learn it and compare with: the high-water mark when the
    /// engine wrote one, else the sampled peak.
    std::optional<std::int64_t> peak() const { return highWater ? highWater : peakFootprint; }
};

struct Summary {
    double duration = 0.0;  ///< t of the last sample (of the last event if there are none)
    int samples = 0;
    std::optional<std::int64_t> peakFootprint;
    /// The highest of the stages' high-water marks; nullopt when the trace has none.
    std::optional<std::int64_t> highWater;
    std::optional<std::int64_t> swapStart, swapPeak, swapEnd;
    std::optional<double> minLevel;
    int loads = 0;  ///< loads and reloads
    int reloads = 0;
    std::int64_t loadBytes = 0;
    double loadSeconds = 0.0;
    int releases = 0;
    std::int64_t releaseBytes = 0;
    std::vector<std::string> outsideStage;  ///< models loaded outside their stage, once each
    std::vector<TraceErrorLine> errors;
    std::vector<StageWindow> stages;
    std::string stoppedAt;   ///< the stage the run was stopped in (see stopMark()), else ""
    std::string stopReason;  ///< why: the guard's reason, "cancelled", or "" (a --stop-at)
    bool ended = false;
    bool truncated = false;

    /// Peak swap minus swap at start (nullopt without samples).
    std::optional<std::int64_t> swapRise() const;
    /// "end", "<last stage> (no end line)", or where and how it was stopped: "texture
    /// (stopped)" for a --stop-at, "texture (cancelled)", "texture (stopped by the guard: swap
    /// used … rose …)".
    std::string ranTo() const;
    /// True when the guard (not the user, not a --stop-at) stopped the run.
    bool stoppedByGuard() const;
};

/// The mark a run's trace gets when it is stopped before its end: "guard: stop: REASON", with
/// REASON "cancelled" when the user stopped it. A pipeline's own "stopped at STAGE" mark (the
/// cascade's --stop-at) is read as well.
std::string stopMark(const std::string& reason);
inline constexpr const char* kCancelledReason = "cancelled";
/// The reason of a run that was stopped because the program running it was ended (a signal, a
/// crash, a logout): "interrupted: WHY". Neither the user's cancel nor the guard's decision.
std::string interruptedReason(const std::string& why);
/// True for a reason made by interruptedReason().
bool isInterruption(const std::string& reason);

struct StopMark {
    std::string stage;   ///< from a "stopped at STAGE" mark; "" for the guard's (ask the windows)
    std::string reason;  ///< see Summary::stopReason
};
/// The stop a mark event records, if it is one.
std::optional<StopMark> stopMarkOf(const Event& e);

/// The stage windows of `events` over `samples` (both in trace order).
std::vector<StageWindow> stageWindows(const std::vector<Event>& events,
                                      const std::vector<MemorySample>& samples);

Summary summarize(const Trace& trace);

/// Bytes in GiB (2^30) rounded to 2 decimals, the way the published tables show them (they say
/// "GB"; the JSON keys ending in "_gb" keep that name for its readers, in GiB all the same).
double roundedGb(std::int64_t bytes);
/// "20.41", or "–" for nullopt.
std::string formatGb(std::optional<std::int64_t> bytes);

/// The full summary as JSON (bytes and rounded GiB side by side).
nlohmann::ordered_json toJson(const Summary& s);

/// A readable per-stage table (seconds, sampled peak, the engine's high-water mark where the
/// trace has one, weights resident at the end, loads, releases) with totals, for terminals.
/// What `stageload summary` and every `stageload run` print.
std::string formatTable(const Summary& s);

}  // namespace stageload
