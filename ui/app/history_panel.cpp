#include "ui/app/history_panel.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QHeaderView>
#include <QMenu>
#include <QUrl>

namespace stageload::studio {
namespace {

enum Column { When, Picture, Mode, Status, Seconds, Triangles, ColumnCount };

// "stopped in texture" for a run stopped by the guard (the trace's summary says where);
// otherwise the status word.
QString resultText(const RunRecord& r) {
    const QString where = r.summary.value(QStringLiteral("stopped_at")).toString();
    if (where.isEmpty()) return r.status;
    if (r.status == RunRecord::statusStopped()) return HistoryPanel::tr("stopped in %1").arg(where);
    if (r.status == RunRecord::statusCancelled()) return HistoryPanel::tr("cancelled in %1").arg(where);
    return r.status;
}

}  // namespace

HistoryPanel::HistoryPanel(QWidget* parent) : QTreeWidget(parent) {
    setObjectName(QStringLiteral("history"));
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("When"), tr("Picture"), tr("Mode"), tr("Result"), tr("Seconds"), tr("Triangles")});
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item) { emit openRequested(item->data(0, Qt::UserRole).toString()); });
    connect(this, &QWidget::customContextMenuRequested, this, &HistoryPanel::showMenu);
}

void HistoryPanel::setRecords(const QList<RunRecord>& records) {
    records_ = records;
    clear();
    for (const auto& r : records) {
        auto* item = new QTreeWidgetItem(this);
        item->setData(0, Qt::UserRole, r.id);
        item->setText(When, r.createdUtc.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
        item->setText(Picture, QFileInfo(r.input).fileName());
        item->setToolTip(Picture, r.input);
        item->setText(Mode, r.loadMode);
        item->setText(Status, resultText(r));
        item->setToolTip(Status, r.message);
        item->setText(Seconds, r.seconds > 0 ? QString::number(r.seconds, 'f', 1) : QString());
        item->setText(Triangles, r.triangles > 0 ? QLocale().toString(r.triangles) : QString());
        if (r.status == RunRecord::statusFailed() || r.status == RunRecord::statusStopped())
            item->setForeground(Status, QColor(0xd9, 0x53, 0x4f));
    }
}

QString HistoryPanel::selectedId() const {
    const auto* item = currentItem();
    return item ? item->data(0, Qt::UserRole).toString() : QString();
}

void HistoryPanel::showMenu(const QPoint& at) {
    const auto* item = itemAt(at);
    if (!item) return;
    const QString id = item->data(0, Qt::UserRole).toString();
    QString dir;
    for (const auto& r : records_)
        if (r.id == id) dir = r.dir;
    QMenu menu(this);
    menu.addAction(tr("Open"), this, [this, id] { emit openRequested(id); });
    menu.addAction(tr("Overlay on the chart"), this, [this, id] { emit overlayRequested(id); });
    menu.addAction(tr("Show folder"), this, [dir] { QDesktopServices::openUrl(QUrl::fromLocalFile(dir)); });
    menu.addSeparator();
    menu.addAction(tr("Delete"), this, [this, id] { emit deleteRequested(id); });
    menu.exec(viewport()->mapToGlobal(at));
}

}  // namespace stageload::studio
