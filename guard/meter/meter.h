#pragma once
// The memory meter: samples memory on its own thread and writes the trace.
//
//   stageload::MeterParams p;
//   p.tracePath = "run.trace.jsonl";
//   p.interval = 0.05;                                  // 20 ms .. any; default 0.5 s
//   p.meta = {{"pipeline", "character"}, {"seed", 7}};
//   stageload::Meter meter(std::move(p));               // first sample at t=0 right away
//   options.events = meter.eventSink();                 // engine events become event lines
//   meter.mark("stopped at texture");
//   meter.stop();                                       // last sample, then {"type":"end"}
//
// The sampling thread never waits for inference: it only takes the trace's mutex for one line.
// It inherits the signal mask of the thread that constructs the Meter (the guard blocks its
// signals first so they reach the guard's own thread).
// Throws: the constructor throws UsageError for an interval under 0.02 s or over 1 h and
// FileError when the trace cannot be created. Reader failures never throw: each distinct one is
// written once as an error line and the sample is skipped. All members are thread-safe;
// onSample runs on the meter thread and must not block for long.

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>

#include "guard/base/event.h"
#include "guard/memory/readers.h"

namespace stageload {

class TraceWriter;

struct MeterParams {
    std::string tracePath;  ///< empty: no file, samples only reach onSample / latest()
    double interval = 0.5;  ///< seconds between samples, at least 0.02
    nlohmann::json meta = nlohmann::json::object();  ///< extra keys of the start line
    MemoryReaders readers = processReaders();
    std::function<void(const MemorySample&)> onSample;  ///< called on the meter thread
    /// Each mark() once written (its t on the meter's clock), on the thread that called mark():
    /// a live chart draws a stop mark as the trace gets it.
    std::function<void(const Event&)> onMark;
};

class Meter {
public:
    using Clock = std::chrono::steady_clock;

    explicit Meter(MeterParams params);
    ~Meter();  ///< stop()
    Meter(const Meter&) = delete;
    Meter& operator=(const Meter&) = delete;

    /// Joins the thread, takes a last sample and writes the end line. Idempotent.
    void stop();

    /// Seconds since the meter started (its trace's `t`).
    double now() const;
    Clock::time_point epoch() const { return epoch_; }

    /// Writes each event at the meter's time of receipt (engine events are synchronous).
    EventSink eventSink();
    /// Writes each event at its own t converted from the emitter's epoch to the meter's clock.
    EventSink eventSink(Clock::time_point emitterEpoch);

    void mark(const std::string& note, const std::string& stage = {});
    /// An error line (once per distinct message).
    void error(const std::string& message);

    /// "" while every trace line was written, else what was lost and why (TraceWriter::problem).
    std::string traceProblem() const;

    std::optional<MemorySample> latest() const;
    std::size_t sampleCount() const;
    double interval() const { return params_.interval; }

private:
    void run();
    void takeSample();

    MeterParams params_;
    Clock::time_point epoch_;
    std::unique_ptr<TraceWriter> writer_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stopping_ = false;
    bool stopped_ = false;
    std::optional<MemorySample> latest_;
    std::size_t samples_ = 0;
    std::set<std::string> readFailures_;  ///< since the last good reading (sampling thread only)
    std::thread thread_;
};

}  // namespace stageload
