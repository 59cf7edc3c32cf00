#pragma once
// The samples and events of one run, as the memory chart shows them — no Qt, testable alone.
//
//   stageload::chart::RunData run;                       // live: append as data arrives
//   run.append(sample);                                  // O(1) amortised
//   run.append(event);
//   for (const auto& w : run.windows()) use(w.name, w.start, w.end, w.peakFootprint);
//   const stageload::Summary& s = run.summary();         // totals, per-stage seconds and peaks
//
//   stageload::chart::RunData recorded(stageload::readTrace("staged-1.trace.jsonl"));
//
// Stage windows and peaks come from stageload::summarize()/stageWindows() (guard/trace/summary.h),
// never from rules of its own. They are computed lazily: appending only marks the summary stale,
// and summary()/windows() recompute it (O(samples x stages), about a millisecond for an hour at
// 20 Hz) on the next call, so a caller that asks a few times a second stays cheap however fast
// samples arrive. Samples are expected in time order (the meter writes them so); valueAt() and
// sampleAt() rely on it. Throws nothing but std::bad_alloc. Not thread-safe: use one thread (the
// chart's GUI thread), references returned stay valid until the next append() or clear().

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "guard/trace/summary.h"
#include "ui/chart/chart_series.h"
#include "guard/trace/trace_reader.h"

namespace stageload::chart {

class RunData {
public:
    RunData() = default;
    /// A recorded run: takes the samples, events, meta and end state of `trace`.
    explicit RunData(Trace trace);

    /// Forgets everything (a new live run).
    void clear();
    /// Replaces the run with a recorded one (revision() keeps counting up).
    void reset(Trace trace);
    void append(const MemorySample& sample);
    void append(const Event& event);
    /// Marks the run as ended (the end line of a trace).
    void end();

    const Trace& trace() const { return trace_; }
    const std::vector<MemorySample>& samples() const { return trace_.samples; }
    const std::vector<Event>& events() const { return trace_.events; }

    /// Summary of the run so far (recomputed when data came in since the last call).
    const Summary& summary() const;
    /// Stage windows of the run so far, as stageWindows() gives them.
    const std::vector<StageWindow>& windows() const { return summary().stages; }
    /// Bumped by every change; a viewer compares it to what it last showed.
    std::uint64_t revision() const { return revision_; }

    /// Load, reload and release events: the ones the chart draws a tick for.
    int tickEvents() const { return ticks_; }
    /// Some sample carries "available" bytes (else the chart plots `level`, in percent).
    bool hasAvailable() const { return hasAvailable_; }
    /// Some sample has a value of `s` (GPU memory, a generator's own footprint, ...).
    bool hasValues(Series s) const { return hasValues_[static_cast<std::size_t>(s)]; }
    /// t of the last sample or event, 0 when empty.
    double lastT() const { return lastT_; }
    /// Largest value of a series on the bytes axis seen, in bytes (for the y range).
    double maxBytes() const { return maxBytes_; }

    /// The last sample at or before `t` (the first one when `t` is earlier), nullptr when empty.
    const MemorySample* sampleAt(double t) const;
    /// Name of the stage window that contains `t`, "" when there is none.
    std::string stageAt(double t) const;

private:
    void forget();
    void note(const MemorySample& sample);
    void note(const Event& event);

    Trace trace_;
    std::uint64_t revision_ = 0;
    int ticks_ = 0;
    bool hasAvailable_ = false;
    std::array<bool, kSeriesCount> hasValues_{};
    double lastT_ = 0.0;
    double maxBytes_ = 0.0;
    mutable Summary summary_;
    mutable std::uint64_t summaryRevision_ = ~std::uint64_t{0};
};

}  // namespace stageload::chart
