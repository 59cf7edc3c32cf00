// `stageload-chart-bench [TRACE] [--samples N] [--long-run N] [--live-seconds S]`: how the live
// memory chart copes with long runs. Renders offscreen; numbers go to stdout.
//
// First, TRACE (default: the real staged Pixal3D trace in tests/data) stretched to N samples at
// 20 Hz (default 72000: an hour), its events moved along, fed through the live API with the
// event loop running, as the app would: the cost of an append, of a replot and of a summary at
// that size.
//
// Then what an artist comparing hour-long generator runs has on screen: two runs of --long-run
// samples at 100 ms (default 36000: an hour each) shown as overlays, and a live run that has
// reached the same length and goes on appending a sample every 100 ms for --live-seconds
// (default 20) of real time. A 10 ms timer on the GUI thread measures how late the event loop
// serves it (p50 / p99 / max; target p99 < 50 ms), and the process's footprint is read before
// the chart exists and at the end (target: the app under 300 MiB).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>
#include <qcustomplot.h>

#include "guard/base/error.h"
#include "guard/memory/process_memory.h"
#include "guard/trace/trace_reader.h"
#include "ui/chart/latency_probe.h"
#include "ui/chart/memory_chart.h"

using namespace stageload;

namespace {

// `trace` stretched (or shrunk) to `count` samples `dt` apart, its events moved along with them.
Trace stretched(const Trace& trace, int count, double dt) {
    Trace out;
    out.start = trace.start;
    const double scale = count * dt / std::max(trace.samples.back().t, 1e-3);
    std::size_t source = 0, nextEvent = 0;
    out.samples.reserve(static_cast<std::size_t>(count));
    for (int i = 0; i < count; ++i) {
        const double t = i * dt;
        while (source + 1 < trace.samples.size() && trace.samples[source + 1].t * scale <= t)
            ++source;
        while (nextEvent < trace.events.size() && trace.events[nextEvent].t * scale <= t) {
            Event e = trace.events[nextEvent++];
            e.t = t;
            out.events.push_back(std::move(e));
        }
        MemorySample s = trace.samples[source];
        s.t = t;
        out.samples.push_back(std::move(s));
    }
    out.ended = true;
    return out;
}

// Feeds `trace`'s samples [from, to) and the events up to them into the live chart; `nextEvent`
// carries on between calls.
void feed(chart::MemoryChart& chart, const Trace& trace, std::size_t from, std::size_t to,
          std::size_t& nextEvent) {
    for (std::size_t i = from; i < to; ++i) {
        const MemorySample& s = trace.samples[i];
        while (nextEvent < trace.events.size() && trace.events[nextEvent].t <= s.t)
            chart.appendEvent(trace.events[nextEvent++]);
        chart.appendSample(s);
    }
}

double mib(std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

double msPerCall(int calls, const auto& call) {
    QElapsedTimer timer;
    timer.start();
    for (int i = 0; i < calls; ++i) call();
    return static_cast<double>(timer.nsecsElapsed()) / 1e6 / calls;
}

}  // namespace

int main(int argc, char** argv) {
    std::string path = STAGELOAD_BENCH_TRACE;
    int total = 72000;
    int longRun = 36000;
    int liveSeconds = 20;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--samples" && i + 1 < argc)
            total = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--long-run" && i + 1 < argc)
            longRun = std::max(1, std::atoi(argv[++i]));
        else if (arg == "--live-seconds" && i + 1 < argc)
            liveSeconds = std::max(0, std::atoi(argv[++i]));
        else
            path = arg;
    }
    const std::int64_t footprintBefore = readFootprint();
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    QApplication app(argc, argv);

    Trace trace;
    try {
        trace = readTrace(path);
    } catch (const Error& e) {
        std::fprintf(stderr, "stageload-chart-bench: %s\n", e.what());
        return 1;
    }
    if (trace.samples.empty()) {
        std::fprintf(stderr, "stageload-chart-bench: %s has no samples\n", path.c_str());
        return 1;
    }

    chart::MemoryChart chart;
    chart.resize(1400, 700);
    chart.show();
    chart.beginRun(QStringLiteral("bench"));
    int replots = 0;
    QObject::connect(chart.plot(), &QCustomPlot::afterReplot, [&replots] { ++replots; });

