#pragma once
// The lines of one run in the memory chart (internal to ui/chart): footprint, available memory
// (in the display unit, display_units.h, or `level` in percent on the right axis when the samples carry no available bytes),
// swap used and GPU memory, as QCPGraphs of one QCustomPlot.
//
//   stageload::chart::RunGraphs graphs(plot, "staged-1", style::kPrimaryRun);  // or overlay 0, 1 ...
//   graphs.append(sample);          // O(1): one point per series
//   graphs.updateVisibility(run);   // series without data are hidden
//   graphs.addToLegend();           // after plot->legend->clearItems(): the shown ones, in order
//
// The plot owns the graphs; the destructor removes them. GUI thread only, throws nothing.

#include <array>

#include <QString>
#include <qcustomplot.h>

#include "ui/chart/chart_style.h"
#include "ui/chart/run_data.h"

namespace stageload::chart {

class RunGraphs {
public:
    /// `run`: style::kPrimaryRun, or the overlay's index (its pens).
    RunGraphs(QCustomPlot* plot, const QString& label, int run);
    ~RunGraphs();
    RunGraphs(const RunGraphs&) = delete;
    RunGraphs& operator=(const RunGraphs&) = delete;

    /// Adds one point per series (x: t in seconds, y: the display unit, or percent for Level).
    void append(const MemorySample& sample);
    /// Replaces every series with the samples of `run`.
    void setData(const RunData& run);
    /// Shows the series `run` has data for, hides the others; true when that changed.
    bool updateVisibility(const RunData& run);
    /// Adds the shown series to the plot's legend, in series order.
    void addToLegend() const;
    /// Renames the legend entries ("footprint", or "footprint — label" when `withLabel`).
    void setLegendLabel(bool withLabel);

    QCPGraph* graph(Series s) const { return graphs_[static_cast<std::size_t>(s)]; }
    int pointCount(Series s) const { return graph(s)->dataCount(); }
    bool isShown(Series s) const { return graph(s)->visible(); }
    const QString& label() const { return label_; }
    /// Gives the graphs the pens of run `run` (an overlay renumbered after a removal).
    void setRun(int run);

    /// The value of series `s` in `sample`, in the unit the chart plots (nullopt: no value).
    static std::optional<double> plotValue(Series s, const MemorySample& sample);

private:
    QCustomPlot* plot_;
    QString label_;
    std::array<QCPGraph*, kSeriesCount> graphs_{};
};

}  // namespace stageload::chart
