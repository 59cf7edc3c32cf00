#include "ui/chart/memory_chart.h"

#include <algorithm>

#include <QHBoxLayout>
#include <QSplitter>
#include <qcustomplot.h>

#include "ui/chart/display_units.h"
#include "ui/chart/chart_export.h"
#include "ui/chart/event_marks.h"
#include "ui/chart/forecast_line.h"
#include "ui/chart/guard_level_lines.h"
#include "ui/chart/label_spot.h"
#include "ui/chart/run_graphs.h"
#include "ui/chart/stage_peak_table.h"

namespace stageload::chart {
namespace {

constexpr int kReplotMs = 50;    // at most 20 replots a second
constexpr int kSummaryMs = 250;  // bands and table at most 4 times a second
const QSize kExportSize(1600, 900);  // save() without a size

std::vector<ChartBand> toBands(const std::vector<StageWindow>& windows) {
    std::vector<ChartBand> bands;
    bands.reserve(windows.size());
    for (const auto& w : windows) bands.push_back({QString::fromStdString(w.name), w.start, w.end});
    return bands;
}

}  // namespace

MemoryChart::MemoryChart(QWidget* parent) : QWidget(parent) {
    splitter_ = new QSplitter(Qt::Horizontal, this);
    plot_ = new QCustomPlot(splitter_);
    table_ = new StagePeakTable(splitter_);
    splitter_->addWidget(plot_);
    splitter_->addWidget(table_);
    splitter_->setStretchFactor(0, 4);
    splitter_->setStretchFactor(1, 1);
    splitter_->setCollapsible(0, false);
    table_->setMinimumWidth(kTableMinWidth);
    // Once the user drags the handle, the table keeps the width they gave it.
    connect(splitter_, &QSplitter::splitterMoved, this, [this] { tableSizedByUser_ = true; });
    auto* layout = new QHBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(splitter_);

    setupPlot();
    graphs_ = std::make_unique<RunGraphs>(plot_, QString(), style::kPrimaryRun);

    refreshTimer_.setSingleShot(true);
    refreshTimer_.setInterval(kReplotMs);
    connect(&refreshTimer_, &QTimer::timeout, this, &MemoryChart::refresh);
    sinceSummary_.start();
    resetView();
}

MemoryChart::~MemoryChart() {
    // The graphs belong to the plot; remove them while it is alive.
    overlays_.clear();
    graphs_.reset();
}

void MemoryChart::setupPlot() {
    plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
    plot_->axisRect()->setRangeDrag(Qt::Horizontal);
    plot_->axisRect()->setRangeZoom(Qt::Horizontal);
    plot_->axisRect()->setRangeDragAxes(plot_->xAxis, nullptr);
    plot_->axisRect()->setRangeZoomAxes(plot_->xAxis, nullptr);
    plot_->setNoAntialiasingOnDrag(true);
    // Thick solid lines drawn as one polyline: 40x faster for an hour of noisy samples
    // (870 ms -> 21 ms a replot for 72k points), which keeps live replots well above 10 Hz.
    plot_->setPlottingHint(QCP::phFastPolylines, true);
    // Dashed overlays do not get that fast path; a dense line is drawn aliased instead.
    connect(plot_, &QCustomPlot::beforeReplot, this, [this] { antialiasSparseLines(); });
    plot_->setMinimumSize(320, 200);

    plot_->xAxis->setLabel(tr("time (s)"));
    plot_->yAxis->setLabel(tr("memory (%1)").arg(unitSymbol()));
    plot_->yAxis2->setLabel(tr("available (%)"));
    auto percent = QSharedPointer<QCPAxisTickerFixed>::create();
    percent->setTickStep(20);
    percent->setScaleStrategy(QCPAxisTickerFixed::ssNone);
    plot_->yAxis2->setTicker(percent);
    plot_->yAxis2->setRange(0, 100.0 / (1.0 - style::kHeadroom));
    for (QCPAxis* axis : {plot_->xAxis, plot_->yAxis, plot_->yAxis2}) {
        axis->grid()->setPen(QPen(QColor(0xcf, 0xd8, 0xdc), 1, Qt::DotLine));
        axis->setBasePen(QPen(QColor(0x60, 0x7d, 0x8b)));
        axis->setTickPen(QPen(QColor(0x60, 0x7d, 0x8b)));
        axis->setSubTickPen(QPen(QColor(0x90, 0xa4, 0xae)));
        axis->setLabelColor(QColor(0x37, 0x47, 0x4f));
    }
    plot_->yAxis2->grid()->setVisible(false);

    // Layers, bottom to top: background, grid, bands, main (lines), ticks, axes, legend, cursor.
    plot_->addLayer(QStringLiteral("bands"), plot_->layer(QStringLiteral("main")),
                    QCustomPlot::limBelow);
    plot_->addLayer(QStringLiteral("ticks"), plot_->layer(QStringLiteral("main")),
                    QCustomPlot::limAbove);
    plot_->addLayer(QStringLiteral("cursor"), nullptr, QCustomPlot::limAbove);  // topmost
    plot_->layer(QStringLiteral("cursor"))->setMode(QCPLayer::lmBuffered);

    bandItem_ = new StageBandItem(plot_, plot_->xAxis);  // the plot owns its items
    bandItem_->setLayer(QStringLiteral("bands"));

    forecast_ = std::make_unique<ForecastLine>(plot_);

    cursor_ = new QCPItemStraightLine(plot_);
    cursor_->setLayer(QStringLiteral("cursor"));
    cursor_->setPen(QPen(QColor(0x26, 0x32, 0x38, 140), 1, Qt::DashLine));
    cursor_->setSelectable(false);
    cursor_->setVisible(false);

    // The legend sits centred below the plot area (between two stretching spacers), so it
    // never covers data.
    plot_->legend->setVisible(true);
    plot_->axisRect()->insetLayout()->take(plot_->legend);
    auto* legendRow = new QCPLayoutGrid;
    plot_->plotLayout()->addElement(1, 0, legendRow);
    plot_->plotLayout()->setRowStretchFactor(1, 0.001);
    legendRow->addElement(0, 0, new QCPLayoutElement(plot_));
    legendRow->addElement(0, 1, plot_->legend);
    legendRow->addElement(0, 2, new QCPLayoutElement(plot_));
    legendRow->setColumnStretchFactors({1.0, 0.001, 1.0});
    plot_->legend->setFillOrder(QCPLegend::foColumnsFirst);
    plot_->legend->setBorderPen(Qt::NoPen);
    plot_->legend->setBrush(Qt::NoBrush);
    plot_->legend->setMargins(QMargins(4, 0, 4, 2));
    plot_->legend->setRowSpacing(0);
    plot_->legend->setColumnSpacing(12);
    plot_->legend->setSelectableParts(QCPLegend::spNone);

    marks_ = std::make_unique<EventMarks>(plot_);
    levels_ = std::make_unique<GuardLevelLines>(plot_);

    connect(plot_, &QCustomPlot::mouseWheel, this, [this] { stopFollowing(); });
    connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
        if (e->buttons() & Qt::LeftButton) stopFollowing();  // a drag pans
        onMouseMove(e->position());
    });
    connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { resetView(); });
    plot_->installEventFilter(this);
}