    const double dt = 0.05;  // 20 Hz
    const Trace hour = stretched(trace, total, dt);
    double worstMs = 0.0;
    std::size_t nextEvent = 0;
    QElapsedTimer wall;
    wall.start();
    for (std::size_t i = 0; i < hour.samples.size(); ++i) {
        QElapsedTimer one;
        one.start();
        feed(chart, hour, i, i + 1, nextEvent);
        worstMs = std::max(worstMs, static_cast<double>(one.nsecsElapsed()) / 1e6);
        QCoreApplication::processEvents();  // timers and replots run as they would in the app
    }
    const double feedS = static_cast<double>(wall.nsecsElapsed()) / 1e9;
    chart.endRun();

    const double replotMs =
        msPerCall(10, [&] { chart.plot()->replot(QCustomPlot::rpImmediateRefresh); });
    const double summaryMs = msPerCall(10, [&] {
        MemorySample s = trace.samples.back();
        s.t = chart.run().lastT() + dt;
        chart.appendSample(s);
        (void)chart.summary();
    });
    std::printf("trace:            %s (%zu samples, stretched)\n", path.c_str(),
                trace.samples.size());
    std::printf("live samples:     %d at 20 Hz (%.0f s of run), %zu bands, %d ticks\n", total,
                total * dt, chart.bands().size(), chart.tickCount());
    std::printf("fed in:           %.2f s (%.1f us a sample incl. the event loop; worst %.2f ms)\n",
                feedS, feedS * 1e6 / total, worstMs);
    std::printf("replots while fed: %d (coalesced: at most 20 a second), %.1f ms on average\n",
                replots, chart.plot()->replotTime(true));
    std::printf("replot at the end: %.1f ms (%.0f a second possible)\n", replotMs,
                1000.0 / replotMs);
    std::printf("summary at the end: %.2f ms (at most 4 a second while live)\n", summaryMs);
    if (liveSeconds == 0) return 0;

    // Two hour-long runs shown as overlays and a live one as long, still appending.
    const double longDt = 0.1;
    const Trace earlier = stretched(trace, longRun, longDt);
    chart::MemoryChart compared;
    compared.resize(1400, 700);
    compared.show();
    compared.addOverlay(earlier, QStringLiteral("earlier run 1"));
    compared.addOverlay(earlier, QStringLiteral("earlier run 2"));
    compared.beginRun(QStringLiteral("live"));
    std::size_t next = 0;
    nextEvent = 0;
    for (; next < earlier.samples.size(); next += 100) {  // catch up to an hour, 100 at a time
        feed(compared, earlier, next, std::min(next + 100, earlier.samples.size()), nextEvent);
        QCoreApplication::processEvents();
    }
    double t = earlier.samples.back().t;
    std::size_t source = 0;
    QTimer sampler;
    QObject::connect(&sampler, &QTimer::timeout, [&] {  // the meter's 100 ms, from the trace again
        MemorySample s = earlier.samples[source];
        source = (source + 1) % earlier.samples.size();
        t += longDt;
        s.t = t;
        compared.appendSample(s);
    });
    chart::LatencyProbe probe;
    QEventLoop loop;
    sampler.start(static_cast<int>(longDt * 1000));
    probe.start();
    QTimer::singleShot(liveSeconds * 1000, &loop, &QEventLoop::quit);
    loop.exec();
    probe.stop();
    sampler.stop();
    const auto late = probe.stats();
    const std::int64_t footprintAfter = readFootprint();
    const double comparedReplotMs =
        msPerCall(10, [&] { compared.plot()->replot(QCustomPlot::rpImmediateRefresh); });
    const double comparedSummaryMs = msPerCall(10, [&] {
        MemorySample s = earlier.samples.back();
        t += longDt;
        s.t = t;
        compared.appendSample(s);
        (void)compared.summary();
    });
    std::printf("long runs:        2 overlays of %d samples at 100 ms (%.0f s each) and a live run "
                "of %d+ samples appending for %d s\n",
                longRun, longRun * longDt, compared.pointCount(chart::Series::Footprint), liveSeconds);
    std::printf("GUI lateness:     p50 %.1f ms, p99 %.1f ms, max %.1f ms over %d ticks of 10 ms "
                "(target p99 < 50 ms)\n",
                late.p50, late.p99, late.max, late.ticks);
    std::printf("with overlays:    a replot %.1f ms, a summary %.2f ms\n", comparedReplotMs,
                comparedSummaryMs);
    std::printf("footprint:        %.0f MiB at start, %.0f MiB with both charts (+%.0f MiB)\n",
                mib(footprintBefore), mib(footprintAfter), mib(footprintAfter - footprintBefore));
    return 0;
}
