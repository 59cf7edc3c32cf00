#pragma once
// The per-stage peak table beside the memory chart: stage | time (s) | peak (GiB) | high-water
// (GiB), the units on a second header line; one row per stage window, then a bold "total" row
// (duration, overall peak). The high-water column is the engine's exact per-stage peak (its
// stage_peak marks), shown only for traces that have it, as `stageload summary` does. Sizes in
// the display unit (GiB = 2^30 bytes by default, or GB: display_units.h), 2 decimals as
// stageload::formatGb() writes them (the published tables' convention); "–" for a window
// without samples.
//
//   stageload::chart::StagePeakTable table;
//   table.setSummary(stageload::summarize(trace));
//   table.item(0, 2)->text();   // "2.93"
//
// MemoryChart owns one (MemoryChart::peakTable()) and refreshes it a few times a second while a
// run is live. GUI thread only; throws nothing.

#include <QTableWidget>

#include "guard/trace/summary.h"

namespace stageload::chart {

class StagePeakTable : public QTableWidget {
    Q_OBJECT
public:
    enum Column {
        StageColumn = 0,
        SecondsColumn = 1,
        PeakColumn = 2,
        HighWaterColumn = 3,
        OtherPeakColumn = 4,  ///< with a comparison: the other run's peak of the stage
        ChangeColumn = 5,     ///< ... and how this run's differs from it, in percent
    };

    explicit StagePeakTable(QWidget* parent = nullptr);

    /// Shows the stages and totals of `summary` (an empty summary leaves only the header).
    void setSummary(const Summary& summary);
    /// Removes every row.
    void clearRows();
    /// A/B: beside each stage, the peak of the same stage in `other` (labelled `label`) and the
    /// change from it ("−38 %"); nullptr hides the two columns. Call before setSummary().
    void setComparison(const Summary* other, const QString& label);
    /// Writes the headers and tooltips in the display unit again (after setDisplayUnits());
    /// the rows follow at the next setSummary().
    void refreshUnits();
    /// The width that shows every visible column whole, with room for a vertical scroll bar.
    int fullWidth() const;
    /// Number of stage rows (without the total row).
    int stageRows() const { return stageRows_; }

    /// "12.3": seconds as the table shows them (one decimal, like `stageload summary`).
    static QString formatSeconds(double seconds);

private:
    QString shortOtherLabel() const;
    void setRow(int row, const QString& name, double seconds, std::optional<std::int64_t> peak,
                std::optional<std::int64_t> highWater, bool total);

    void setCell(int row, int column, const QString& text, bool bold);

    int stageRows_ = 0;
    std::optional<Summary> other_;
    QString otherLabel_;
};

}  // namespace stageload::chart
