#pragma once
// Measures how late the GUI thread serves a steady timer: the benchmark of the app's
// responsiveness during a run (target: p99 < 50 ms).
//
//   LatencyProbe probe;          // GUI thread
//   probe.start();               // a 10 ms timer; each tick records how late it came
//   ... run ...
//   probe.stop();
//   auto s = probe.stats();      // s.p50, s.p99, s.max in ms, s.ticks
//
// GUI thread only.

#include <QElapsedTimer>
#include <QObject>
#include <QTimer>
#include <vector>

namespace stageload::chart {

struct LatencyStats {
    double p50 = 0.0, p99 = 0.0, max = 0.0;  ///< milliseconds late
    int ticks = 0;
};

/// Percentiles of `lateMs` (nearest rank). Empty input gives zeros.
LatencyStats latencyStats(std::vector<double> lateMs);

class LatencyProbe : public QObject {
    Q_OBJECT

public:
    explicit LatencyProbe(int intervalMs = 10, QObject* parent = nullptr);
    void start();
    void stop();
    LatencyStats stats() const { return latencyStats(late_); }

private:
    void tick();

    int intervalMs_;
    QTimer timer_;
    QElapsedTimer clock_;
    qint64 last_ = 0;
    std::vector<double> late_;
};

}  // namespace stageload::chart
