#include "ui/app/studio_application.h"

#include <QDir>
#include <QFileInfo>
#include <QIcon>
#include <QMessageBox>
#include <cstdio>
#include <exception>
#include <spdlog/spdlog.h>

#include "engine/api/failure.h"
#include "guard/base/data_dirs.h"
#include "ui/app/studio_cli.h"

namespace stageload::app {

StudioApplication::StudioApplication(int& argc, char** argv) : QApplication(argc, argv) {
    nameApplication();
    setDesktopFileName(QStringLiteral(STAGELOAD_APP_ID));  // the window's app id on Wayland
    setWindowIcon(icon());
}

QIcon StudioApplication::icon() {
    // The icon theme has it once installed; else the PNGs the build drew, beside the program.
    const QString name = QStringLiteral(STAGELOAD_APP_ID);
    if (QIcon::hasThemeIcon(name)) return QIcon::fromTheme(name);
    QIcon icon;
    const QDir hicolor(QString::fromStdString((programPrefix() / "share" / "icons" / "hicolor").string()));
    for (const QString& size : hicolor.entryList({QStringLiteral("*x*")}, QDir::Dirs))
        if (const QString png = hicolor.filePath(size + QStringLiteral("/apps/") + name + QStringLiteral(".png"));
            QFileInfo::exists(png))
            icon.addFile(png);
    return icon;
}

bool StudioApplication::notify(QObject* receiver, QEvent* event) {
    try {
        return QApplication::notify(receiver, event);
    } catch (...) {
        const auto f = classifyFailure(std::current_exception());
        report(QString::fromStdString(f.message));
        return false;
    }
}

void StudioApplication::report(const QString& message) {
    ++caught_;
    spdlog::error("unexpected error: {}", message.toStdString());
    if (scripted_) {
        std::fprintf(stderr, "stageload-studio: error: %s\n", qPrintable(message));
        exit(kExitInternalError);
        return;
    }
    if (reporting_) return;
    reporting_ = true;
    QMessageBox::critical(activeWindow(), tr("Something went wrong"),
                          tr("%1\n\nThe app goes on; your runs and files are kept. If this happens "
                             "again, the Log panel says what led to it.")
                              .arg(message));
    reporting_ = false;
}

}  // namespace stageload::app
