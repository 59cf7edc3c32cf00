#include "ui/app/studio_application.h"

#include <QMessageBox>
#include <cstdio>
#include <exception>
#include <spdlog/spdlog.h>

#include "engine/api/failure.h"

namespace stageload::studio {

StudioApplication::StudioApplication(int& argc, char** argv) : QApplication(argc, argv) {}

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

}  // namespace stageload::studio
