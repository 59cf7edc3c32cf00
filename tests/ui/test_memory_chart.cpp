// The memory chart (ui/chart) fed the real staged Pixal3D trace: its bands are the stage windows
// of stageWindows(), its peak table reproduces summarize() and the published table
// (tests/data/traces/table.md), the live API gives what showTrace gives, ticks, series,
// overlays, hover texts, and saving to PNG/SVG/PDF. Runs offscreen.
#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QImage>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>
#include <qcustomplot.h>

#include "guard/policy/guard_levels.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "ui/chart/display_units.h"
#include "ui/chart/memory_chart.h"
#include "ui/chart/render_chart.h"
#include "ui/chart/run_data.h"
#include "ui/chart/stage_peak_table.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::chart;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_memory_chart {

namespace {

// Shows `chart` at width × height and waits until it is on screen.
bool showAt(MemoryChart& chart, int width, int height) {
    chart.resize(width, height);
    chart.show();
    return QTest::qWaitForWindowExposed(&chart);
}

std::string repoPath(const std::string& relative) {
    return std::string(STAGELOAD_SOURCE_DIR) + "/" + relative;
}

/// The staged column of table.md's per-stage table, run 1: stage -> "2.93" or "–".
std::map<std::string, std::string> publishedStagedPeaks() {
    std::ifstream in(repoPath("tests/data/traces/table.md"));
    std::map<std::string, std::string> peaks;
    std::string line;
    bool stageTable = false;
    while (std::getline(in, line)) {
        std::vector<std::string> cells;
        std::stringstream row(line);
        std::string cell;
        std::getline(row, cell, '|');
        while (std::getline(row, cell, '|')) {
            const auto b = cell.find_first_not_of(' ');
            const auto e = cell.find_last_not_of(' ');
            cells.push_back(b == std::string::npos ? "" : cell.substr(b, e - b + 1));
        }
        if (cells.size() < 3 || cells[0].rfind("---", 0) == 0) continue;
        if (cells[0] == "stage") {
            stageTable = true;
            continue;
        }
        if (stageTable) peaks[cells[0]] = cells[2].substr(0, cells[2].find(" / "));
    }
    return peaks;
}

MemorySample sampleAt(double t, double footprintGiB, double freePercent) {
    MemorySample s;
    s.t = t;
    s.footprint = static_cast<std::int64_t>(footprintGiB * double(1 << 30));
    s.level = freePercent;
    s.available = static_cast<std::int64_t>(freePercent / 100.0 * 24.0 * double(1 << 30));
    return s;
}

/// Points of the plot's visible graphs that fall inside `rect` (pixels).
int pointsIn(const QCustomPlot& plot, const QRectF& rect) {
    int inside = 0;
    for (int g = 0; g < plot.graphCount(); ++g) {
        const QCPGraph* graph = plot.graph(g);
        if (!graph->visible()) continue;
        for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
            const QPointF p(graph->keyAxis()->coordToPixel(it->key), graph->valueAxis()->coordToPixel(it->value));
            if (rect.contains(p)) ++inside;
        }
    }
    return inside;
}

/// Samples and events of `trace` merged in time order, as a live run delivers them.
template <typename OnSample, typename OnEvent>
void replay(const Trace& trace, std::size_t upToSample, OnSample onSample, OnEvent onEvent) {
    std::size_t e = 0;
    for (std::size_t i = 0; i < upToSample && i < trace.samples.size(); ++i) {
        while (e < trace.events.size() && trace.events[e].t <= trace.samples[i].t)
            onEvent(trace.events[e++]);
        onSample(trace.samples[i]);
    }
    if (upToSample >= trace.samples.size())
        while (e < trace.events.size()) onEvent(trace.events[e++]);
}

int tickEvents(const Trace& trace) {
    int n = 0;
    for (const auto& e : trace.events)
        n += e.kind == EventKind::Load || e.kind == EventKind::Reload ||
             e.kind == EventKind::Release;
    return n;
}

/// Whether `image` has a pixel within `tolerance` of `color`.
bool hasColor(const QImage& image, const QColor& color, int tolerance = 24) {
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) {
            const QColor c = image.pixelColor(x, y);
            if (std::abs(c.red() - color.red()) + std::abs(c.green() - color.green()) +
                    std::abs(c.blue() - color.blue()) <=
                tolerance)
                return true;
        }
    return false;
}

void compareBands(const std::vector<ChartBand>& bands, const std::vector<StageWindow>& windows) {
    QCOMPARE(bands.size(), windows.size());
    for (std::size_t i = 0; i < windows.size(); ++i) {
        QCOMPARE(bands[i].name, QString::fromStdString(windows[i].name));
        QCOMPARE(bands[i].start, windows[i].start);
        QCOMPARE(bands[i].end, windows[i].end);
    }
}

QStringList tableRow(const StagePeakTable& table, int row) {
    QStringList cells;
    for (int c = 0; c < table.columnCount(); ++c)
        if (!table.isColumnHidden(c)) cells << table.item(row, c)->text();
    return cells;
}

}  // namespace

class TestMemoryChart : public QObject {
    Q_OBJECT

    Trace staged_;
    Trace eager_;

private slots:
    void initTestCase() {
        staged_ = readTrace(repoPath("tests/data/traces/staged-1.trace.jsonl"));
        eager_ = readTrace(repoPath("tests/data/traces/eager-1.trace.jsonl"));
        QVERIFY(staged_.samples.size() > 900);
        QVERIFY(tickEvents(staged_) > 0);
    }