void MemoryChart::clearPrimary(const QString& label) {
    marks_->clear();
    levels_->set(std::nullopt);
    label_ = label;
    liveStage_.clear();
    forecast_->beginRun();
    run_.clear();
    graphs_ = std::make_unique<RunGraphs>(plot_, label, style::kPrimaryRun);
    bandItem_->setBands({});
    table_->clearRows();
    shownRevision_ = run_.revision();
    following_ = true;
}

void MemoryChart::beginRun(const QString& label) {
    clearPrimary(label);
    live_ = true;
    updateLegend();
    updateTitle();
    flush();
}

void MemoryChart::appendSample(const MemorySample& sample) {
    run_.append(sample);
    graphs_->append(sample);
    if (const auto peak = forecast_->exceeded(liveStage_, sample))
        emit overForecast(QString::fromStdString(liveStage_), static_cast<double>(sample.footprint),
                          static_cast<double>(*peak));
    scheduleRefresh();
}

void MemoryChart::appendEvent(const Event& event) {
    run_.append(event);
    if (event.kind == EventKind::Stage) liveStage_ = event.name;
    addMark(event);
    scheduleRefresh();
}

void MemoryChart::endRun() {
    live_ = false;
    run_.end();
    flush();
}

void MemoryChart::showTrace(const Trace& trace, const QString& label) {
    clearPrimary(label);
    forecast_->clear();
    live_ = false;
    run_.reset(trace);
    graphs_->setData(run_);
    levels_->set(guardLevelsOf(trace.start));
    for (const auto& e : run_.events()) addMark(e);
    updateTitle();
    resetView();
}

