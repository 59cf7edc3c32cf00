#include "ui/chart/guard_level_lines.h"

#include <algorithm>

#include <qcustomplot.h>

#include "guard/base/units.h"
#include "ui/chart/chart_style.h"
#include "ui/chart/label_spot.h"

namespace stageload::chart {
namespace {

QCPItemStraightLine* levelLine(QCustomPlot* plot, const QColor& color) {
    auto* line = new QCPItemStraightLine(plot);  // the plot owns it
    line->setLayer(QStringLiteral("ticks"));
    line->setSelectable(false);
    line->setPen(QPen(color, 1.2, Qt::DashDotDotLine));
    for (QCPItemPosition* p : {line->point1, line->point2}) p->setAxes(plot->xAxis, plot->yAxis2);
    line->setVisible(false);
    return line;
}

QCPItemText* levelLabel(QCustomPlot* plot, const QColor& color) {
    auto* label = new QCPItemText(plot);
    label->setLayer(QStringLiteral("ticks"));
    label->setSelectable(false);
    label->setClipToAxisRect(true);
    label->position->setAxes(plot->xAxis, plot->yAxis2);
    label->position->setAxisRect(plot->axisRect());
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->setColor(color);
    label->setPadding(QMargins(3, 1, 3, 1));
    label->setVisible(false);
    return label;
}

QString percentText(double percent) {
    return QString::fromStdString(formatNumber(percent));
}

}  // namespace

GuardLevelLines::GuardLevelLines(QCustomPlot* plot)
    : plot_(plot),
      start_{levelLine(plot, style::startLevelColor()), levelLabel(plot, style::startLevelColor())},
      stop_{levelLine(plot, style::stopColor()), levelLabel(plot, style::stopColor())} {}

void GuardLevelLines::set(std::optional<GuardLevels> levels) {
    levels_ = levels;
    setShown(shown_);
}

void GuardLevelLines::setShown(bool shown) {
    shown_ = shown;
    const GuardLevels levels = shown && levels_ ? *levels_ : GuardLevels{};
    show(start_, levels.startFree, tr("start ≥ %1 % free").arg(percentText(levels.startFree)));
    show(stop_, levels.stopFree, tr("stop < %1 % free").arg(percentText(levels.stopFree)));
}

void GuardLevelLines::show(Level& level, double percent, const QString& text) {
    level.percent = percent;
    const bool on = percent > 0.0;
    level.line->setVisible(on);
    level.label->setVisible(on);
    if (!on) return;
    level.line->point1->setCoords(0.0, percent);
    level.line->point2->setCoords(1.0, percent);
    level.label->setText(text);
}

double GuardLevelLines::reservedWidth() const {
    double width = 0.0;
    for (const Level* level : {&start_, &stop_})
        if (level->label->visible()) width = std::max(width, labelRect(*level->label).width());
    return width > 0.0 ? width + 6.0 : 0.0;
}

void GuardLevelLines::place(const std::vector<QRectF>& avoid) {
    std::vector<QRectF> taken = avoid;
    for (Level* level : {&start_, &stop_}) {
        if (!level->label->visible()) continue;
        // The start label above its line, the stop label below its own (the start level is the
        // higher one), so the two never meet however close the levels are. At the right end
        // first, in the strip a followed run leaves free; else the left end, else the middle.
        const Qt::Alignment side = level == &start_ ? Qt::AlignBottom : Qt::AlignTop;
        const Qt::Alignment other = level == &start_ ? Qt::AlignTop : Qt::AlignBottom;
        const double y = level->percent;
        const std::vector<LabelSpot> spots = {{{0.995, y}, Qt::AlignRight | side},
                                              {{0.005, y}, Qt::AlignLeft | side},
                                              {{0.5, y}, Qt::AlignHCenter | side},
                                              {{0.995, y}, Qt::AlignRight | other},
                                              {{0.005, y}, Qt::AlignLeft | other}};
        placeLabel(*plot_, *level->label, spots, taken);
        taken.push_back(labelRect(*level->label));
    }
}

QString GuardLevelLines::startLabel() const {
    return start_.label->visible() ? start_.label->text() : QString();
}

QString GuardLevelLines::stopLabel() const {
    return stop_.label->visible() ? stop_.label->text() : QString();
}

std::vector<QRectF> GuardLevelLines::labelRects() const {
    std::vector<QRectF> rects;
    for (const Level* level : {&start_, &stop_})
        if (level->label->visible()) rects.push_back(labelRect(*level->label));
    return rects;
}

}  // namespace stageload::chart
