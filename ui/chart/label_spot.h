#pragma once
// Where a label on the memory chart hides nothing (internal to ui/chart): it tries a label's
// spots in order of preference and keeps the first that covers no drawn line and no other
// label, or else the one that covers least.
//
//   const std::vector<LabelSpot> spots = {{{t, 0.02}, Qt::AlignRight | Qt::AlignTop},
//                                         {{t, 0.02}, Qt::AlignLeft | Qt::AlignTop}};
//   placeLabel(plot, label, spots, {otherLabelRect});
//
// A spot's coordinates are in the label position's own types (plot coordinates or axis-rect
// ratios, as the caller set them). GUI thread only; the axes' geometry is the last replot's.

#include <vector>

#include <QPointF>
#include <QRectF>
#include <QString>

class QCustomPlot;
class QFont;
class QCPItemText;

namespace stageload::chart {

struct LabelSpot {
    QPointF coords;
    Qt::Alignment alignment;
};

/// How much of the plot's visible graphs `rect` (pixels) covers: the data segments that pass
/// through it, counted per pixel column of each graph. Time: the points under the rect.
int coveredData(const QCustomPlot& plot, const QRectF& rect);

/// The rectangle `label` takes now, in pixels.
QRectF labelRect(const QCPItemText& label);

/// `text` broken into lines no wider than `width` pixels in `font`: after "…:" first, then
/// between words; a word wider than that (a long file name) is elided in its middle.
QString wrapText(const QString& text, const QFont& font, double width);

/// Moves `label` to the first of `spots` that lies wholly in the axis rect and covers no data
/// and none of `avoid`; or else to the spot that covers the least. Returns the chosen spot.
int placeLabel(QCustomPlot& plot, QCPItemText& label, const std::vector<LabelSpot>& spots,
               const std::vector<QRectF>& avoid = {});

}  // namespace stageload::chart
