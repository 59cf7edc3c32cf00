#include "ui/chart/run_data.h"

#include <algorithm>

namespace stageload::chart {

RunData::RunData(Trace trace) {
    reset(std::move(trace));
}

void RunData::forget() {
    ticks_ = 0;
    hasAvailable_ = false;
    hasValues_.fill(false);
    lastT_ = maxBytes_ = 0.0;
    ++revision_;
}

void RunData::clear() {
    trace_ = Trace{};
    forget();
}

void RunData::reset(Trace trace) {
    trace_ = std::move(trace);
    forget();
    for (const auto& s : trace_.samples) note(s);
    for (const auto& e : trace_.events) note(e);
}

void RunData::append(const MemorySample& sample) {
    trace_.samples.push_back(sample);
    note(sample);
    ++revision_;
}

void RunData::append(const Event& event) {
    trace_.events.push_back(event);
    note(event);
    ++revision_;
}

void RunData::end() {
    trace_.ended = true;
    ++revision_;
}

void RunData::note(const MemorySample& s) {
    lastT_ = std::max(lastT_, s.t);
    if (s.available > 0) hasAvailable_ = true;
    for (std::size_t i = 0; i < kSeriesCount; ++i) {
        const auto v = kSeriesTable[i].value(s);
        if (!v) continue;
        hasValues_[static_cast<std::size_t>(kSeriesTable[i].series)] = true;
        if (kSeriesTable[i].axis == SeriesAxis::Bytes) maxBytes_ = std::max(maxBytes_, *v);
    }
}

void RunData::note(const Event& e) {
    lastT_ = std::max(lastT_, e.t);
    if (e.kind == EventKind::Load || e.kind == EventKind::Reload || e.kind == EventKind::Release)
        ++ticks_;
}

const Summary& RunData::summary() const {
    if (summaryRevision_ != revision_) {
        summary_ = summarize(trace_);
        summaryRevision_ = revision_;
    }
    return summary_;
}

const MemorySample* RunData::sampleAt(double t) const {
    const auto& s = trace_.samples;
    if (s.empty()) return nullptr;
    auto it = std::upper_bound(s.begin(), s.end(), t,
                               [](double v, const MemorySample& x) { return v < x.t; });
    return it == s.begin() ? &s.front() : &*(it - 1);
}

std::string RunData::stageAt(double t) const {
    const auto& w = windows();
    for (std::size_t k = 0; k < w.size(); ++k) {
        const bool isLast = k + 1 == w.size();
        if (t >= w[k].start && (isLast ? t <= w[k].end : t < w[k].end)) return w[k].name;
    }
    return {};
}

}  // namespace stageload::chart