void MemoryChart::addOverlay(const Trace& trace, const QString& label) {
    Overlay overlay{RunData(trace),
                    std::make_unique<RunGraphs>(plot_, label, static_cast<int>(overlays_.size()))};
    overlay.graphs->setData(overlay.run);
    overlay.graphs->updateVisibility(overlay.run);
    overlays_.push_back(std::move(overlay));
    refreshSummary();
    updateTitle();
    resetView();
}

void MemoryChart::clearOverlay() {
    overlays_.clear();
    refreshSummary();
    updateTitle();
    resetView();
}

void MemoryChart::removeOverlay(int index) {
    if (index < 0 || index >= overlayCount()) return;
    overlays_.erase(overlays_.begin() + index);
    for (std::size_t i = 0; i < overlays_.size(); ++i) overlays_[i].graphs->setRun(static_cast<int>(i));
    refreshSummary();
    updateTitle();
    resetView();
}

QStringList MemoryChart::overlayLabels() const {
    QStringList labels;
    for (const auto& o : overlays_) labels << o.graphs->label();
    return labels;
}

void MemoryChart::setTitle(const QString& title) {
    title_ = title;
    updateTitle();
    scheduleRefresh();
}

QString MemoryChart::title() const { return titleElement_ ? titleText_ : QString(); }

QString MemoryChart::shownTitle() const { return titleElement_ ? titleElement_->text() : QString(); }

void MemoryChart::fitTitle() {
    // A title with overlays ("knight.png · character · Dec 3 12:00 (solid) vs …") is wider than
    // a narrow chart: wrapped between words, never cut at the plot's edge.
    if (titleElement_)
        titleElement_->setText(wrapText(titleText_, titleElement_->font(), std::max(100, plot_->width() - 24)));
}

void MemoryChart::updateTitle() {
    QString text = title_;
    if (text.isEmpty() && !overlays_.empty()) {
        QStringList others;
        for (const auto& o : overlays_) others << o.graphs->label();
        text =
            tr("%1 (solid) vs %2 (dashed)")
                .arg(label_.isEmpty() ? tr("this run") : label_, others.join(QStringLiteral(", ")));
    } else if (text.isEmpty()) {
        text = label_;
    }
    if (text.isEmpty()) {
        if (titleElement_) {
            plot_->plotLayout()->remove(titleElement_);  // deletes it
            plot_->plotLayout()->simplify();
            titleElement_ = nullptr;
        }
        return;
    }
    if (!titleElement_) {
        plot_->plotLayout()->insertRow(0);
        QFont font = plot_->font();
        font.setPointSizeF(font.pointSizeF() * 1.25);
        font.setBold(true);
        titleElement_ = new QCPTextElement(plot_, text, font);
        titleElement_->setTextColor(QColor(0x26, 0x32, 0x38));
        plot_->plotLayout()->addElement(0, 0, titleElement_);
        plot_->plotLayout()->setRowStretchFactor(0, 0.001);
    }
    titleText_ = text;
    fitTitle();
}

void MemoryChart::addMark(const Event& event) {
    if (marks_->add(event)) legendDirty_ = true;
}

int MemoryChart::tickCount() const { return static_cast<int>(marks_->ticks().size()); }

QString MemoryChart::stopLabel() const { return marks_->stopLabel(); }

void MemoryChart::setGuardLevels(std::optional<GuardLevels> levels) {
    levels_->set(levels);
    scheduleRefresh();
}

std::optional<GuardLevels> MemoryChart::guardLevels() const { return levels_->levels(); }

QString MemoryChart::startLevelLabel() const { return levels_->startLabel(); }

QString MemoryChart::stopLevelLabel() const { return levels_->stopLabel(); }

std::vector<QRectF> MemoryChart::labelRects() const {
    std::vector<QRectF> rects = levels_->labelRects();
    if (const QRectF stop = marks_->stopLabelRect(); !stop.isEmpty()) rects.push_back(stop);
    return rects;
}

void MemoryChart::placeLabels() {
    levels_->place({});  // where the ranges left them room
    marks_->placeStopLabel(levels_->labelRects());
}

void MemoryChart::antialiasSparseLines() {
    // Antialiasing a line of many points per pixel column was most of a replot (two hour-long
    // overlays, dashed, and an hour-long live run at 100 ms: 44 of 51 ms; aliased, 16 ms) and
    // shows nothing there: the line is a band of strokes either way. Zoomed in, or for a short
    // run, the same line is smooth again.
    const double columns = std::max(1, plot_->axisRect()->width());
    for (int i = 0; i < plot_->graphCount(); ++i) {
        QCPGraph* graph = plot_->graph(i);
        const QCPRange range = graph->keyAxis()->range();
        const auto data = graph->data();
        const double shown = static_cast<double>(data->findEnd(range.upper) - data->findBegin(range.lower));
        graph->setAntialiased(shown <= kAntialiasedPointsPerColumn * columns);
    }
}

