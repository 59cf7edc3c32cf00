#include "ui/chart/stage_peak_table.h"

#include <QHeaderView>

namespace stageload::chart {

StagePeakTable::StagePeakTable(QWidget* parent) : QTableWidget(0, 4, parent) {
    setHorizontalHeaderLabels({tr("stage"), tr("seconds"), tr("peak (GB)"), tr("high-water (GB)")});
    horizontalHeaderItem(HighWaterColumn)
        ->setToolTip(tr("The engine's exact peak of the stage (VmHWM), which sampling can miss in a short stage"));
    setColumnHidden(HighWaterColumn, true);
    horizontalHeader()->setSectionResizeMode(StageColumn, QHeaderView::Stretch);
    horizontalHeader()->setSectionResizeMode(SecondsColumn, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(PeakColumn, QHeaderView::ResizeToContents);
    horizontalHeader()->setSectionResizeMode(HighWaterColumn, QHeaderView::ResizeToContents);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setAlternatingRowColors(true);
    setToolTip(tr("Per stage: seconds and peak footprint (GB = 2^30 bytes)"));
}

QString StagePeakTable::formatSeconds(double seconds) {
    return QString::number(seconds, 'f', 1);
}

void StagePeakTable::clearRows() {
    setRowCount(0);
    stageRows_ = 0;
}

void StagePeakTable::setSummary(const Summary& summary) {
    if (summary.samples == 0 && summary.stages.size() <= 1 && summary.duration == 0.0) {
        clearRows();
        return;
    }
    stageRows_ = static_cast<int>(summary.stages.size());
    setRowCount(stageRows_ + 1);
    for (int row = 0; row < stageRows_; ++row) {
        const auto& w = summary.stages[static_cast<std::size_t>(row)];
        setRow(row, QString::fromStdString(w.name), w.seconds, w.peakFootprint, w.highWater, false);
    }
    setRow(stageRows_, tr("total"), summary.duration, summary.peakFootprint, summary.highWater, true);
    setColumnHidden(HighWaterColumn, !summary.highWater);
}

void StagePeakTable::setRow(int row, const QString& name, double seconds, std::optional<std::int64_t> peak,
                            std::optional<std::int64_t> highWater, bool total) {
    const QString texts[4] = {name, formatSeconds(seconds), QString::fromStdString(formatGb(peak)),
                              QString::fromStdString(formatGb(highWater))};
    for (int column = 0; column < 4; ++column) {
        QTableWidgetItem* cell = item(row, column);
        if (!cell) {
            cell = new QTableWidgetItem;
            setItem(row, column, cell);  // the table owns it
        }
        cell->setText(texts[column]);
        cell->setTextAlignment(column == StageColumn ? Qt::AlignLeft | Qt::AlignVCenter
                                                     : Qt::AlignRight | Qt::AlignVCenter);
        QFont font = cell->font();
        font.setBold(total);
        cell->setFont(font);
    }
}

}  // namespace stageload::chart
