// MemoryChart: what the mouse shows — tick tooltips, the value readout and the cursor line.
#include <cmath>

#include <QEvent>
#include <QToolTip>
#include <qcustomplot.h>

#include "ui/chart/display_units.h"
#include "ui/chart/event_marks.h"
#include "ui/chart/memory_chart.h"
#include "ui/chart/run_graphs.h"

namespace stageload::chart {
namespace {

constexpr double kTickReachPx = 6.0;  // how close to a tick the mouse must be
constexpr int kMaxTicksListed = 6;

QString bytes(double value) {
    return sizeText(static_cast<std::int64_t>(std::llround(value)));
}

QString seconds(double t) {
    return QString::number(t, 'f', t < 100 ? 3 : 1) + QStringLiteral(" s");
}

QString describe(const Event& e) {
    const QString name = QString::fromStdString(e.name);
    QString text =
        QStringLiteral("<b>%1</b> %2")
            .arg(QString::fromStdString(std::string(toString(e.kind))), name.toHtmlEscaped());
    if (!e.stage.empty())
        text += QStringLiteral(" <i>(%1)</i>").arg(QString::fromStdString(e.stage).toHtmlEscaped());
    if (e.kind == EventKind::Release)
        text += QStringLiteral("<br>%1 freed").arg(bytes(static_cast<double>(e.nbytes)));
    else
        text += QStringLiteral("<br>%1 in %2")
                    .arg(bytes(static_cast<double>(e.nbytes)), seconds(e.seconds));
    if (!e.note.empty())
        text += QStringLiteral("<br>%1").arg(QString::fromStdString(e.note).toHtmlEscaped());
    return text + QStringLiteral("<br>at t = %1").arg(seconds(e.t));
}

/// Lines "series: value" for `run` at `t`, empty when `t` is outside the run.
QStringList readout(const RunData& run, const RunGraphs& graphs, double t) {
    QStringList lines;
    const MemorySample* s = run.sampleAt(t);
    if (!s || t < 0 || t > run.lastT()) return lines;
    for (Series series : kAllSeries) {
        if (!graphs.isShown(series)) continue;
        const auto v = RunGraphs::plotValue(series, *s);
        if (!v) continue;
        const auto& row = seriesInfo(series);
        QString value = row.axis == SeriesAxis::Percent ? QString::number(*v, 'f', 0) + QStringLiteral(" %")
                                                        : bytes(*v * unitBytes());
        if (const double detail = row.detailBytes ? row.detailBytes(*s) : 0.0; detail > 0)
            value += QStringLiteral(" (%1)").arg(bytes(detail));
        const QString name = QString::fromUtf8(row.readoutName);
        lines << QStringLiteral("<span style=\"color:%1\">&#9632;</span> %2: <b>%3</b>")
                     .arg(style::seriesColor(series).name(), name, value);
    }
    return lines;
}

}  // namespace

QString MemoryChart::hoverText(const QPointF& pos) const {
    if (!plot_->axisRect()->rect().contains(pos.toPoint())) return {};
    const QString ticks = tickText(pos);
    if (!ticks.isEmpty()) return ticks;
    return readoutText(plot_->xAxis->pixelToCoord(pos.x()));
}

QString MemoryChart::tickText(const QPointF& pos) const {
    const QRect area = plot_->axisRect()->rect();
    const double zoneTop = area.bottom() - area.height() * style::kTickHeight - kTickReachPx;
    if (pos.y() < zoneTop) return {};
    QStringList found;
    int more = 0;
    for (const auto& [event, line] : marks_->ticks()) {
        if (std::abs(plot_->xAxis->coordToPixel(event.t) - pos.x()) > kTickReachPx) continue;
        if (found.size() < kMaxTicksListed)
            found << describe(event);
        else
            ++more;
    }
    if (found.isEmpty()) return {};
    if (more > 0) found << tr("… and %1 more").arg(more);
    return found.join(QStringLiteral("<hr>"));
}

QString MemoryChart::readoutText(double t) const {
    QString text = QStringLiteral("t = <b>%1</b>").arg(seconds(t));
    // The band under the mouse, as drawn (no summary recomputed while hovering a live run).
    const auto& bands = bandItem_->bands();
    for (std::size_t k = 0; k < bands.size(); ++k) {
        const bool last = k + 1 == bands.size();
        if (t < bands[k].start || (last ? t > bands[k].end : t >= bands[k].end)) continue;
        text += QStringLiteral(" · stage <b>%1</b>").arg(bands[k].name.toHtmlEscaped());
        break;
    }
    QStringList lines = readout(run_, *graphs_, t);
    if (!overlays_.empty() && !lines.isEmpty() && !label_.isEmpty())
        lines.prepend(QStringLiteral("<i>%1</i>").arg(label_.toHtmlEscaped()));
    for (const auto& o : overlays_) {
        const QStringList more = readout(o.run, *o.graphs, t);
        if (more.isEmpty()) continue;
        lines << QStringLiteral("<i>%1 (dashed)</i>").arg(o.graphs->label().toHtmlEscaped());
        lines << more;
    }
    if (lines.isEmpty()) return {};
    return text + QStringLiteral("<br>") + lines.join(QStringLiteral("<br>"));
}

void MemoryChart::onMouseMove(const QPointF& pos) {
    const QString text = hoverText(pos);
    const bool inside = plot_->axisRect()->rect().contains(pos.toPoint());
    cursor_->setVisible(inside);
    if (inside) {
        const double t = plot_->xAxis->pixelToCoord(pos.x());
        cursor_->point1->setCoords(t, 0.0);
        cursor_->point2->setCoords(t, 1.0);
    }
    plot_->layer(QStringLiteral("cursor"))->replot();
    if (text.isEmpty())
        QToolTip::hideText();
    else
        QToolTip::showText(plot_->mapToGlobal(pos.toPoint()) + QPoint(14, 14), text, plot_);
}

bool MemoryChart::eventFilter(QObject* watched, QEvent* event) {
    if (watched == plot_ && event->type() == QEvent::Resize) {
        legendDirty_ = true;  // as many legend entries a row as the new width takes
        scheduleRefresh();
    }
    if (watched == plot_ && event->type() == QEvent::Leave) {
        cursor_->setVisible(false);
        plot_->layer(QStringLiteral("cursor"))->replot();
        QToolTip::hideText();
    }
    return QWidget::eventFilter(watched, event);
}

}  // namespace stageload::chart