void MemoryChart::scheduleRefresh() {
    if (!refreshTimer_.isActive()) refreshTimer_.start();
}

void MemoryChart::refresh() {
    if (run_.revision() != shownRevision_) {
        if (!live_ || sinceSummary_.elapsed() >= summaryEveryMs_) {
            refreshSummary();
        } else {
            // Between summaries the last band grows with the data. Come back at the replot
            // rate (not later: new samples must keep showing) until the summary is due.
            std::vector<ChartBand> bands = bandItem_->bands();
            if (!bands.empty()) bands.back().end = std::max(bands.back().end, run_.lastT());
            bandItem_->setBands(std::move(bands));
            updateForecastLine();
            refreshTimer_.start(kReplotMs);
        }
    }
    if (graphs_->updateVisibility(run_) || legendDirty_) updateLegend();
    fitTitle();
    updateRanges();
    placeLabels();
    plot_->replot(QCustomPlot::rpQueuedReplot);
}

void MemoryChart::refreshSummary() {
    QElapsedTimer cost;
    cost.start();
    const Summary& summary = run_.summary();
    // summarize() is O(samples x stages): when it gets costly (hours of samples, hundreds of
    // stages) recompute less often, so it never takes more than a tenth of the GUI thread.
    summaryEveryMs_ = std::max<qint64>(kSummaryMs, 10 * cost.elapsed());
    const bool empty = run_.samples().empty() && run_.events().empty();
    bandItem_->setBands(empty ? std::vector<ChartBand>{} : toBands(summary.stages));
    // A/B against the first overlay, stage by stage.
    if (overlays_.empty())
        table_->setComparison(nullptr, {});
    else
        table_->setComparison(&overlays_.front().run.summary(), overlays_.front().graphs->label());
    table_->setSummary(summary);
    fitTable();
    updateForecastLine();
    shownRevision_ = run_.revision();
    sinceSummary_.restart();
    emit summaryUpdated();
}

void MemoryChart::fitTable() {
    if (tableSizedByUser_) return;
    const int total = splitter_->width() - splitter_->handleWidth();
    if (total <= 0) return;
    // Every column whole while the plot keeps at least 60 % (it has the title to wrap); a wider
    // table scrolls sideways.
    const int width = std::clamp(table_->fullWidth(), kTableMinWidth, std::max(kTableMinWidth, total * 2 / 5));
    const QList<int> sizes{total - width, width};
    if (splitter_->sizes() != sizes) splitter_->setSizes(sizes);
}

void MemoryChart::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    fitTable();
}

void MemoryChart::flush() {
    refreshTimer_.stop();
    if (run_.revision() != shownRevision_) refreshSummary();
    graphs_->updateVisibility(run_);
    updateLegend();
    fitTitle();
    updateRanges();
    placeLabels();
    plot_->replot(QCustomPlot::rpImmediateRefresh);
}

void MemoryChart::refreshUnits() {
    plot_->yAxis->setLabel(tr("memory (%1)").arg(unitSymbol()));
    graphs_->setData(run_);
    for (auto& o : overlays_) o.graphs->setData(o.run);
    table_->refreshUnits();
    refreshSummary();  // the table's rows and the forecast line, in the new unit
    flush();
}

void MemoryChart::setForecast(std::vector<std::pair<std::string, std::int64_t>> stagePeaks) {
    forecast_->set(std::move(stagePeaks));
    updateForecastLine();
    legendDirty_ = true;
    scheduleRefresh();
}

int MemoryChart::forecastPointCount() const { return forecast_->pointCount(); }

void MemoryChart::updateForecastLine() {
    if (forecast_->update(bandItem_->bands())) legendDirty_ = true;
}

