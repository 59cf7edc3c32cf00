#pragma once
// Every run the app has made, newest first: when, picture, mode, how it ended, time, triangles.
// Double-click opens a run (its mesh in the 3D view, its trace on the chart); the context menu
// also overlays a run on the chart (staged vs eager), shows its folder or deletes it.
//
//   auto* history = new HistoryPanel(this);
//   history->setRecords(runHistory.list());
//   connect(history, &HistoryPanel::openRequested, this, &MainWindow::openRun);
//
// GUI thread only.

#include <QList>
#include <QTreeWidget>

#include "ui/studio/run_record.h"

namespace stageload::app {

class HistoryPanel : public QTreeWidget {
    Q_OBJECT

public:
    explicit HistoryPanel(QWidget* parent = nullptr);

    /// Lists `records`, the peaks in the display unit (display_units.h): call it again after a
    /// change of unit.
    void setRecords(const QList<studio::RunRecord>& records);
    /// The id of the selected run, or "".
    QString selectedId() const;

signals:
    void openRequested(const QString& id);
    void overlayRequested(const QString& id);
    void deleteRequested(const QString& id);

private:
    void showMenu(const QPoint& at);
    /// The Peak column's header and tooltip in the display unit (display_units.h).
    void showUnits();
    QList<studio::RunRecord> records_;
};

}  // namespace stageload::app