    void runDataFollowsTheGoldenCase() {
        // The summary's golden case (test_summary.cpp), through the model's incremental API.
        RunData run;
        const auto sample = [](double t, std::int64_t footprint) {
            MemorySample s;
            s.t = t;
            s.footprint = footprint;
            return s;
        };
        run.append(sample(0.0, 100));
        run.append(Event{EventKind::Stage, "structure", "", 0, 0.0, "", 0.1});
        run.append(sample(1.0, 300));
        run.append(Event{EventKind::Stage, "texture", "", 0, 0.0, "", 2.0});
        run.append(Event{EventKind::Release, "unet", "texture", 1 << 20, 0.0, "", 2.1});
        run.append(sample(3.0, 250));
        QCOMPARE(run.windows().back().peakFootprint, std::optional<std::int64_t>(250));
        run.append(sample(4.0, 120));  // the cached summary must notice
        const auto& w = run.windows();
        QCOMPARE(w.size(), std::size_t(3));
        QCOMPARE(w[0].name, std::string("setup"));
        QCOMPARE(w[0].seconds, 0.1);
        QCOMPARE(w[1].name, std::string("structure"));
        QCOMPARE(w[1].peakFootprint, std::optional<std::int64_t>(300));
        QCOMPARE(w[2].name, std::string("texture"));
        QCOMPARE(w[2].start, 2.1);
        QCOMPARE(w[2].seconds, 1.9);
        QCOMPARE(run.tickEvents(), 1);
        QCOMPARE(run.sampleAt(3.5)->footprint, std::int64_t(250));
        QCOMPARE(run.stageAt(1.5), std::string("structure"));
        QCOMPARE(run.stageAt(4.0), std::string("texture"));
        QVERIFY(!run.hasAvailable());
        QVERIFY(!run.hasValues(Series::Gpu));
    }

