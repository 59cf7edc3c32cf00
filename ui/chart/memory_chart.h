#pragma once
// The memory chart: process footprint (bold), available memory, swap used and GPU
// memory over time, in GiB or GB (display_units.h), with named stage bands, load/release ticks, hover readouts,
// horizontal zoom and pan, overlaid runs and a per-stage peak table beside the plot.
//
//   auto* chart = new stageload::chart::MemoryChart(this);
//   // live: the meter thread emits samples, the GUI thread's chart appends them
//   chart->beginRun("character, staged");
//   connect(meter, &MeterJob::sampled, chart, &MemoryChart::appendSample, Qt::QueuedConnection);
//   connect(worker, &RunJob::event, chart, &MemoryChart::appendEvent, Qt::QueuedConnection);
//   connect(worker, &RunJob::finished, chart, &MemoryChart::endRun, Qt::QueuedConnection);
//   // recorded: compare staged with eager
//   chart->showTrace(stageload::readTrace("staged-1.trace.jsonl"), "staged-1");
//   chart->addOverlay(stageload::readTrace("eager-1.trace.jsonl"), "eager-1");
//   QString error;
//   if (!chart->save("chart.svg", &error)) showError(error);
//
// Layout: a QSplitter with the plot on the left and the StagePeakTable (peakTable()) on the
// right; both are children of this widget. The table gets the width that shows its columns
// whole, up to 40 % of the chart's, until the user drags the handle. The table and the bands
// follow the primary run (the live one or the one showTrace() showed); overlays are drawn
// dashed and lighter, each footprint in a colour of its own, without bands or ticks. While a run is live and followed,
// the x range is the live run's, whatever the overlays' length.
//
// Live updates: appending is O(1) per sample; replots are coalesced by a 50 ms timer (at most
// 20 a second, however fast samples arrive), bands and the table are recomputed at most every
// 250 ms (less often when a summary gets costly: at most a tenth of the time; the last band
// grows in between) and at endRun(). flush() applies pending work now.
// While live and not zoomed, the x range follows the data; a wheel zoom or a drag stops
// following until resetView() or a double-click.
//
// A run stopped before its end (by the guard, a cancel or a --stop-at: see stopMark()) gets a
// dashed red line where it stopped, labelled with why, live as the stop mark arrives. The
// guard's start and stop levels (setGuardLevels(), or a recorded run's trace) are lines on the
// available-memory axis. Every label sits where it hides no data (label_spot.h).
//
// Forecast: setForecast() draws each stage's forecast peak as a stepped line over the primary
// run's bands (a live run's too, step by step as its stages begin); while live, the moment a
// stage's footprint goes past its forecast by more than kForecastMargin, overForecast() fires
// (once per stage). showTrace() drops the forecast; beginRun() keeps it.
//
// Hover: near a load/release tick (bottom of the plot) a tooltip names its kind, model, size
// (formatBytes) and seconds; elsewhere it reads t, the stage and each shown series' value.
//
// Not thread-safe: every function runs on the GUI thread; hand data over by queued connections
// (Qt 6 needs no metatype registration for that with the function-pointer connect()). Nothing
// throws; save() reports failure through its return value and message.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QElapsedTimer>
#include <QRectF>
#include <QSize>
#include <QString>
#include <QStringList>
#include <QTimer>
#include <QWidget>

#include "guard/base/event.h"
#include "guard/memory/readers.h"
#include "guard/policy/guard_levels.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "ui/chart/chart_style.h"
#include "ui/chart/run_data.h"
#include "ui/chart/stage_band_item.h"

class QCustomPlot;
class QCPItemStraightLine;
class QCPTextElement;
class QSplitter;

namespace stageload::chart {

class EventMarks;
class ForecastLine;
class GuardLevelLines;
class RunGraphs;
class StagePeakTable;

class MemoryChart : public QWidget {
    Q_OBJECT
public:
    explicit MemoryChart(QWidget* parent = nullptr);
    ~MemoryChart() override;

    // --- the primary run: live ---
public slots:
    /// Starts a live run: clears the primary run, its bands, ticks and table (overlays stay).
    void beginRun(const QString& label);
    /// Adds one sample (t on the run's clock, in time order).
    void appendSample(const stageload::MemorySample& sample);
    /// Adds one event; event.t is on the samples' clock. Load/reload/release get a tick, stage
    /// events move the bands.
    void appendEvent(const stageload::Event& event);
    /// Ends the live run and shows its final bands, table and range at once.
    void endRun();

public:
    bool isLive() const { return live_; }

    // --- recorded runs ---
    /// Shows a recorded run as the primary one (replaces the previous primary; overlays stay).
    void showTrace(const stageload::Trace& trace, const QString& label);
    /// Draws another run dashed and lighter in the same axes (staged vs eager).
    void addOverlay(const stageload::Trace& trace, const QString& label);
    /// Removes every overlay.
    void clearOverlay();
    /// Removes overlay `index` (0: the first added); the others keep their order and take the
    /// pens of their new places. Out of range: nothing.
    void removeOverlay(int index);
    /// The overlays' labels, in the order they were added.
    QStringList overlayLabels() const;
    int overlayCount() const { return static_cast<int>(overlays_.size()); }

