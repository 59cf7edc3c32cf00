#include "ui/chart/event_marks.h"

#include <algorithm>

#include <QFontMetricsF>
#include <QStringList>
#include <qcustomplot.h>

#include "guard/trace/summary.h"
#include "ui/chart/chart_style.h"
#include "ui/chart/label_spot.h"

namespace stageload::chart {
namespace {

QCPGraph* addKeyGraph(QCustomPlot* plot, const QString& name, QCPScatterStyle::ScatterShape shape,
                      const QColor& color) {
    QCPGraph* g = plot->addGraph();
    g->setName(name);
    g->setLineStyle(QCPGraph::lsNone);
    g->setScatterStyle(QCPScatterStyle(shape, color, color, 8));
    g->removeFromLegend();
    return g;
}

// An item at time `t` (plot coordinates) and a height given as a ratio of the axis rect.
void placeAt(QCPItemPosition* p, QCustomPlot* plot) {
    p->setAxes(plot->xAxis, plot->yAxis);
    p->setAxisRect(plot->axisRect());
    p->setTypeX(QCPItemPosition::ptPlotCoords);
    p->setTypeY(QCPItemPosition::ptAxisRectRatio);
}

}  // namespace

EventMarks::EventMarks(QCustomPlot* plot)
    : plot_(plot),
      loadKey_(addKeyGraph(plot, tr("load"), QCPScatterStyle::ssTriangle, style::loadColor())),
      reloadKey_(addKeyGraph(plot, tr("reload"), QCPScatterStyle::ssTriangle, style::reloadColor())),
      releaseKey_(addKeyGraph(plot, tr("release"), QCPScatterStyle::ssTriangleInverted, style::releaseColor())) {}

bool EventMarks::add(const Event& event) {
    bool newKind = false;
    switch (event.kind) {
        case EventKind::Load: addTick(event, loadKey_, style::loadColor(), &newKind); break;
        case EventKind::Reload: addTick(event, reloadKey_, style::reloadColor(), &newKind); break;
        case EventKind::Release: addTick(event, releaseKey_, style::releaseColor(), &newKind); break;
        default: addStop(event); break;
    }
    return newKind;
}

void EventMarks::addTick(const Event& event, QCPGraph* key, const QColor& color, bool* newKind) {
    const bool release = event.kind == EventKind::Release;
    auto* line = new QCPItemLine(plot_);  // the plot owns it
    line->setLayer(QStringLiteral("ticks"));
    line->setSelectable(false);
    *newKind = !plot_->legend->hasItemWithPlottable(key);
    line->setPen(QPen(color, 1.6));
    line->setHead(QCPLineEnding(QCPLineEnding::esSpikeArrow, 7, 9));
    const double low = 1.0, high = 1.0 - style::kTickHeight;  // axis rect ratio: 1 = bottom
    for (QCPItemPosition* p : {line->start, line->end}) placeAt(p, plot_);
    line->start->setCoords(event.t, release ? high : low);  // load points up, release down
    line->end->setCoords(event.t, release ? low : high);
    ticks_.emplace_back(event, line);
}

void EventMarks::addStop(const Event& event) {
    const auto stop = stopMarkOf(event);
    if (!stop || stop_) return;
    const QString text = stop->reason.empty()               ? tr("stopped before %1").arg(QString::fromStdString(stop->stage))
                         : stop->reason == kCancelledReason ? tr("cancelled")
                         : isInterruption(stop->reason)     ? QString::fromStdString(stop->reason)
                                                            : tr("stopped by the guard: %1")
                                                                  .arg(QString::fromStdString(stop->reason));
    auto* line = new QCPItemStraightLine(plot_);  // the plot owns both
    line->setLayer(QStringLiteral("ticks"));
    line->setSelectable(false);
    line->setPen(QPen(style::stopColor(), 1.6, Qt::DashLine));
    line->point1->setCoords(event.t, 0.0);
    line->point2->setCoords(event.t, 1.0);
    auto* label = new QCPItemText(plot_);
    label->setLayer(QStringLiteral("ticks"));
    label->setSelectable(false);
    label->setClipToAxisRect(true);
    placeAt(label->position, plot_);
    label->position->setCoords(event.t, style::kStopLabelAt);
    label->setPositionAlignment(Qt::AlignRight | Qt::AlignTop);
    label->setText(text);
    label->setColor(style::stopColor());
    label->setBrush(QColor(255, 255, 255, 220));
    label->setPadding(QMargins(4, 2, 4, 2));
    stop_ = Stop{text, line, label, event.t};
}

void EventMarks::placeStopLabel(const std::vector<QRectF>& avoid) {
    if (!stop_) return;
    // Beside the line, as high as it can sit without hiding the data: a run is often stopped at
    // its peak, whose plateau runs along the top just left of the line. Right of the line is
    // empty once a run has stopped, but not while its last samples come in or an overlay runs on.
    // Wrapped to under half the plot's width (the reason under "stopped by the guard:"), so it
    // fits beside the line whatever the window.
    QCPItemText& label = *stop_->label;
    label.setText(wrapText(stop_->text, label.font(), std::max(140.0, 0.45 * plot_->axisRect()->width())));
    std::vector<LabelSpot> spots;
    for (const auto side : {Qt::AlignRight, Qt::AlignLeft})
        for (const double at : {style::kStopLabelAt, 0.3, 0.55, 0.75})
            spots.push_back({{stop_->t, at}, side | Qt::AlignTop});
    placeLabel(*plot_, label, spots, avoid);
}

QRectF EventMarks::stopLabelRect() const {
    return stop_ ? labelRect(*stop_->label) : QRectF();
}

void EventMarks::clear() {
    for (auto& [event, line] : ticks_) plot_->removeItem(line);
    ticks_.clear();
    if (stop_) {
        plot_->removeItem(stop_->line);
        plot_->removeItem(stop_->label);
    }
    stop_.reset();
}

int EventMarks::addLegendKeys() const {
    bool shown[3] = {false, false, false};  // load, reload, release
    for (const auto& [event, line] : ticks_)
        shown[event.kind == EventKind::Load ? 0 : event.kind == EventKind::Reload ? 1 : 2] = true;
    QCPGraph* const keys[3] = {loadKey_, reloadKey_, releaseKey_};
    int added = 0;
    for (int k = 0; k < 3; ++k) {
        if (!shown[k]) continue;
        keys[k]->addToLegend();
        ++added;
    }
    return added;
}

}  // namespace stageload::chart