void MemoryChart::updateRanges() {
    double lastT = run_.lastT();
    double maxBytes = run_.maxBytes();
    maxBytes = std::max(maxBytes, forecast_->top());
    for (const auto& o : overlays_) {
        lastT = std::max(lastT, o.run.lastT());
        maxBytes = std::max(maxBytes, o.run.maxBytes());
    }
    const double top = std::max(1.0, maxBytes / unitBytes()) / (1.0 - style::kHeadroom);
    plot_->yAxis->setRange(0.0, top);
    // The right axis is there while a series on it is.
    bool percent = false;
    for (const Series s : kAllSeries) {
        if (seriesInfo(s).axis != SeriesAxis::Percent) continue;
        percent = percent || graphs_->isShown(s);
        for (const auto& o : overlays_) percent = percent || o.graphs->isShown(s);
    }
    plot_->yAxis2->setVisible(percent);
    // The levels mean something only against the available-memory line they cross.
    levels_->setShown(graphs_->isShown(Series::Level));
    // A live run is followed on its own clock: an overlaid run of 350 s must not squash the
    // first seconds of the new one into a corner. Finished, the range takes every run in.
    // Followed, the data ends short of the levels' labels, so they hide none of it.
    if (following_) {
        const double width = plot_->axisRect()->width();
        const double reserved = levels_->reservedWidth();
        const double stretch = reserved > 0.0 && width > 3.0 * reserved ? width / (width - reserved) : 1.01;
        plot_->xAxis->setRange(0.0, std::max(1.0, (live_ ? run_.lastT() : lastT) * stretch));
    }
}

void MemoryChart::updateLegend() {
    legendDirty_ = false;
    plot_->legend->clearItems();
    const bool labelled = !overlays_.empty();
    graphs_->setLegendLabel(labelled);
    graphs_->addToLegend();
    int perRow = 0;
    for (Series s : kAllSeries)
        perRow += graphs_->isShown(s) ? 1 : 0;
    if (forecast_->visible()) {
        forecast_->addToLegend();
        ++perRow;
    }
    perRow += marks_->addLegendKeys();
    for (const auto& o : overlays_) {
        o.graphs->setLegendLabel(true);
        o.graphs->addToLegend();
    }
    // As many entries a row as the plot's width takes whole (at most five, four when there are
    // more: a generator's own footprint, all three tick kinds), so no name is cut.
    std::vector<double> widths;  // in fill order; the grid has empty cells
    for (int i = 0; i < plot_->legend->elementCount(); ++i)
        if (const QCPLayoutElement* item = plot_->legend->elementAt(i))
            widths.push_back(item->minimumOuterSizeHint().width());
    int wrap = perRow <= 5 ? std::max(perRow, 3) : 4;
    for (; wrap > 1; --wrap) {  // each column as wide as its widest entry
        std::vector<double> columns(static_cast<std::size_t>(wrap), 0.0);
        for (std::size_t i = 0; i < widths.size(); ++i)
            columns[i % columns.size()] = std::max(columns[i % columns.size()], widths[i]);
        double total = plot_->legend->columnSpacing() * (wrap - 1) + 16;
        for (const double w : columns) total += w;
        if (total <= plot_->width()) break;
    }
    plot_->legend->setWrap(wrap);
    plot_->legend->setVisible(plot_->legend->itemCount() > 0);
}

void MemoryChart::resetView() {
    following_ = true;
    if (graphs_->updateVisibility(run_)) updateLegend();
    flush();
}

void MemoryChart::stopFollowing() {
    following_ = false;
}

bool MemoryChart::save(const QString& path, QString* error, QSize size) {
    flush();
    // A picture to share, not a screenshot: a fixed size whatever the window, with the peak
    // table beside the plot as the window shows it.
    if (!size.isValid() || size.isEmpty()) size = kExportSize;
    SideTable table;
    for (int c = 0; c < table_->columnCount(); ++c)
        if (!table_->isColumnHidden(c))
            table.header << table_->horizontalHeaderItem(c)->text().replace(QLatin1Char('\n'), QLatin1Char(' '));
    for (int r = 0; r < table_->rowCount(); ++r) {
        QStringList row;
        for (int c = 0; c < table_->columnCount(); ++c)
            if (!table_->isColumnHidden(c)) row << (table_->item(r, c) ? table_->item(r, c)->text() : QString());
        table.rows << row;
    }
    return exportPlot(*plot_, path, size, error, table);
}

std::vector<ChartBand> MemoryChart::bands() const {
    return bandItem_->bands();
}

int MemoryChart::pointCount(Series s) const {
    return graphs_->pointCount(s);
}

int MemoryChart::overlayPointCount(int index, Series s) const {
    if (index < 0 || index >= overlayCount()) return 0;
    return overlays_[static_cast<std::size_t>(index)].graphs->pointCount(s);
}

bool MemoryChart::isShown(Series s) const {
    return graphs_->isShown(s);
}

}  // namespace stageload::chart
