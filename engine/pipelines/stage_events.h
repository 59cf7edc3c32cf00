#pragma once
// What the registry did during one stage, counted from its event log. Shared by the pipelines'
// per-stage reports.

#include <cstdint>
#include <vector>

#include "guard/events/event.h"

namespace stageload {

struct StageEventCounts {
    int loads = 0;                  ///< load and reload events
    double loadSeconds = 0.0;
    std::int64_t loadBytes = 0;
    int releases = 0;
    std::int64_t releasedBytes = 0;
};

/// Counts events[from..end).
inline StageEventCounts countStageEvents(const std::vector<Event>& events, std::size_t from) {
    StageEventCounts c;
    for (std::size_t i = from; i < events.size(); ++i) {
        const auto& e = events[i];
        if (e.kind == EventKind::Load || e.kind == EventKind::Reload) {
            ++c.loads;
            c.loadSeconds += e.seconds;
            c.loadBytes += e.nbytes;
        } else if (e.kind == EventKind::Release) {
            ++c.releases;
            c.releasedBytes += e.nbytes;
        }
    }
    return c;
}

}  // namespace stageload
