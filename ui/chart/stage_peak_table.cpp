#include "ui/chart/stage_peak_table.h"

#include <QHeaderView>
#include <QStyle>
#include <algorithm>
#include <cmath>

#include "ui/chart/display_units.h"

namespace stageload::chart {
namespace {
QString sizeCell(std::optional<std::int64_t> bytes) { return bytes ? unitNumber(bytes) : QStringLiteral("–"); }
}  // namespace

StagePeakTable::StagePeakTable(QWidget* parent) : QTableWidget(0, 6, parent) {
    setHorizontalHeaderLabels({tr("stage"), tr("time\n(s)"), {}, {}, tr("other"), tr("change")});
    setColumnHidden(OtherPeakColumn, true);
    setColumnHidden(ChangeColumn, true);
    // Every column says what it holds; "peak" and "high-water" are not the same thing.
    horizontalHeaderItem(StageColumn)->setToolTip(tr("The stage, from its start to the next one's"));
    horizontalHeaderItem(SecondsColumn)->setToolTip(tr("How long the stage ran, in seconds"));
    horizontalHeaderItem(ChangeColumn)->setToolTip(tr("This run's peak against the other run's"));
    setColumnHidden(HighWaterColumn, true);
    refreshUnits();
    // Every column as wide as its contents, stage names whole ("shape_512", not "shape…"); a
    // narrow table scrolls sideways rather than cut them, and the last column takes what is left.
    for (const Column c : {StageColumn, SecondsColumn, PeakColumn, HighWaterColumn, OtherPeakColumn, ChangeColumn})
        horizontalHeader()->setSectionResizeMode(c, QHeaderView::ResizeToContents);
    horizontalHeader()->setStretchLastSection(true);
    setTextElideMode(Qt::ElideNone);
    verticalHeader()->setVisible(false);
    verticalHeader()->setDefaultSectionSize(fontMetrics().height() + 8);
    setEditTriggers(QAbstractItemView::NoEditTriggers);
    setSelectionBehavior(QAbstractItemView::SelectRows);
    setAlternatingRowColors(true);
}

void StagePeakTable::refreshUnits() {
    // Two-line headers, the unit under the name: the table fits beside the plot on a laptop.
    horizontalHeaderItem(PeakColumn)->setText(tr("peak\n(%1)").arg(unitSymbol()));
    horizontalHeaderItem(HighWaterColumn)->setText(tr("high-water\n(%1)").arg(unitSymbol()));
    horizontalHeaderItem(OtherPeakColumn)->setText(tr("%1\n(%2)").arg(shortOtherLabel(), unitSymbol()));
    horizontalHeaderItem(OtherPeakColumn)
        ->setToolTip(tr("The peak of the same stage in %1 (%2)").arg(otherLabel_, unitDefinition()));
    horizontalHeaderItem(PeakColumn)
        ->setToolTip(tr("The highest footprint the meter sampled in the stage (%1)").arg(unitDefinition()));
    horizontalHeaderItem(HighWaterColumn)
        ->setToolTip(tr("The engine's exact peak of the stage (VmHWM), which sampling can miss in a "
                        "short stage (%1)")
                         .arg(unitDefinition()));
    setToolTip(tr("Per stage: seconds and peak footprint (%1)").arg(unitDefinition()));
}

QString StagePeakTable::shortOtherLabel() const {
    // "knight.png · character · Dec 2 18:30" heads its column as "knight.png", and a long name
    // is elided in the middle to the width of "high-water"; the tooltip has the whole label.
    const QString first = otherLabel_.section(QStringLiteral(" · "), 0, 0);
    const QFontMetrics metrics = horizontalHeader()->fontMetrics();
    return metrics.elidedText(first, Qt::ElideMiddle, metrics.horizontalAdvance(tr("high-water")));
}

int StagePeakTable::fullWidth() const {
    int width = 2 * frameWidth() + style()->pixelMetric(QStyle::PM_ScrollBarExtent, nullptr, this);
    for (int c = 0; c < columnCount(); ++c)
        if (!isColumnHidden(c)) width += std::max(sizeHintForColumn(c), horizontalHeader()->sectionSizeHint(c));
    return width;
}

QString StagePeakTable::formatSeconds(double seconds) {
    return QString::number(seconds, 'f', 1);
}

void StagePeakTable::clearRows() {
    setRowCount(0);
    stageRows_ = 0;
}

void StagePeakTable::setComparison(const Summary* other, const QString& label) {
    other_.reset();
    if (other) other_ = *other;
    otherLabel_ = label;
    refreshUnits();  // the other run's column is headed by its label
    horizontalHeaderItem(ChangeColumn)->setToolTip(tr("This run's peak against %1's").arg(label));
    setColumnHidden(OtherPeakColumn, !other);
    setColumnHidden(ChangeColumn, !other);
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
    if (!other_) return;
    // A/B: the same stage of the other run, by name; the totals' overall peaks.
    const auto compare = [this](int row, std::optional<std::int64_t> mine, std::optional<std::int64_t> theirs,
                                bool total) {
        setCell(row, OtherPeakColumn, sizeCell(theirs), total);
        QString change = QStringLiteral("–");
        if (mine && theirs && *theirs > 0) {
            const double percent = 100.0 * (double(*mine) - double(*theirs)) / double(*theirs);
            change = (percent < 0 ? QStringLiteral("−") : QStringLiteral("+")) +
                     QString::number(std::abs(percent), 'f', 0) + QStringLiteral(" %");
        }
        setCell(row, ChangeColumn, change, total);
    };
    for (int row = 0; row < stageRows_; ++row) {
        const auto& w = summary.stages[static_cast<std::size_t>(row)];
        const auto it = std::find_if(other_->stages.begin(), other_->stages.end(),
                                     [&](const StageWindow& o) { return o.name == w.name; });
        compare(row, w.peak(), it == other_->stages.end() ? std::nullopt : it->peak(), false);
    }
    compare(stageRows_, summary.highWater ? summary.highWater : summary.peakFootprint,
            other_->highWater ? other_->highWater : other_->peakFootprint, true);
}

void StagePeakTable::setCell(int row, int column, const QString& text, bool bold) {
    QTableWidgetItem* cell = item(row, column);
    if (!cell) {
        cell = new QTableWidgetItem;
        setItem(row, column, cell);  // the table owns it
    }
    cell->setText(text);
    cell->setTextAlignment(column == StageColumn ? Qt::AlignLeft | Qt::AlignVCenter
                                                 : Qt::AlignRight | Qt::AlignVCenter);
    QFont font = cell->font();
    font.setBold(bold);
    cell->setFont(font);
}

void StagePeakTable::setRow(int row, const QString& name, double seconds, std::optional<std::int64_t> peak,
                            std::optional<std::int64_t> highWater, bool total) {
    const QString texts[4] = {name, formatSeconds(seconds), sizeCell(peak), sizeCell(highWater)};
    for (int column = 0; column < 4; ++column) setCell(row, column, texts[column], total);
    item(row, StageColumn)->setToolTip(name);
}

}  // namespace stageload::chart
