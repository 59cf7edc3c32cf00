#include "ui/chart/chart_export.h"

#include <filesystem>
#include <system_error>

#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QSvgGenerator>
#include <QTemporaryFile>
#include <qcustomplot.h>

namespace stageload::chart {
namespace {

bool fail(QString* error, const QString& message) {
    if (error) *error = message;
    return false;
}

/// Paints the plot into an SVG file through QCPPainter, as savePng/savePdf do for theirs.
bool writeSvg(QCustomPlot& plot, const QString& file, QSize size) {
    QSvgGenerator svg;
    svg.setFileName(file);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setResolution(96);
    svg.setTitle(QStringLiteral("Memory chart"));
    svg.setDescription(QStringLiteral("Written by Stageload Studio"));
    QCPPainter painter;
    if (!painter.begin(&svg)) return false;
    plot.toPainter(&painter, size.width(), size.height());
    return painter.end();
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

bool exportPlot(QCustomPlot& plot, const QString& path, QSize size, QString* error) {
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
    if (format == QLatin1String("png"))
        written = plot.savePng(tempName, size.width(), size.height());
    else if (format == QLatin1String("pdf"))
        written = plot.savePdf(tempName, size.width(), size.height(), QCP::epNoCosmetic,
                               QStringLiteral("Stageload Studio"), target.completeBaseName());
    else
        written = writeSvg(plot, tempName, size);
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
