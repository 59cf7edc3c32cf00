#include "ui/chart/label_spot.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QFontMetricsF>
#include <QStringList>
#include <qcustomplot.h>

namespace stageload::chart {

QString wrapText(const QString& text, const QFont& font, double width) {
    const QFontMetricsF metrics(font);
    if (metrics.horizontalAdvance(text) <= width) return text;
    QStringList lines;
    QString line;
    for (const QString& word : text.split(QLatin1Char(' '), Qt::SkipEmptyParts)) {
        const QString longer = line.isEmpty() ? word : line + QLatin1Char(' ') + word;
        if (!line.isEmpty() && (metrics.horizontalAdvance(longer) > width || line.endsWith(QLatin1Char(':')))) {
            lines << line;
            line = word;
        } else {
            line = longer;
        }
    }
    if (!line.isEmpty()) lines << line;
    for (QString& l : lines) l = metrics.elidedText(l, Qt::ElideMiddle, width);
    return lines.join(QLatin1Char('\n'));
}
namespace {

// The pixel columns of one graph's data under [left, right] that reach into [top, bottom]: the
// line between two points spans every height between them, so each column is the span of
// its points and of the lines into and out of it.
int coveredBy(const QCPGraph& graph, const QRectF& rect) {
    const auto data = graph.data();
    if (data->isEmpty()) return 0;
    const QCPAxis* keyAxis = graph.keyAxis();
    const QCPAxis* valueAxis = graph.valueAxis();
    double k0 = keyAxis->pixelToCoord(rect.left()), k1 = keyAxis->pixelToCoord(rect.right());
    if (k0 > k1) std::swap(k0, k1);
    auto it = data->findBegin(k0, true);  // one point before, for the line into the rect
    const auto end = data->findEnd(k1, true);
    if (it == end) return 0;
    int covered = 0;
    double lastColumn = std::numeric_limits<double>::quiet_NaN();
    double prevX = keyAxis->coordToPixel(it->key), prevY = valueAxis->coordToPixel(it->value);
    for (++it; it != end; ++it) {
        const double x = keyAxis->coordToPixel(it->key), y = valueAxis->coordToPixel(it->value);
        const bool inX = std::max(prevX, x) >= rect.left() && std::min(prevX, x) <= rect.right();
        const bool inY = std::max(prevY, y) >= rect.top() && std::min(prevY, y) <= rect.bottom();
        if (std::isfinite(prevY) && std::isfinite(y) && inX && inY) {
            const double column = std::floor(std::clamp(x, rect.left(), rect.right()));
            if (column != lastColumn) ++covered;
            lastColumn = column;
        }
        prevX = x;
        prevY = y;
    }
    return covered;
}

}  // namespace

int coveredData(const QCustomPlot& plot, const QRectF& rect) {
    int covered = 0;
    for (int i = 0; i < plot.graphCount(); ++i) {
        const QCPGraph* graph = plot.graph(i);
        if (graph->visible()) covered += coveredBy(*graph, rect);
    }
    return covered;
}

QRectF labelRect(const QCPItemText& label) {
    return QRectF(label.topLeft->pixelPosition(), label.bottomRight->pixelPosition()).normalized();
}

int placeLabel(QCustomPlot& plot, QCPItemText& label, const std::vector<LabelSpot>& spots,
               const std::vector<QRectF>& avoid) {
    const QRectF area = QRectF(plot.axisRect()->rect()).adjusted(-0.5, -0.5, 0.5, 0.5);
    int best = -1;
    long bestCost = std::numeric_limits<long>::max();
    for (int i = 0; i < static_cast<int>(spots.size()); ++i) {
        label.position->setCoords(spots[i].coords);
        label.setPositionAlignment(spots[i].alignment);
        const QRectF r = labelRect(label);
        // A spot out of the plot is cut by it: worse than covering a line.
        long cost = area.contains(r) ? 0 : 1'000'000;
        cost += coveredData(plot, r);
        for (const QRectF& other : avoid)
            if (other.intersects(r)) cost += 10'000;
        if (cost < bestCost) {
            best = i;
            bestCost = cost;
        }
        if (cost == 0) break;
    }
    if (best >= 0) {
        label.position->setCoords(spots[best].coords);
        label.setPositionAlignment(spots[best].alignment);
    }
    return best;
}

}  // namespace stageload::chart