    // --- forecast ---
    /// The forecast peak of each stage, in bytes; empty: none.
    void setForecast(std::vector<std::pair<std::string, std::int64_t>> stagePeaks);
    /// Points of the forecast's stepped line (two per stage band with a forecast).
    int forecastPointCount() const;

    // --- the guard ---
    /// The levels the primary run is guarded by, drawn while the available series is; nullopt:
    /// none. beginRun() clears them; showTrace() takes a recorded run's from its trace.
    void setGuardLevels(std::optional<stageload::GuardLevels> levels);
    std::optional<stageload::GuardLevels> guardLevels() const;
    /// The level lines' labels drawn ("start ≥ 40 % free", "stop < 10 % free"; "" when
    /// not drawn) and every label's rectangle in plot pixels, for tests.
    QString startLevelLabel() const;
    QString stopLevelLabel() const;
    std::vector<QRectF> labelRects() const;

    /// The title above the plot; empty (the default) composes one from the runs' labels.
    void setTitle(const QString& title);
    /// The whole title, and the title as drawn: wrapped between words to the plot's width.
    QString title() const;
    QString shownTitle() const;

    // --- view ---
    /// Shows the whole data again and, while live, follows it (also on a double-click).
    void resetView();
    /// The x range follows the data (no user zoom or pan since the last reset).
    bool isFollowing() const { return following_; }

    /// Saves the plot with the peak table beside it as .png, .svg or .pdf (by extension) at
    /// `size` in all (empty: 1600×900, whatever the window) through a temporary file in the
    /// same folder. False with `*error` naming the file and
    /// what to do on an unknown extension, a missing or read-only folder or a failed write.
    bool save(const QString& path, QString* error, QSize size = {});

    /// Applies pending replots, bands and table updates now (tests, before a grab).
    void flush();
    /// Draws every run, the axis, the forecast and the table in the display unit again (after
    /// setDisplayUnits(): display_units.h).
    void refreshUnits();

    // --- for tests and the app ---
    QCustomPlot* plot() const { return plot_; }
    StagePeakTable* peakTable() const { return table_; }
    /// The stage bands drawn for the primary run (name, start, end in seconds).
    std::vector<ChartBand> bands() const;
    /// Points in series `s` of the primary run / of overlay `index`.
    int pointCount(Series s) const;
    int overlayPointCount(int index, Series s) const;
    /// Whether series `s` of the primary run is drawn (series without data are hidden).
    bool isShown(Series s) const;
    /// Load, reload and release ticks drawn.
    int tickCount() const;
    /// The label of the line drawn where the primary run was stopped ("stopped by the guard:
    /// …", "cancelled", "stopped before texture"), or "" when it was not.
    QString stopLabel() const;
    /// The primary run and its summary so far (always current, whatever was drawn).
    const RunData& run() const { return run_; }
    const Summary& summary() const { return run_.summary(); }
    /// What hovering at `pos` (plot widget pixels) shows; "" outside the plot area.
    QString hoverText(const QPointF& pos) const;

signals:
    /// The bands and the peak table were refreshed from the primary run.
    void summaryUpdated();
    /// The live run's footprint in `stage` went past the stage's forecast by more than the margin.
    void overForecast(const QString& stage, double footprint, double forecast);

protected:
    bool eventFilter(QObject* watched, QEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

private:
    void setupPlot();
    void clearPrimary(const QString& label);
    void addMark(const Event& event);
    void scheduleRefresh();
    /// Before each replot: a line with more than kAntialiasedPointsPerColumn points per pixel
    /// column in view is drawn aliased (a replot's cost), a sparser one antialiased.
    void antialiasSparseLines();
    static constexpr double kAntialiasedPointsPerColumn = 2.0;
    void refresh();
    void refreshSummary();
    /// Gives the peak table the width of its columns, up to 40 % of the chart's, unless the
    /// user has dragged the splitter.
    void fitTable();
    static constexpr int kTableMinWidth = 220;
    void updateRanges();
    void updateLegend();
    void updateTitle();
    void fitTitle();
    void updateForecastLine();
    void placeLabels();
    void onMouseMove(const QPointF& pos);
    QString tickText(const QPointF& pos) const;
    QString readoutText(double t) const;
    void stopFollowing();

    QSplitter* splitter_ = nullptr;
    QCustomPlot* plot_ = nullptr;
    StagePeakTable* table_ = nullptr;
    bool tableSizedByUser_ = false;
    QCPTextElement* titleElement_ = nullptr;
    StageBandItem* bandItem_ = nullptr;
    QCPItemStraightLine* cursor_ = nullptr;
    std::unique_ptr<ForecastLine> forecast_;
    std::unique_ptr<EventMarks> marks_;
    std::unique_ptr<GuardLevelLines> levels_;

    RunData run_;
    QString label_;
    std::unique_ptr<RunGraphs> graphs_;

    struct Overlay {
        RunData run;
        std::unique_ptr<RunGraphs> graphs;
    };
    std::vector<Overlay> overlays_;

    std::string liveStage_;  ///< the live run's current stage

    QString title_;
    QString titleText_;  ///< the title composed by updateTitle(), before fitTitle() wraps it
    bool live_ = false;
    bool following_ = true;
    bool legendDirty_ = false;
    std::uint64_t shownRevision_ = 0;
    QTimer refreshTimer_;
    QElapsedTimer sinceSummary_;
    qint64 summaryEveryMs_ = 250;
};

}  // namespace stageload::chart
