// `stageload-chart-bench [TRACE] [--samples N]`: how the live memory chart copes with a long run.
// Stretches TRACE (default: the real staged Pixal3D trace in tests/data) to N samples at 20 Hz
// (default 72000: an hour), its events moved along, and feeds them through the live API with
// the event loop running, as the app would; then prints the cost of an append, of a replot and
// of a summary at that size. Renders offscreen; numbers go to stdout.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <QApplication>
#include <QElapsedTimer>
#include <qcustomplot.h>

#include "guard/base/error.h"
#include "guard/trace/trace_reader.h"
#include "ui/chart/memory_chart.h"

using namespace stageload;

namespace {

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
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--samples" && i + 1 < argc)
            total = std::max(1, std::atoi(argv[++i]));
        else
            path = arg;
    }
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
    const double scale = total * dt / std::max(trace.samples.back().t, 1e-3);
    std::size_t source = 0, nextEvent = 0;
    double worstMs = 0.0;
    QElapsedTimer wall;
    wall.start();
    for (int i = 0; i < total; ++i) {
        const double t = i * dt;
        while (source + 1 < trace.samples.size() && trace.samples[source + 1].t * scale <= t)
            ++source;
        MemorySample s = trace.samples[source];
        s.t = t;
        QElapsedTimer one;
        one.start();
        while (nextEvent < trace.events.size() && trace.events[nextEvent].t * scale <= t) {
            Event e = trace.events[nextEvent++];
            e.t = t;
            chart.appendEvent(e);
        }
        chart.appendSample(s);
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
    return 0;
}
