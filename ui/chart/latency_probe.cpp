#include "ui/chart/latency_probe.h"

#include <algorithm>
#include <cmath>

namespace stageload::chart {

LatencyStats latencyStats(std::vector<double> lateMs) {
    LatencyStats s;
    if (lateMs.empty()) return s;
    std::sort(lateMs.begin(), lateMs.end());
    auto rank = [&](double q) {
        const auto i = static_cast<std::size_t>(std::ceil(q * static_cast<double>(lateMs.size())));
        return lateMs[std::clamp<std::size_t>(i, 1, lateMs.size()) - 1];
    };
    s.p50 = rank(0.50);
    s.p99 = rank(0.99);
    s.max = lateMs.back();
    s.ticks = static_cast<int>(lateMs.size());
    return s;
}

LatencyProbe::LatencyProbe(int intervalMs, QObject* parent)
    : QObject(parent), intervalMs_(intervalMs) {
    timer_.setTimerType(Qt::PreciseTimer);
    timer_.setInterval(intervalMs_);
    connect(&timer_, &QTimer::timeout, this, &LatencyProbe::tick);
}

void LatencyProbe::start() {
    late_.clear();
    clock_.start();
    last_ = 0;
    timer_.start();
}

void LatencyProbe::stop() { timer_.stop(); }

void LatencyProbe::tick() {
    const qint64 now = clock_.nsecsElapsed();
    const double gapMs = static_cast<double>(now - last_) / 1e6;
    last_ = now;
    late_.push_back(std::max(0.0, gapMs - intervalMs_));
}

}  // namespace stageload::chart
