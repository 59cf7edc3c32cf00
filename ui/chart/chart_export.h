#pragma once
// Saving a QCustomPlot as PNG, SVG or PDF, chosen by the file's extension, so that the file is
// either complete or not there: the picture goes to a temporary file in the same folder, which
// is synced and renamed into place (an existing file is replaced only then).
//
//   QString error;
//   if (!stageload::chart::exportPlot(*plot, "run.svg", {1600, 900}, &error))
//       QMessageBox::warning(this, "Save chart", error);
//
// PNG: QCustomPlot::savePng; PDF: QCustomPlot::savePdf; SVG: QSvgGenerator painted through
// QCPPainter and QCustomPlot::toPainter. With a side table (the per-stage peaks), the picture is
// the plot with the table painted to its right, `size` wide in all, in every format. An unknown extension, a missing or read-only folder or a
// failed write returns false and sets `*error` (when given) to a message that names the file
// and says what to do. Throws nothing. GUI thread only (it paints the plot).

#include <QList>
#include <QSize>
#include <QString>
#include <QStringList>

class QCustomPlot;

namespace stageload::chart {

/// The extensions exportPlot() understands: "png", "svg", "pdf".
QStringList exportFormats();

/// Rows painted to the right of the plot; the last one bold (a total) when `boldLast`.
struct SideTable {
    QStringList header;
    QList<QStringList> rows;
    bool boldLast = true;
};

/// Writes `plot` (and `table`, when it has rows) to `path` at `size` pixels (an empty size: the
/// widget's current size).
bool exportPlot(QCustomPlot& plot, const QString& path, QSize size, QString* error,
                const SideTable& table = {});

}  // namespace stageload::chart
