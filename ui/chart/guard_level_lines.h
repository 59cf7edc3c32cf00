#pragma once
// The guard's levels on the memory chart (internal to ui/chart): a line across the plot at the
// available-memory percentage where the guard starts a run ("start ≥ 40 % free") and one where
// it stops it ("stop < 10 % free"), on the right (percent) axis the "available" series is
// drawn on. The labels sit at the right end, the start one above its line and the stop one
// below, so they never meet; the chart keeps a strip that wide free of data while it follows
// a run (reservedWidth()), and elsewhere they go where they hide the least.
//
//   GuardLevelLines levels(plot);          // the plot owns the items
//   levels.set(GuardLevels{40, 10});       // or std::nullopt: none
//   levels.setShown(availableIsShown);     // the lines mean nothing without that series
//   xMax = lastT * width / (width - levels.reservedWidth());
//   levels.place({});                      // after the ranges, before a replot
//
// GUI thread only.

#include <optional>
#include <vector>

#include <QCoreApplication>
#include <QRectF>
#include <QString>

#include "guard/policy/guard_levels.h"

class QCustomPlot;
class QCPItemStraightLine;
class QCPItemText;

namespace stageload::chart {

class GuardLevelLines {
    Q_DECLARE_TR_FUNCTIONS(GuardLevelLines)

public:
    explicit GuardLevelLines(QCustomPlot* plot);
    GuardLevelLines(const GuardLevelLines&) = delete;
    GuardLevelLines& operator=(const GuardLevelLines&) = delete;

    void set(std::optional<GuardLevels> levels);
    std::optional<GuardLevels> levels() const { return levels_; }
    /// Draws the lines (those that are on) only while `shown`.
    void setShown(bool shown);

    /// Pixels the labels need at the right end of the plot (0: none shown).
    double reservedWidth() const;
    /// Puts each visible label where it covers no data and none of `avoid` (pixels).
    void place(const std::vector<QRectF>& avoid);

    /// The labels drawn, start level first ("" for a level not drawn).
    QString startLabel() const;
    QString stopLabel() const;
    /// The rectangles of the labels drawn, in pixels.
    std::vector<QRectF> labelRects() const;

private:
    struct Level {
        QCPItemStraightLine* line;
        QCPItemText* label;
        double percent = 0.0;  ///< 0: off
    };
    void show(Level& level, double percent, const QString& text);

    QCustomPlot* plot_;
    Level start_;
    Level stop_;
    std::optional<GuardLevels> levels_;
    bool shown_ = false;
};

}  // namespace stageload::chart
