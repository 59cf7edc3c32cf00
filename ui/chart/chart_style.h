#pragma once
// Colours and sizes of the memory chart, in one place (internal to ui/chart); each series' own
// colour, name and width are its row in chart_series.h.
//
//   graph->setPen(chart::style::seriesPen(chart::Series::Footprint));        // the primary run
//   graph->setPen(chart::style::seriesPen(chart::Series::Footprint, 0));     // the first overlay
//
// Series keep their colour across runs; an overlaid run is drawn dashed and lighter, its
// footprint in a colour of its own. Pure
// functions, thread-safe (they only build values).

#include <QColor>
#include <QPen>
#include <QString>
#include <cstddef>

#include "ui/chart/chart_series.h"

namespace stageload::chart::style {

inline QColor seriesColor(Series s) {
    return QColor::fromRgb(static_cast<QRgb>(0xff000000u | seriesInfo(s).rgb));
}

inline QString seriesName(Series s) {
    return QString::fromUtf8(seriesInfo(s).name);
}

/// The run a pen is for: the primary one, or overlay 0, 1, 2 ...
inline constexpr int kPrimaryRun = -1;

/// An overlaid run's footprint colour: each overlay its own (orange, teal, magenta, brown,
/// grey, then again), all unlike the primary run's blue.
inline QColor overlayFootprintColor(int overlay) {
    static const QColor palette[] = {QColor(0xef, 0x6c, 0x00), QColor(0x00, 0x89, 0x7b),
                                     QColor(0xad, 0x14, 0x57), QColor(0x6d, 0x4c, 0x41),
                                     QColor(0x54, 0x6e, 0x7a)};
    return palette[overlay % 5];
}

/// The primary run solid; overlay `n` dashed, with a dash pattern and footprint colour of its own.
inline QPen seriesPen(Series s, int run = kPrimaryRun) {
    if (run == kPrimaryRun) return QPen(seriesColor(s), seriesInfo(s).width);
    QColor c = s == Series::Footprint ? overlayFootprintColor(run) : seriesColor(s);
    c.setAlpha(190);
    QPen pen(c, s == Series::Footprint ? 2.0 : 1.2);
    static const Qt::PenStyle dashes[] = {Qt::DashLine, Qt::DotLine, Qt::DashDotLine, Qt::DashDotDotLine};
    pen.setStyle(dashes[run % 4]);
    return pen;
}

inline QColor loadColor() {
    return QColor(0x00, 0x89, 0x7b);  // teal
}
inline QColor reloadColor() {
    return QColor(0x5e, 0x35, 0xb1);  // violet
}
inline QColor releaseColor() {
    return QColor(0xef, 0x6c, 0x00);  // orange
}

/// Band fills alternate between these two (translucent, so grid and lines show through).
inline QColor bandColor(int index) {
    return index % 2 == 0 ? QColor(0x90, 0xa4, 0xae, 38) : QColor(0xff, 0xff, 0xff, 0);
}
inline QColor bandEdgeColor() {
    return QColor(0x78, 0x90, 0x9c, 110);
}
inline QColor bandTextColor() {
    return QColor(0x37, 0x47, 0x4f);
}

inline QColor stopColor() {
    return QColor(0xb7, 0x1c, 0x1c);  // dark red: where a run was stopped
}
inline QColor startLevelColor() {
    return QColor(0x2e, 0x7d, 0x32);  // dark green: the guard's start level
}
/// The highest a stop label may sit, as a fraction of the plot height from the top (under the
/// bands' names); it goes lower where it would hide data there.
inline constexpr double kStopLabelAt = 0.08;

/// Fraction of the plot height the ticks take at its bottom.
inline constexpr double kTickHeight = 0.07;
/// Fraction of headroom above the highest value, so band names do not sit on the lines.
inline constexpr double kHeadroom = 0.14;

}  // namespace stageload::chart::style
