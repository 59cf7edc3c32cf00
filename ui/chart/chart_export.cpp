#include "ui/chart/chart_export.h"

#include <algorithm>
#include <filesystem>
#include <system_error>

#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QFontMetrics>
#include <QImage>
#include <QPageSize>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QTemporaryFile>
#include <qcustomplot.h>

namespace stageload::chart {
namespace {

bool fail(QString* error, const QString& message) {
    if (error) *error = message;
    return false;
}

constexpr int kCellPadding = 8;

// Column widths of `table` in `font`, padding included.
QList<int> columnWidths(const SideTable& table, const QFont& font) {
    QFont bold = font;
    bold.setBold(true);
    const QFontMetrics normal(font), strong(bold);
    QList<int> widths;
    const auto widen = [&](int column, int width) {
        while (widths.size() <= column) widths << 0;
        widths[column] = std::max(widths[column], width + 2 * kCellPadding);
    };
    for (int c = 0; c < table.header.size(); ++c) widen(c, strong.horizontalAdvance(table.header[c]));
    for (const auto& row : table.rows)
        for (int c = 0; c < row.size(); ++c) widen(c, strong.horizontalAdvance(row[c]));
    return widths;
}

int tableWidth(const SideTable& table, const QFont& font) {
    int width = 0;
    for (int w : columnWidths(table, font)) width += w;
    return width + 2 * kCellPadding;
}

// The table from the top left of `area`: a bold header, the rows (numbers right-aligned), the
// last bold when it is a total.
void paintTable(QPainter& painter, const SideTable& table, const QRect& area, const QFont& font) {
    const auto widths = columnWidths(table, font);
    const int rowHeight = QFontMetrics(font).height() + kCellPadding;
    QFont bold = font;
    bold.setBold(true);
    painter.save();
    painter.setPen(QColor(0x26, 0x32, 0x38));
    int y = area.top() + 2 * kCellPadding;
    const auto paintRow = [&](const QStringList& cells, bool strong) {
        painter.setFont(strong ? bold : font);
        int x = area.left() + kCellPadding;
        for (int c = 0; c < cells.size() && c < widths.size(); ++c) {
            const QRect cell(x + kCellPadding, y, widths[c] - 2 * kCellPadding, rowHeight);
            painter.drawText(cell, (c == 0 ? Qt::AlignLeft : Qt::AlignRight) | Qt::AlignVCenter, cells[c]);
            x += widths[c];
        }
        y += rowHeight;
    };
    paintRow(table.header, true);
    painter.setPen(QPen(QColor(0xb0, 0xbe, 0xc5)));
    painter.drawLine(area.left() + kCellPadding, y, area.left() + tableWidth(table, font) - kCellPadding, y);
    painter.setPen(QColor(0x26, 0x32, 0x38));
    for (int r = 0; r < table.rows.size(); ++r) paintRow(table.rows[r], table.boldLast && r + 1 == table.rows.size());
    painter.restore();
}

// The plot, and the table to its right, on `device` of `size`.
bool paintChart(QCustomPlot& plot, const SideTable& table, QPaintDevice* device, QSize size) {
    QCPPainter painter;
    if (!painter.begin(device)) return false;
    const QFont font = plot.font();
    const int side = table.rows.isEmpty() ? 0 : std::min(tableWidth(table, font), size.width() / 2);
    painter.fillRect(QRect(QPoint(0, 0), size), Qt::white);
    plot.toPainter(&painter, size.width() - side, size.height());
    if (side > 0) paintTable(painter, table, QRect(size.width() - side, 0, side, size.height()), font);
    return painter.end();
}

// Paints the plot (and table) into an SVG file, as savePng/savePdf do for theirs.
bool writeSvg(QCustomPlot& plot, const SideTable& table, const QString& file, QSize size) {
    QSvgGenerator svg;
    svg.setFileName(file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setResolution(96);
    svg.setTitle(QStringLiteral("Memory chart"));
    svg.setDescription(QStringLiteral("Written by Stageload Studio"));
    return paintChart(plot, table, &svg, size);
}

bool writePng(QCustomPlot& plot, const SideTable& table, const QString& file, QSize size) {
    QImage image(size, QImage::Format_ARGB32);
    return paintChart(plot, table, &image, size) && image.save(file, "PNG");
}

bool writePdf(QCustomPlot& plot, const SideTable& table, const QString& file, QSize size, const QString& title) {
    QPdfWriter pdf(file);
    pdf.setCreator(QStringLiteral("Stageload Studio"));
    pdf.setTitle(title);
    pdf.setResolution(72);  // a pixel is a point
    pdf.setPageSize(QPageSize(QSizeF(size), QPageSize::Point));
    pdf.setPageMargins(QMarginsF(0, 0, 0, 0));
    return paintChart(plot, table, &pdf, size);
}

/// Flushes the temporary file's bytes to disk before it is renamed into place.
bool syncFile(const QString& file) {
    QFile f(file);
    if (!f.open(QIODevice::ReadOnly)) return false;
    return ::fsync(f.handle()) == 0;
}

}  // namespace

QStringList exportFormats() {
    return {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf")};
}

bool exportPlot(QCustomPlot& plot, const QString& path, QSize size, QString* error,
                const SideTable& table) {
    const QFileInfo target(path);
    const QString format = target.suffix().toLower();
    if (!exportFormats().contains(format))
        return fail(error, QStringLiteral("%1: unknown picture type \"%2\": use a name ending in "
                                          ".png, .svg or .pdf")
                               .arg(path, format.isEmpty() ? QStringLiteral("(none)")
                                                           : QStringLiteral(".") + format));
    if (!size.isValid() || size.isEmpty()) size = plot.size();
    if (size.width() < 1 || size.height() < 1)
        return fail(error,
                    QStringLiteral("%1: the chart has no size; give a width and height").arg(path));
    const QDir folder = target.absoluteDir();
    if (!folder.exists())
        return fail(error, QStringLiteral("%1: folder %2 does not exist: create it or choose "
                                          "another folder")
                               .arg(path, folder.path()));

    QTemporaryFile temp(folder.filePath(QStringLiteral(".%1.XXXXXX").arg(target.fileName())));
    if (!temp.open())
        return fail(error, QStringLiteral("%1: cannot write in %2 (%3): choose a folder you can "
                                          "write to")
                               .arg(path, folder.path(), temp.errorString()));
    const QString tempName = temp.fileName();
    temp.close();  // keeps the name reserved; removed by the destructor unless renamed

    bool written = false;
    if (format == QLatin1String("svg"))
        written = writeSvg(plot, table, tempName, size);
    else if (!table.rows.isEmpty())
        written = format == QLatin1String("png")
                      ? writePng(plot, table, tempName, size)
                      : writePdf(plot, table, tempName, size, target.completeBaseName());
    else if (format == QLatin1String("png"))
        written = plot.savePng(tempName, size.width(), size.height());
    else
        written = plot.savePdf(tempName, size.width(), size.height(), QCP::epNoCosmetic,
                               QStringLiteral("Stageload Studio"), target.completeBaseName());
    if (!written || QFileInfo(tempName).size() == 0 || !syncFile(tempName))
        return fail(error, QStringLiteral("%1: writing the %2 failed (disk full or no "
                                          "permission?): check the folder and try again")
                               .arg(path, format.toUpper()));

    QFile::setPermissions(
        tempName, QFile::ReadOwner | QFile::WriteOwner | QFile::ReadGroup | QFile::ReadOther);
    std::error_code ec;
    std::filesystem::rename(QFile::encodeName(tempName).toStdString(),
                            QFile::encodeName(target.absoluteFilePath()).toStdString(), ec);
    if (ec)
        return fail(error, QStringLiteral("%1: cannot replace the file (%2): check that it is not "
                                          "a folder and that you may write it")
                               .arg(path, QString::fromStdString(ec.message())));
    temp.setAutoRemove(false);  // renamed: nothing left to remove
    return true;
}

}  // namespace stageload::chart
