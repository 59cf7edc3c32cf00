#pragma once
// Pipeline events: what the engine's registry reports and what a trace records.
//
//   stageload::Event e{stageload::EventKind::Load, "unet", "structure", 1 << 30, 2.5};
//   auto kind = stageload::eventKindFromString("release");   // throws EventError if unknown
//
// Kinds and field names match the Python stageload trace format.

#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <vector>

#include "guard/base/error.h"

namespace stageload {

enum class EventKind { Load, Reload, Release, Stage, Mark };

/// An event kind that is not one of load, reload, release, stage, mark.
class EventError : public Error {
public:
    using Error::Error;
};

/// "load", "reload", "release", "stage" or "mark".
std::string_view toString(EventKind kind);

/// Parses a kind name; throws EventError naming the bad kind and the valid ones.
EventKind eventKindFromString(std::string_view name);

struct Event {
    EventKind kind = EventKind::Mark;
    std::string name;         ///< model name (load/reload/release), stage name (stage), label (mark)
    std::string stage;        ///< the stage current when the event happened ("" before the first)
    std::int64_t nbytes = 0;  ///< bytes loaded or freed
    double seconds = 0.0;     ///< time the load took
    std::string note;         ///< e.g. "outside_stage" or "kept=3"
    double t = 0.0;           ///< seconds since the emitter's epoch
};

/// The label of the `mark` a staged pipeline emits at the end of each stage: `stage` is the
/// stage, `nbytes` its exact peak resident memory (VmHWM) and `seconds` its duration. The
/// trace summary reports it beside the sampled peak.
inline constexpr const char* kStagePeakMark = "stage_peak";

/// Receives events on the thread that emitted them; must not throw.
using EventSink = std::function<void(const Event&)>;

/// Calls every non-empty sink in order.
EventSink fanOut(std::vector<EventSink> sinks);

/// A sink that writes each event to the "stageload" spdlog logger at info level.
EventSink loggingSink();

/// Collects events in memory. Thread-safe; sink() stays valid while the log lives.
class EventLog {
public:
    EventSink sink();
    std::vector<Event> events() const;
    std::vector<Event> events(EventKind kind) const;
    void clear();

private:
    mutable std::mutex mutex_;
    std::vector<Event> events_;
};

}  // namespace stageload
