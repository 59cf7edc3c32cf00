#include "ui/app/history_panel.h"

#include <QDesktopServices>
#include <QFileInfo>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonValue>
#include <QMenu>
#include <QUrl>

#include "ui/chart/display_units.h"

namespace stageload::app {
namespace {

enum Column { When, Picture, Pipeline, Mode, Seed, Remover, Status, Seconds, Peak, Triangles, ColumnCount };

// A setting the run recorded, as text ("" when it did not record it).
QString settingText(const studio::RunRecord& r, const char* key) {
    const QJsonValue v = r.settings.value(QLatin1String(key));
    if (v.isString()) return v.toString();
    if (v.isDouble()) return QString::number(v.toDouble(), 'g', 16);
    return {};
}

// "stopped in texture" for a run stopped by the guard (the trace's summary says where);
// otherwise the status word.
QString resultText(const studio::RunRecord& r) {
    const QString where = r.summary.value(QStringLiteral("stopped_at")).toString();
    if (where.isEmpty()) return r.status;
    if (r.status == studio::RunRecord::statusStopped()) return HistoryPanel::tr("stopped in %1").arg(where);
    if (r.status == studio::RunRecord::statusCancelled()) return HistoryPanel::tr("cancelled in %1").arg(where);
    if (r.status == studio::RunRecord::statusInterrupted()) return HistoryPanel::tr("interrupted in %1").arg(where);
    return r.status;
}

}  // namespace

HistoryPanel::HistoryPanel(QWidget* parent) : QTreeWidget(parent) {
    setObjectName(QStringLiteral("history"));
    setColumnCount(ColumnCount);
    setHeaderLabels({tr("When"), tr("Picture"), tr("Pipeline"), tr("Mode"), tr("Seed"), tr("Remover"), tr("Result"),
                     tr("Seconds"), tr("Peak"), tr("Triangles")});
    // Every column says what it holds.
    headerItem()->setToolTip(When, tr("When the run was started, in local time"));
    headerItem()->setToolTip(Picture, tr("The picture it was given (hover a row for the whole path)"));
    headerItem()->setToolTip(Pipeline, tr("The built-in pipeline or the generator that ran (hover a row for its command)"));
    headerItem()->setToolTip(Mode, tr("Staged or eager, as the run was given it (a generator without a "
                                      "loading mode of its own: —)"));
    headerItem()->setToolTip(Seed, tr("The random seed: the same seed and settings give the same mesh"));
    headerItem()->setToolTip(Remover, tr("How the subject was cut out of the picture"));
    headerItem()->setToolTip(Status, tr("How it ended: done, failed, cancelled, stopped by the guard, interrupted "
                                        "(hover a row for why)"));
    headerItem()->setToolTip(Seconds, tr("The run itself, from its trace: the guard's wait before it is not counted"));
    headerItem()->setToolTip(Triangles, tr("Triangles of the mesh it made"));
    showUnits();
    setRootIsDecorated(false);
    setUniformRowHeights(true);
    setAlternatingRowColors(true);
    header()->setSectionResizeMode(QHeaderView::ResizeToContents);
    setContextMenuPolicy(Qt::CustomContextMenu);
    connect(this, &QTreeWidget::itemDoubleClicked, this,
            [this](QTreeWidgetItem* item) { emit openRequested(item->data(0, Qt::UserRole).toString()); });
    connect(this, &QWidget::customContextMenuRequested, this, &HistoryPanel::showMenu);
}

void HistoryPanel::showUnits() {
    headerItem()->setText(Peak, tr("Peak (%1)").arg(chart::unitSymbol()));
    headerItem()->setToolTip(Peak, tr("The run's largest footprint: all the memory its process (or its generator's "
                                      "process group) held at once, %1")
                                       .arg(chart::unitDefinition()));
}

void HistoryPanel::setRecords(const QList<studio::RunRecord>& records) {
    records_ = records;
    clear();
    showUnits();  // setRecords() again redraws the peaks in a new display unit
    for (const auto& r : records) {
        auto* item = new QTreeWidgetItem(this);
        item->setData(0, Qt::UserRole, r.id);
        item->setText(When, r.createdUtc.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm:ss")));
        item->setText(Picture, QFileInfo(r.input).fileName());
        item->setToolTip(Picture, r.input);
        item->setText(Pipeline, r.pipeline);
        // What ran: a generator's expanded command line, else the pipeline's name.
        const QJsonArray command = r.settings.value(QStringLiteral("command")).toArray();
        QStringList argv;
        for (const auto& a : command) argv << a.toString();
        item->setToolTip(Pipeline, argv.isEmpty() ? r.pipeline : argv.join(QLatin1Char(' ')));
        item->setText(Mode, r.loadMode.isEmpty() ? QStringLiteral("—") : r.loadMode);
        item->setText(Status, resultText(r));
        item->setToolTip(Status, r.message);
        item->setText(Seed, settingText(r, "seed"));
        item->setText(Remover, settingText(r, "remover"));
        // The trace starts when the guard lets the run start: its duration is the run's time.
        const double ran = r.summary.value(QStringLiteral("duration")).toDouble(0.0);
        const double seconds = ran > 0 ? ran : r.seconds;
        item->setText(Seconds, seconds > 0 ? QString::number(seconds, 'f', 1) : QString());
        if (ran > 0 && r.seconds > ran + 0.5)
            item->setToolTip(Seconds, tr("%1 s with the guard's wait").arg(r.seconds, 0, 'f', 1));
        const double peak = r.summary.value(QStringLiteral("peak_footprint")).toDouble(0.0);
        item->setText(Peak, peak > 0 ? chart::unitNumber(static_cast<std::int64_t>(peak)) : QString());
        item->setText(Triangles, r.triangles > 0 ? QLocale().toString(r.triangles) : QString());
        if (r.status == studio::RunRecord::statusFailed() || r.status == studio::RunRecord::statusStopped())
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

}  // namespace stageload::app