    void bandsAreTheStageWindows() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        const auto windows = stageWindows(staged_.events, staged_.samples);
        QVERIFY(windows.size() >= 8);
        compareBands(chart.bands(), windows);
        QCOMPARE(chart.bands().front().name, QString("setup"));
        QCOMPARE(chart.bands().back().name, QString("export"));
    }

    void peakTableReproducesTheSummaryAndThePublishedTable() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        const Summary s = summarize(staged_);
        const StagePeakTable& table = *chart.peakTable();
        QCOMPARE(table.stageRows(), static_cast<int>(s.stages.size()));
        QCOMPARE(table.rowCount(), table.stageRows() + 1);
        const auto published = publishedStagedPeaks();
        QVERIFY(published.size() >= 8);
        for (int row = 0; row < table.stageRows(); ++row) {
            const StageWindow& w = s.stages[static_cast<std::size_t>(row)];
            const QStringList cells = tableRow(table, row);
            QCOMPARE(cells[0], QString::fromStdString(w.name));
            QCOMPARE(cells[1], QString::number(w.seconds, 'f', 1));
            QCOMPARE(cells[2], QString::fromStdString(formatGb(w.peakFootprint)));
            QVERIFY2(published.count(w.name), w.name.c_str());
            const std::string expected = published.at(w.name);
            if (expected == "–")
                QCOMPARE(cells[2], QString::fromUtf8("–"));
            else
                QCOMPARE(cells[2].toDouble(), std::strtod(expected.c_str(), nullptr));
        }
        const QStringList total = tableRow(table, table.stageRows());
        QCOMPARE(total[0], QString("total"));
        QCOMPARE(total[1], QString("595.9"));
        QCOMPARE(total[2], QString("69.57"));
        QCOMPARE(chart.summary().peakFootprint, s.peakFootprint);
        // A trace without the engine's stage_peak marks has no high-water column to show.
        QVERIFY(table.isColumnHidden(StagePeakTable::HighWaterColumn));
    }

    // With the engine's stage_peak marks the table shows each stage's high-water mark, as
    // `stageload summary` does.
    void peakTableShowsTheHighWaterMarkWhereTheTraceHasIt() {
        Trace t;
        for (int i = 0; i <= 10; ++i) {
            MemorySample m;
            m.t = i * 0.5;
            m.footprint = std::int64_t(1) << 30;
            t.samples.push_back(m);
        }
        Event stage;
        stage.kind = EventKind::Stage;
        stage.name = "texture";
        stage.t = 1.0;
        Event peak;
        peak.kind = EventKind::Mark;
        peak.name = kStagePeakMark;
        peak.stage = "texture";
        peak.nbytes = std::int64_t(3) << 30;
        peak.t = 4.0;
        t.events = {stage, peak};
        MemoryChart chart;
        chart.showTrace(t, "marked");
        const StagePeakTable& table = *chart.peakTable();
        QVERIFY(!table.isColumnHidden(StagePeakTable::HighWaterColumn));
        QCOMPARE(tableRow(table, 1)[StagePeakTable::HighWaterColumn], QString("3.00"));  // texture
        QCOMPARE(tableRow(table, 0)[StagePeakTable::HighWaterColumn], QString::fromUtf8("–"));  // setup
        QCOMPARE(tableRow(table, table.stageRows())[StagePeakTable::HighWaterColumn], QString("3.00"));
    }

    void liveRunGivesWhatShowTraceGives() {
        MemoryChart recorded;
        recorded.showTrace(staged_, "staged-1");

        MemoryChart live;
        live.beginRun("live");
        QVERIFY(live.isLive());
        QVERIFY(live.bands().empty());
        // Half way: after a flush the bands are the stage windows of what arrived so far.
        const std::size_t half = staged_.samples.size() / 2;
        Trace prefix;
        replay(
            staged_, half,
            [&](const MemorySample& s) {
                live.appendSample(s);
                prefix.samples.push_back(s);
            },
            [&](const Event& e) {
                live.appendEvent(e);
                prefix.events.push_back(e);
            });
        live.flush();
        compareBands(live.bands(), stageWindows(prefix.events, prefix.samples));
        QCOMPARE(live.pointCount(Series::Footprint), static_cast<int>(half));

        // The rest, one by one; the throttled refresh catches up without endRun().
        Trace rest = staged_;
        std::size_t i = 0, e = 0;
        replay(
            staged_, staged_.samples.size(),
            [&](const MemorySample& s) {
                if (i++ >= half) live.appendSample(s);
            },
            [&](const Event& ev) {
                if (e++ >= prefix.events.size()) live.appendEvent(ev);
            });
        QTRY_COMPARE_WITH_TIMEOUT(live.bands().size(), recorded.bands().size(), 5000);
        QTRY_COMPARE_WITH_TIMEOUT(live.peakTable()->rowCount(), recorded.peakTable()->rowCount(),
                                  5000);
        live.endRun();
        QVERIFY(!live.isLive());
        compareBands(live.bands(), stageWindows(staged_.events, staged_.samples));
        for (int row = 0; row < recorded.peakTable()->rowCount(); ++row)
            QCOMPARE(tableRow(*live.peakTable(), row), tableRow(*recorded.peakTable(), row));
        QCOMPARE(live.summary().peakFootprint, recorded.summary().peakFootprint);
        QCOMPARE(live.pointCount(Series::Footprint), recorded.pointCount(Series::Footprint));
        QCOMPARE(live.tickCount(), recorded.tickCount());
    }

    // The forecast is a stepped line over the stage bands; a stage whose footprint goes past
    // its forecast by more than the margin is called out once, the others not at all.
    void theForecastIsASteppedLineAndAStageOverItIsCalledOut() {
        const auto windows = summarize(staged_).stages;
        QVERIFY(windows.size() >= 3);
        const auto largest = std::max_element(windows.begin(), windows.end(), [](const auto& a, const auto& b) {
            return a.peakFootprint.value_or(0) < b.peakFootprint.value_or(0);
        });
        std::vector<std::pair<std::string, std::int64_t>> forecast;
        for (const auto& w : windows)
            if (w.peakFootprint) forecast.emplace_back(w.name, *w.peakFootprint / (&w == &*largest ? 2 : 1));
        MemoryChart live;
        QSignalSpy over(&live, &MemoryChart::overForecast);
        live.beginRun("live");
        live.setForecast(forecast);
        replay(staged_, staged_.samples.size(), [&](const MemorySample& s) { live.appendSample(s); },
               [&](const Event& e) { live.appendEvent(e); });
        live.endRun();
        QCOMPARE(over.count(), 1);
        QCOMPARE(over.at(0).at(0).toString(), QString::fromStdString(largest->name));
        QVERIFY(over.at(0).at(1).toDouble() > over.at(0).at(2).toDouble() * 1.1);
        QCOMPARE(live.forecastPointCount(), 2 * static_cast<int>(forecast.size()));
        // The line is in the legend while it is drawn; an old run shown drops the forecast.
        bool inLegend = false;
        for (int i = 0; i < live.plot()->legend->itemCount(); ++i)
            if (auto* item = qobject_cast<QCPPlottableLegendItem*>(live.plot()->legend->item(i)))
                inLegend = inLegend || item->plottable()->name() == QStringLiteral("forecast");
        QVERIFY(inLegend);
        live.showTrace(staged_, "staged-1");
        QCOMPARE(live.forecastPointCount(), 0);
    }

    void seriesPointCounts() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        const int n = static_cast<int>(staged_.samples.size());
        QCOMPARE(chart.pointCount(Series::Footprint), n);
        QCOMPARE(chart.pointCount(Series::Swap), n);
        // Available memory is a percentage on the right axis (the Python trace has no bytes).
        QVERIFY(chart.isShown(Series::Level));
        QCOMPARE(chart.pointCount(Series::Level), n);
        QVERIFY(!chart.isShown(Series::Gpu));

        // Our own traces carry available bytes too; still a percentage, so the GiB axis fits
        // the process (the cascade at scale 6 peaks at 8 GiB: a third of 24 GiB).
        const Trace cascade =
            readTrace(repoPath("tests/bench/cascade-scale6/staged-1.trace.jsonl"));
        chart.showTrace(cascade, "cascade");
        QVERIFY(chart.run().hasAvailable());
        QVERIFY(chart.isShown(Series::Level));
        QCOMPARE(chart.pointCount(Series::Level), static_cast<int>(cascade.samples.size()));
        QVERIFY(chart.plot()->yAxis->range().upper < 8.5 / 0.8);
        compareBands(chart.bands(), stageWindows(cascade.events, cascade.samples));
    }

    void gpuSeriesAppearsWithGpuSamples() {
        MemoryChart chart;
        chart.beginRun("gpu");
        for (int i = 0; i < 10; ++i) {
            MemorySample s;
            s.t = i * 0.1;
            s.footprint = std::int64_t(1) << 30;
            if (i >= 4) s.extra = {{"gpu", double(i) * (1 << 30)}};
            chart.appendSample(s);
        }
        chart.endRun();
        QVERIFY(chart.isShown(Series::Gpu));
        QCOMPARE(chart.pointCount(Series::Gpu), 6);
        QCOMPARE(chart.pointCount(Series::Footprint), 10);
    }

    void ticksForLoadsReloadsAndReleases() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        QCOMPARE(chart.tickCount(), tickEvents(staged_));
        QCOMPARE(chart.tickCount(), summarize(staged_).loads + summarize(staged_).releases);
        MemoryChart eager;
        eager.showTrace(eager_, "eager-1");
        QCOMPARE(eager.tickCount(), tickEvents(eager_));
    }

    // Where a run was stopped is drawn, with why: the eager run stopped itself before texture;
    // a guard stop arriving live is labelled with the guard's reason; a new run clears it.
    void stopsAreMarkedWithWhy() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        QCOMPARE(chart.stopLabel(), QString());
        chart.showTrace(eager_, "eager-1");
        QCOMPARE(chart.stopLabel(), QStringLiteral("stopped before texture"));
        chart.beginRun(QStringLiteral("live"));
        QCOMPARE(chart.stopLabel(), QString());
        Event mark;
        mark.kind = EventKind::Mark;
        mark.t = 2.0;
        mark.note = stopMark("swap used 9.0 GB rose 6.0 GB");
        chart.appendEvent(mark);
        QCOMPARE(chart.stopLabel(), QStringLiteral("stopped by the guard: swap used 9.0 GB rose 6.0 GB"));
        mark.note = stopMark(kCancelledReason);
        chart.appendEvent(mark);  // a later mark does not replace the first
        QCOMPARE(chart.stopLabel(), QStringLiteral("stopped by the guard: swap used 9.0 GB rose 6.0 GB"));
    }

    // The guard's start and stop levels are lines on the available axis: set for a live run,
    // read from a recorded run's trace, gone with a new run.
    // The table's names are whole in the narrow table beside the chart (two "shape…" rows
    // told nothing apart), and every column says in its tooltip what it holds.
    void peakTableNamesAreWholeAndEveryColumnExplained() {
        StagePeakTable narrow;
        narrow.resize(220, 300);  // the chart's smallest
        narrow.show();
        QVERIFY(QTest::qWaitForWindowExposed(&narrow));
        Summary summary = summarize(staged_);
        summary.highWater = summary.peakFootprint;  // as the engine's traces have it: four columns
        for (auto& stage : summary.stages) stage.highWater = stage.peakFootprint;
        narrow.setSummary(summary);
        QCoreApplication::processEvents();
        StagePeakTable* table = &narrow;
        QVERIFY(table->stageRows() > 3);
        for (int row = 0; row < table->rowCount(); ++row) {
            const QString name = table->item(row, StagePeakTable::StageColumn)->text();
            QFont font = table->item(row, StagePeakTable::StageColumn)->font();
            QVERIFY2(table->columnWidth(StagePeakTable::StageColumn) >= QFontMetrics(font).horizontalAdvance(name),
                     qPrintable(name));
        }
        for (int c = 0; c < table->columnCount(); ++c)
            QVERIFY2(!table->horizontalHeaderItem(c)->toolTip().isEmpty(), qPrintable(table->horizontalHeaderItem(c)->text()));
    }

    void theGuardsLevelsAreDrawn() {
        MemoryChart chart;
        chart.resize(900, 400);
        chart.show();
        chart.beginRun(QStringLiteral("live"));
        chart.setGuardLevels(GuardLevels{40, 10});
        QCOMPARE(chart.startLevelLabel(), QString());  // no available line yet: nothing to cross
        chart.appendSample(sampleAt(0.0, 1.0, 80.0));
        chart.appendSample(sampleAt(1.0, 1.5, 70.0));
        chart.flush();
        QCOMPARE(chart.startLevelLabel(), QStringLiteral("start ≥ 40 % free"));
        QCOMPARE(chart.stopLevelLabel(), QStringLiteral("stop < 10 % free"));
        chart.setGuardLevels(GuardLevels{0, 12.5});  // no start level: no line
        chart.flush();
        QCOMPARE(chart.startLevelLabel(), QString());
        QCOMPARE(chart.stopLevelLabel(), QStringLiteral("stop < 12.5 % free"));
        chart.beginRun(QStringLiteral("next"));
        QVERIFY(!chart.guardLevels().has_value());

        Trace recorded = staged_;
        chart.showTrace(recorded, QStringLiteral("staged-1"));  // written before the guard kept them
        QVERIFY(!chart.guardLevels().has_value());
        QCOMPARE(chart.stopLevelLabel(), QString());
        recorded.start[kGuardLevelsKey] = {{"start_free", 91}, {"stop_free", 89}};
        chart.showTrace(recorded, QStringLiteral("staged-1"));
        chart.flush();
        QVERIFY(chart.guardLevels() == std::optional(GuardLevels{91, 89}));
        QCOMPARE(chart.stopLevelLabel(), QStringLiteral("stop < 89 % free"));
        recorded.start[kGuardLevelsKey] = {{"start_free", "lots"}, {"stop_free", 189}};
        chart.showTrace(recorded, QStringLiteral("staged-1"));
        QVERIFY(!chart.guardLevels().has_value());
    }

    // A run stopped at its peak: the plateau runs along the top up to the stop line, and the
    // available line sits just under it. Neither the stop label nor the levels' labels may hide
    // any of it, live or reopened; on a short chart, where the highest spot is taken.
    void labelsHideNoData_data() {
        QTest::addColumn<int>("height");
        QTest::newRow("docked, short") << 260;
        QTest::newRow("the app's default") << 200;
        QTest::newRow("tall") << 520;
    }
    void labelsHideNoData() {
        QFETCH(int, height);
        MemoryChart chart;
        QVERIFY(showAt(chart, 800, height));
        chart.beginRun(QStringLiteral("live"));
        chart.setGuardLevels(GuardLevels{91, 86});
        const int n = 300;
        for (int i = 0; i <= n; ++i) {
            const double t = 30.0 * i / n;
            const double gib = t < 10 ? 0.5 + 0.2 * t : 2.5;    // climbs, then the plateau
            const double free = t < 10 ? 95.0 - 0.8 * t : 87.0;  // the mirror of it, in percent
            chart.appendSample(sampleAt(t, gib, free));
        }
        Event mark;
        mark.kind = EventKind::Mark;
        mark.t = 30.0;
        mark.note = stopMark("available 86.3 % < --kill-free 89.0 % for 2 readings in a row");
        chart.appendEvent(mark);
        chart.flush();
        chart.flush();  // placed against the laid-out axes
        QVERIFY(chart.isLive());
        QVERIFY(!chart.stopLabel().isEmpty());
        const auto rects = chart.labelRects();
        QCOMPARE(rects.size(), std::size_t(3));  // start, stop level; the stop mark
        const QRectF area = QRectF(chart.plot()->axisRect()->rect()).adjusted(-1, -1, 1, 1);  // to the pixel
        for (std::size_t i = 0; i < rects.size(); ++i) {
            QVERIFY2(area.contains(rects[i]), qPrintable(QStringLiteral("label %1 is cut by the plot: (%2, %3 %4×%5) in (%6, %7 %8×%9)")
                                                             .arg(i).arg(rects[i].x()).arg(rects[i].y()).arg(rects[i].width()).arg(rects[i].height())
                                                             .arg(area.x()).arg(area.y()).arg(area.width()).arg(area.height())));
            for (std::size_t j = i + 1; j < rects.size(); ++j) QVERIFY(!rects[i].intersects(rects[j]));
            const int hidden = pointsIn(*chart.plot(), rects[i]);
            QVERIFY2(hidden == 0, qPrintable(QStringLiteral("label %1 hides %2 points").arg(i).arg(hidden)));
        }
        // And no legend entry is cut ("footprin"): each is as wide as its name needs.
        const QCPLegend* legend = chart.plot()->legend;
        int entries = 0;
        for (int i = 0; i < legend->elementCount(); ++i) {
            const auto* item = legend->elementAt(i);
            if (!item) continue;  // an empty cell of the grid
            ++entries;
            QVERIFY2(item->outerRect().width() >= item->minimumOuterSizeHint().width(),
                     qPrintable(QStringLiteral("legend entry %1: %2 px of %3").arg(i).arg(item->outerRect().width())
                                    .arg(item->minimumOuterSizeHint().width())));
        }
        QCOMPARE(entries, 3);  // footprint, swap used, available
    }

    void overlayAddsGraphsAndKeepsThePrimaryBands() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        const auto bands = chart.bands();
        const int graphs = chart.plot()->graphCount();
        const int ticks = chart.tickCount();
        chart.addOverlay(eager_, "eager-1");
        QCOMPARE(chart.overlayCount(), 1);
        QVERIFY(chart.plot()->graphCount() > graphs);
        QCOMPARE(chart.overlayPointCount(0, Series::Footprint),
                 static_cast<int>(eager_.samples.size()));
        compareBands(chart.bands(), stageWindows(staged_.events, staged_.samples));
        QCOMPARE(chart.bands().size(), bands.size());
        QCOMPARE(chart.tickCount(), ticks);
        QVERIFY(chart.title().contains("eager-1"));
        // A/B beside the overlay: each stage's peak in the overlaid run and the change from it.
        auto* table = chart.peakTable();
        QVERIFY(!table->isColumnHidden(StagePeakTable::OtherPeakColumn));
        QCOMPARE(table->horizontalHeaderItem(StagePeakTable::OtherPeakColumn)->text(), QStringLiteral("eager-1\n(GiB)"));
        const Summary eager = summarize(eager_);
        int compared = 0;
        for (int row = 0; row < table->stageRows(); ++row) {
            const auto name = table->item(row, StagePeakTable::StageColumn)->text().toStdString();
            const auto it = std::find_if(eager.stages.begin(), eager.stages.end(),
                                         [&](const StageWindow& w) { return w.name == name; });
            const QString other = table->item(row, StagePeakTable::OtherPeakColumn)->text();
            if (it == eager.stages.end()) {
                QCOMPARE(other, QStringLiteral("–"));
                continue;
            }
            QCOMPARE(other, QString::fromStdString(formatGb(it->peak())));
            const auto mine = summarize(staged_).stages[static_cast<std::size_t>(row)].peak();
            if (!mine || !it->peak()) continue;
            const double percent = 100.0 * (double(*mine) - double(*it->peak())) / double(*it->peak());
            QCOMPARE(table->item(row, StagePeakTable::ChangeColumn)->text(),
                     (percent < 0 ? QStringLiteral("−") : QStringLiteral("+")) +
                         QString::number(std::abs(percent), 'f', 0) + QStringLiteral(" %"));
            ++compared;
        }
        QVERIFY(compared >= 3);
        // The x range covers the longer run.
        QVERIFY(chart.plot()->xAxis->range().upper >= staged_.samples.back().t);
        chart.clearOverlay();
        QCOMPARE(chart.overlayCount(), 0);
        QCOMPARE(chart.plot()->graphCount(), graphs);
        QVERIFY(table->isColumnHidden(StagePeakTable::OtherPeakColumn));
        QVERIFY(table->isColumnHidden(StagePeakTable::ChangeColumn));
    }

    // Overlays are removed one by one or all at once, each footprint in a colour of its own;
    // a live run is followed on its own clock, not on the longest overlay's.
    void overlaysAreRemovedAndALiveRunKeepsItsOwnAxis() {
        MemoryChart chart;
        chart.addOverlay(staged_, "staged-1");
        chart.addOverlay(eager_, "eager-1");
        QCOMPARE(chart.overlayLabels(), QStringList({"staged-1", "eager-1"}));
        const auto footprintOf = [&](const QString& label) -> QCPGraph* {
            for (int i = 0; i < chart.plot()->graphCount(); ++i)
                if (chart.plot()->graph(i)->name() == "footprint — " + label) return chart.plot()->graph(i);
            return nullptr;
        };
        QVERIFY(footprintOf("staged-1") && footprintOf("eager-1"));
        QVERIFY(footprintOf("staged-1")->pen().color().rgb() != footprintOf("eager-1")->pen().color().rgb());
        QCOMPARE(footprintOf("staged-1")->pen().color().rgb(), style::overlayFootprintColor(0).rgb());

        const auto longest = std::max(staged_.samples.back().t, eager_.samples.back().t);
        chart.beginRun("live");
        for (std::size_t i = 0; i < 40; ++i) chart.appendSample(staged_.samples[i]);
        chart.flush();
        QVERIFY2(chart.plot()->xAxis->range().upper < staged_.samples[39].t * 1.05 + 1,
                 qPrintable(QString::number(chart.plot()->xAxis->range().upper)));
        chart.endRun();
        QVERIFY(chart.plot()->xAxis->range().upper >= longest);

        // The first removed, the other takes its place and its pens.
        chart.removeOverlay(0);
        QCOMPARE(chart.overlayLabels(), QStringList({"eager-1"}));
        QVERIFY(footprintOf("staged-1") == nullptr);
        QCOMPARE(footprintOf("eager-1")->pen().color().rgb(), style::overlayFootprintColor(0).rgb());
        chart.removeOverlay(5);  // out of range: nothing
        QCOMPARE(chart.overlayCount(), 1);
        chart.clearOverlay();
        QVERIFY(chart.overlayLabels().isEmpty());
    }

    void hoverNamesTicksAndReadsValues() {
        MemoryChart chart;
        QVERIFY(showAt(chart, 1400, 700));
        chart.showTrace(staged_, "staged-1");
        const QRect area = chart.plot()->axisRect()->rect();
        QVERIFY(area.width() > 500);

        const Event* load = nullptr;
        for (const auto& e : staged_.events)
            if (e.kind == EventKind::Load && !load) load = &e;
        QVERIFY(load);
        const double x = chart.plot()->xAxis->coordToPixel(load->t);
        const QString tick = chart.hoverText(QPointF(x, area.bottom() - 3));
        QVERIFY2(tick.contains("load") && tick.contains(QString::fromStdString(load->name)),
                 qPrintable(tick));
        QVERIFY2(tick.contains("GiB") || tick.contains("MiB"), qPrintable(tick));

        const double t = 300.0;
        const QString readout =
            chart.hoverText(QPointF(chart.plot()->xAxis->coordToPixel(t), area.center().y()));
        QVERIFY2(readout.contains("t = ") && readout.contains("footprint") &&
                     readout.contains("swap used") && readout.contains("stage"),
                 qPrintable(readout));
        QVERIFY(chart.hoverText(QPointF(1, 1)).isEmpty());  // outside the plot area
    }

    // Preferences ▸ GB/MB: every size the chart draws or writes switches family at once, the
    // runs already drawn included, and back.
    void sizesFollowTheDisplayUnits() {
        MemoryChart chart;
        QVERIFY(showAt(chart, 1400, 700));
        chart.showTrace(staged_, "staged-1");
        chart.addOverlay(eager_, "eager-1");
        const auto stages = summarize(staged_).stages;
        QVERIFY(stages.size() > 1);
        chart.setForecast({{stages[1].name, std::int64_t(3) << 30}});
        chart.flush();
        const auto* table = chart.peakTable();
        const auto graphNamed = [&](const QString& name) -> QCPGraph* {
            for (int i = 0; i < chart.plot()->graphCount(); ++i)
                if (chart.plot()->graph(i)->name() == name) return chart.plot()->graph(i);
            return nullptr;
        };
        QCPGraph* footprint = graphNamed("footprint — staged-1");
        QCPGraph* overlayFootprint = graphNamed("footprint — eager-1");
        QCPGraph* forecast = graphNamed("forecast");
        QVERIFY(footprint && overlayFootprint && forecast && forecast->dataCount() == 2);
        QCOMPARE(forecast->data()->at(0)->value, 3.0);
        const double binaryOverlayY = overlayFootprint->data()->at(100)->value;
        QCOMPARE(footprint->data()->at(100)->value, static_cast<double>(staged_.samples[100].footprint) / double(1 << 30));
        const double binaryTop = chart.plot()->yAxis->range().upper;

        setDisplayUnits(ByteUnits::Decimal);
        chart.refreshUnits();
        QCOMPARE(chart.plot()->yAxis->label(), QStringLiteral("memory (GB)"));
        QCOMPARE(table->horizontalHeaderItem(StagePeakTable::PeakColumn)->text(), QStringLiteral("peak\n(GB)"));
        QCOMPARE(table->horizontalHeaderItem(StagePeakTable::OtherPeakColumn)->text(), QStringLiteral("eager-1\n(GB)"));
        QVERIFY(table->horizontalHeaderItem(StagePeakTable::PeakColumn)->toolTip().contains("10^9"));
        QCOMPARE(footprint->data()->at(100)->value, static_cast<double>(staged_.samples[100].footprint) / 1e9);
        QCOMPARE(overlayFootprint->data()->at(100)->value, binaryOverlayY * double(1 << 30) / 1e9);
        QVERIFY(chart.plot()->yAxis->range().upper > binaryTop);  // the same bytes are more GB
        QCOMPARE(forecast->data()->at(0)->value, 3.0 * double(1 << 30) / 1e9);
        const auto peak = summarize(staged_).peakFootprint;
        QVERIFY(peak);
        QCOMPARE(table->item(table->stageRows(), StagePeakTable::PeakColumn)->text(),
                 QString::number(static_cast<double>(*peak) / 1e9, 'f', 2));
        const QRect area = chart.plot()->axisRect()->rect();
        const QString readout =
            chart.hoverText(QPointF(chart.plot()->xAxis->coordToPixel(300.0), area.center().y()));
        QVERIFY2(readout.contains(" GB") && !readout.contains("GiB") && !readout.contains("MiB"), qPrintable(readout));
        // A live run appended in the new family is in it too.
        chart.beginRun("live");
        chart.appendSample(staged_.samples[100]);
        chart.flush();
        QCPGraph* live = graphNamed("footprint — live");  // beginRun() may have made the graphs anew
        QVERIFY(live && live->dataCount() == 1);
        QCOMPARE(live->data()->at(0)->value, static_cast<double>(staged_.samples[100].footprint) / 1e9);
        chart.endRun();

        setDisplayUnits(ByteUnits::Binary);
        chart.refreshUnits();
        QCOMPARE(chart.plot()->yAxis->label(), QStringLiteral("memory (GiB)"));
        QCOMPARE(table->horizontalHeaderItem(StagePeakTable::PeakColumn)->text(), QStringLiteral("peak\n(GiB)"));
        QCOMPARE(overlayFootprint->data()->at(100)->value, binaryOverlayY);
    }

    // A title with overlays is wrapped between words to the plot's width, never cut at its edge.
    void aLongTitleIsWrappedNotCut() {
        MemoryChart chart;
        QVERIFY(showAt(chart, 560, 420));
        chart.showTrace(staged_, "knight_alpha_with_a_long_name.png · character · Dec 3 12:00");
        chart.addOverlay(eager_, "knight_alpha_with_a_long_name.png · character · Dec 2 18:30");
        chart.flush();
        QVERIFY(chart.title().contains("(solid) vs") && !chart.title().contains('\n'));
        const QString shown = chart.shownTitle();
        QVERIFY2(shown.contains('\n'), qPrintable(shown));
        QFont font = chart.plot()->font();
        font.setPointSizeF(font.pointSizeF() * 1.25);
        font.setBold(true);
        const QFontMetricsF metrics(font);
        for (const QString& line : shown.split('\n'))
            QVERIFY2(metrics.horizontalAdvance(line) <= chart.plot()->width(), qPrintable(line));
        // Every word of the title is still there, in order.
        QCOMPARE(QString(shown).replace('\n', ' '), chart.title());
        // Wide enough: one line, as composed.
        chart.resize(2400, 600);
        QTest::qWait(120);
        chart.flush();
        QCOMPARE(chart.shownTitle(), chart.title());
    }

    void userZoomStopsFollowingUntilReset() {
        MemoryChart chart;
        QVERIFY(showAt(chart, 1000, 600));
        chart.beginRun("live");
        replay(
            staged_, 200, [&](const MemorySample& s) { chart.appendSample(s); },
            [&](const Event& e) { chart.appendEvent(e); });
        chart.flush();
        QVERIFY(chart.isFollowing());
        QVERIFY(chart.plot()->xAxis->range().upper >= staged_.samples[199].t);

        const QPointF at = chart.plot()->axisRect()->rect().center();
        QWheelEvent wheel(at, chart.plot()->mapToGlobal(at), QPoint(), QPoint(0, 120), Qt::NoButton,
                          Qt::NoModifier, Qt::NoScrollPhase, false);
        QApplication::sendEvent(chart.plot(), &wheel);
        QVERIFY(!chart.isFollowing());
        const QCPRange zoomed = chart.plot()->xAxis->range();
        for (std::size_t i = 200; i < 400; ++i) chart.appendSample(staged_.samples[i]);
        chart.flush();
        QCOMPARE(chart.plot()->xAxis->range(), zoomed);

        chart.resetView();
        QVERIFY(chart.isFollowing());
        QVERIFY(chart.plot()->xAxis->range().upper >= staged_.samples[399].t);
        chart.endRun();
    }

    // A line of many points per pixel column is drawn aliased (antialiasing it was most of a
    // replot with hour-long overlays: stageload-chart-bench), a short run or a zoomed-in stretch
    // of a long one smooth.
    void denseLinesAreDrawnAliased() {
        MemoryChart chart;
        QVERIFY(showAt(chart, 1000, 600));
        chart.beginRun("live");
        for (int i = 0; i < 50; ++i) chart.appendSample(sampleAt(i * 0.1, 1.0 + (i % 7) * 0.1, 50.0));
        chart.flush();
        QCPGraph* footprint = nullptr;  // the live run's footprint line
        for (int g = 0; g < chart.plot()->graphCount(); ++g)
            if (chart.plot()->graph(g)->name().startsWith(QStringLiteral("footprint")))
                footprint = footprint ? footprint : chart.plot()->graph(g);
        QVERIFY(footprint);
        QCOMPARE(footprint->dataCount(), 50);
        QVERIFY(footprint->antialiased());
        for (int i = 50; i < 20000; ++i) chart.appendSample(sampleAt(i * 0.1, 1.0 + (i % 7) * 0.1, 50.0));
        chart.flush();
        QCOMPARE(footprint->dataCount(), 20000);
        QVERIFY(!footprint->antialiased());
        chart.plot()->xAxis->setRange(100.0, 150.0);  // 500 points across the plot
        chart.plot()->replot(QCustomPlot::rpImmediateRefresh);
        QVERIFY(footprint->antialiased());
        chart.endRun();
    }

    void savesPngSvgAndPdf() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        chart.addOverlay(eager_, "eager-1");
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        QString error;

        const QString png = dir.filePath("chart.png");
        QVERIFY2(chart.save(png, &error, {1200, 700}), qPrintable(error));
        QImage image(png);
        QVERIFY(!image.isNull());
        QCOMPARE(image.size(), QSize(1200, 700));
        QVERIFY2(hasColor(image, style::seriesColor(Series::Footprint)),
                 "the PNG must show the footprint line");
        QVERIFY(hasColor(image, style::seriesColor(Series::Swap)));

        const QString svg = dir.filePath("chart.svg");
        QVERIFY2(chart.save(svg, &error, {1200, 700}), qPrintable(error));
        QFile svgFile(svg);
        QVERIFY(svgFile.open(QIODevice::ReadOnly));
        const QByteArray svgText = svgFile.readAll();
        QVERIFY(svgText.size() > 10000);
        QVERIFY(svgText.contains("<svg"));
        QVERIFY(svgText.contains("</svg>"));
        QVERIFY(svgText.contains(
            style::seriesColor(Series::Footprint).name().toLatin1()));  // the footprint pen
        // The peak table is in the picture, beside the plot: its header and the total row.
        QVERIFY(svgText.contains("high-water (GiB)") || svgText.contains("peak (GiB)"));
        QVERIFY(svgText.contains(">total<"));

        const QString pdf = dir.filePath("chart.pdf");
        QVERIFY2(chart.save(pdf, &error, {1200, 700}), qPrintable(error));
        QFile pdfFile(pdf);
        QVERIFY(pdfFile.open(QIODevice::ReadOnly));
        const QByteArray pdfBytes = pdfFile.readAll();
        QVERIFY(pdfBytes.startsWith("%PDF-"));
        QVERIFY(pdfBytes.size() > 5000);

        // Without a size: a picture to share, not the widget's size on screen; the table is
        // painted to the right of the plot (dark text where a plot has its margin).
        QVERIFY2(chart.save(png, &error), qPrintable(error));
        const QImage shared(png);
        QCOMPARE(shared.size(), QSize(1600, 900));
        int ink = 0;
        for (int y = 0; y < 200; ++y)
            for (int x = 1350; x < 1600; ++x) ink += qGray(shared.pixel(x, y)) < 100;
        QVERIFY2(ink > 200, qPrintable(QString::number(ink)));
        // Overwriting keeps working, and no temporary file is left behind.
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 3);
    }

    void saveFailuresSayWhatToDo() {
        MemoryChart chart;
        chart.showTrace(staged_, "staged-1");
        QTemporaryDir dir;
        QString error;

        const QString xyz = dir.filePath("chart.xyz");
        QVERIFY(!chart.save(xyz, &error, {400, 300}));
        QVERIFY2(error.contains(xyz) && error.contains(".png"), qPrintable(error));
        QVERIFY(!QFile::exists(xyz));

        const QString missing = dir.filePath("no/such/folder/chart.png");
        QVERIFY(!chart.save(missing, &error, {400, 300}));
        QVERIFY2(error.contains(missing) && error.contains("does not exist"), qPrintable(error));

        if (::geteuid() != 0) {  // root writes anywhere
            const QString locked = dir.filePath("locked");
            QVERIFY(QDir(dir.path()).mkdir("locked"));
            QFile::setPermissions(locked, QFile::ReadOwner | QFile::ExeOwner);
            QVERIFY(!chart.save(locked + "/chart.png", &error, {400, 300}));
            QVERIFY2(error.contains("chart.png") && error.contains("folder you can write"),
                     qPrintable(error));
            QFile::setPermissions(locked, QFile::ReadOwner | QFile::WriteOwner | QFile::ExeOwner);
        }
        QCOMPARE(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 0);
    }

    void renderTraceChartWritesThePicture() {
        QTemporaryDir dir;
        const QString out = dir.filePath("render.png");
        renderTraceChart({{staged_, "staged-1"}, {eager_, "eager-1"}}, out, {800, 450});
        QImage image(out);
        QCOMPARE(image.size(), QSize(800, 450));
        QVERIFY(hasColor(image, style::seriesColor(Series::Footprint)));

        bool threw = false;
        try {
            renderTraceChart({{staged_, "staged-1"}}, dir.filePath("none/render.png"));
        } catch (const FileError& e) {
            threw = QString(e.what()).contains("render.png");
        }
        QVERIFY(threw);
        QVERIFY_THROWS_EXCEPTION(UsageError, renderTraceChart({}, out));
    }
};

}  // namespace test_memory_chart

STAGELOAD_SUITE(test_memory_chart, test_memory_chart::TestMemoryChart)
#include "test_memory_chart.moc"
