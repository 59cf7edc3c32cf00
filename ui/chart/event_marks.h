#pragma once
// The memory chart's marks of what happened in a run (internal to ui/chart): an arrow at each
// registry load (up), reload (up, in its own colour) and release (down) along the bottom of the
// plot with a legend key per kind shown, and the dashed line where the run was stopped, labelled
// with why beside it, where the label hides no data (placeStopLabel()).
//
//   EventMarks marks(plot);                    // the plot owns the items and the key graphs
//   if (marks.add(event)) updateLegend();      // a kind of arrow new to the legend
//   marks.addLegendKeys();                     // in updateLegend(), after the series
//   marks.clear();                             // a new primary run
//
// GUI thread only.

#include <optional>
#include <utility>
#include <vector>

#include <QCoreApplication>
#include <QRectF>
#include <QString>

#include "guard/base/event.h"

class QColor;
class QCustomPlot;
class QCPGraph;
class QCPItemLine;
class QCPItemStraightLine;
class QCPItemText;

namespace stageload::chart {

class EventMarks {
    Q_DECLARE_TR_FUNCTIONS(EventMarks)

public:
    /// Adds the three legend key graphs to `plot` (out of the legend until a mark of their kind).
    explicit EventMarks(QCustomPlot* plot);
    EventMarks(const EventMarks&) = delete;
    EventMarks& operator=(const EventMarks&) = delete;

    /// Draws `event` when it is a load, reload or release (an arrow) or the run's first stop
    /// mark (a line and its label); other events draw nothing. True when the legend must show a
    /// kind of arrow it does not show yet.
    bool add(const Event& event);
    /// Puts the stop line's label beside it where it hides no data and none of `avoid` (pixels):
    /// after the ranges are set, before a replot.
    void placeStopLabel(const std::vector<QRectF>& avoid = {});
    /// The stop label's rectangle in pixels (empty when there is none).
    QRectF stopLabelRect() const;
    /// Removes every mark from the plot (the key graphs stay).
    void clear();
    /// Puts a key into the plot's legend for each kind of arrow drawn; returns how many.
    int addLegendKeys() const;

    /// The arrows drawn, with their events (the hover names them).
    const std::vector<std::pair<Event, QCPItemLine*>>& ticks() const { return ticks_; }
    /// The stop line's label ("stopped by the guard: …", "cancelled", "stopped before texture"),
    /// or "" when the run was not stopped.
    QString stopLabel() const { return stop_ ? stop_->text : QString(); }

private:
    void addTick(const Event& event, QCPGraph* key, const QColor& color, bool* newKind);
    void addStop(const Event& event);

    struct Stop {
        QString text;
        QCPItemStraightLine* line;
        QCPItemText* label;
        double t;
    };

    QCustomPlot* plot_;
    QCPGraph* loadKey_;
    QCPGraph* reloadKey_;
    QCPGraph* releaseKey_;
    std::vector<std::pair<Event, QCPItemLine*>> ticks_;
    std::optional<Stop> stop_;  ///< the first stop is the one that counts
};

}  // namespace stageload::chart
