#include "guard/base/event.h"

#include <array>
#include <utility>

#include <spdlog/spdlog.h>

namespace stageload {
namespace {

constexpr std::array<std::pair<EventKind, std::string_view>, 5> kKindNames{{
    {EventKind::Load, "load"},
    {EventKind::Reload, "reload"},
    {EventKind::Release, "release"},
    {EventKind::Stage, "stage"},
    {EventKind::Mark, "mark"},
}};

}  // namespace

std::string_view toString(EventKind kind) {
    for (const auto& [k, name] : kKindNames)
        if (k == kind) return name;
    return "unknown";
}

EventKind eventKindFromString(std::string_view name) {
    for (const auto& [k, n] : kKindNames)
        if (n == name) return k;
    throw EventError("unknown event kind '" + std::string(name) +
                     "': expected one of load, reload, release, stage, mark");
}

EventSink fanOut(std::vector<EventSink> sinks) {
    return [sinks = std::move(sinks)](const Event& e) {
        for (const auto& sink : sinks)
            if (sink) sink(e);
    };
}

EventSink loggingSink() {
    return [](const Event& e) {
        auto mib = static_cast<double>(e.nbytes) / (1024.0 * 1024.0);
        switch (e.kind) {
            case EventKind::Stage:
                spdlog::info("stage '{}' begins", e.name);
                break;
            case EventKind::Load:
            case EventKind::Reload:
                spdlog::info("{} '{}' in stage '{}': {:.1f} MiB in {:.2f}s{}{}", toString(e.kind),
                             e.name, e.stage, mib, e.seconds, e.note.empty() ? "" : " ", e.note);
                break;
            case EventKind::Release:
                spdlog::info("release '{}' in stage '{}': {:.1f} MiB freed{}{}", e.name, e.stage,
                             mib, e.note.empty() ? "" : " ", e.note);
                break;
            case EventKind::Mark:
                spdlog::info("mark '{}' in stage '{}'{}{}", e.name, e.stage,
                             e.note.empty() ? "" : ": ", e.note);
                break;
        }
    };
}

EventSink EventLog::sink() {
    return [this](const Event& e) {
        std::lock_guard lock(mutex_);
        events_.push_back(e);
    };
}

std::vector<Event> EventLog::events() const {
    std::lock_guard lock(mutex_);
    return events_;
}

std::vector<Event> EventLog::events(EventKind kind) const {
    std::lock_guard lock(mutex_);
    std::vector<Event> out;
    for (const auto& e : events_)
        if (e.kind == kind) out.push_back(e);
    return out;
}

void EventLog::clear() {
    std::lock_guard lock(mutex_);
    events_.clear();
}

}  // namespace stageload
