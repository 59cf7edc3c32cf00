#include "ui/chart/stage_band_item.h"

#include <algorithm>

#include <QFontMetricsF>

#include "ui/chart/chart_style.h"

namespace stageload::chart {

StageBandItem::StageBandItem(QCustomPlot* plot, QCPAxis* keyAxis)
    : QCPAbstractItem(plot), keyAxis_(keyAxis) {
    setSelectable(false);
    setClipAxisRect(keyAxis->axisRect());
}

void StageBandItem::setBands(std::vector<ChartBand> bands) {
    bands_ = std::move(bands);
}

double StageBandItem::selectTest(const QPointF&, bool, QVariant*) const {
    return -1.0;  // decoration: never selected, never steals the mouse
}

void StageBandItem::draw(QCPPainter* painter) {
    const QRectF area = keyAxis_->axisRect()->rect();
    if (area.width() <= 0 || bands_.empty()) return;

    QFont font = mParentPlot->font();
    font.setPointSizeF(font.pointSizeF() * 0.95);
    painter->setFont(font);
    const QFontMetricsF metrics(font, painter->device());
    const double pad = 4.0;
    const double lineHeight = metrics.height();
    double freeFrom = area.left();  // labels must start right of the previous one

    for (std::size_t i = 0; i < bands_.size(); ++i) {
        const ChartBand& band = bands_[i];
        const double x1 = keyAxis_->coordToPixel(band.start);
        const double x2 = keyAxis_->coordToPixel(band.end);
        const double left = std::max(area.left(), std::min(x1, x2));
        const double right = std::min(area.right(), std::max(x1, x2));
        if (right <= left) continue;

        painter->setPen(Qt::NoPen);
        painter->setBrush(style::bandColor(static_cast<int>(i)));
        painter->drawRect(QRectF(left, area.top(), right - left, area.height()));
        if (i > 0 && x1 >= area.left() && x1 <= area.right()) {
            QPen edge(style::bandEdgeColor(), 1.0, Qt::DashLine);
            painter->setPen(edge);
            painter->drawLine(QPointF(x1, area.top()), QPointF(x1, area.bottom()));
        }

        // The name: across, upright, or not at all.
        const double textWidth = metrics.horizontalAdvance(band.name);
        const double start = std::max(left, freeFrom);
        const double room = right - start - 2 * pad;
        QRectF box;
        bool upright = false;
        if (textWidth <= room) {
            box = QRectF(start + pad, area.top() + pad, textWidth, lineHeight);
        } else if (lineHeight <= room + pad && textWidth + 2 * pad < area.height() * 0.6) {
            box = QRectF(start + pad / 2, area.top() + pad, lineHeight, textWidth);
            upright = true;
        } else {
            continue;
        }
        painter->setPen(Qt::NoPen);
        painter->setBrush(QColor(255, 255, 255, 200));
        painter->drawRoundedRect(box.adjusted(-2, -1, 2, 1), 3, 3);
        painter->setPen(style::bandTextColor());
        if (upright) {
            painter->save();
            painter->translate(box.left(), box.top());
            painter->rotate(90);
            painter->drawText(QRectF(0, -lineHeight, textWidth, lineHeight),
                              Qt::AlignLeft | Qt::AlignVCenter, band.name);
            painter->restore();
        } else {
            painter->drawText(box, Qt::AlignLeft | Qt::AlignVCenter, band.name);
        }
        freeFrom = box.right() + pad;
    }
}

}  // namespace stageload::chart
