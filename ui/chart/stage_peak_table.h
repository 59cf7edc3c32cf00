#pragma once
// The per-stage peak table beside the memory chart: stage | seconds | peak (GB) | high-water
// (GB), one row per stage window, then a bold "total" row (duration, overall peak). The
// high-water column is the engine's exact per-stage peak (its stage_peak marks), shown only for
// traces that have it, as `stageload summary` does. GB = 2^30 bytes, 2 decimals,
// as stageload::formatGb() writes them (the published tables' convention); "–" for a window
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
    enum Column { StageColumn = 0, SecondsColumn = 1, PeakColumn = 2, HighWaterColumn = 3 };

    explicit StagePeakTable(QWidget* parent = nullptr);

    /// Shows the stages and totals of `summary` (an empty summary leaves only the header).
    void setSummary(const Summary& summary);
    /// Removes every row.
    void clearRows();
    /// Number of stage rows (without the total row).
    int stageRows() const { return stageRows_; }

    /// "12.3": seconds as the table shows them (one decimal, like `stageload summary`).
    static QString formatSeconds(double seconds);

private:
    void setRow(int row, const QString& name, double seconds, std::optional<std::int64_t> peak,
                std::optional<std::int64_t> highWater, bool total);

    int stageRows_ = 0;
};

}  // namespace stageload::chart
