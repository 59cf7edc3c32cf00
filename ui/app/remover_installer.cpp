#include "ui/app/remover_installer.h"

#include <QEventLoop>
#include <QMessageBox>
#include <QProcess>
#include <QProgressDialog>

#include "engine/api/weights.h"
#include "guard/base/data_dirs.h"

namespace stageload::app {

QString RemoverInstaller::script() {
    if (const QString given = qEnvironmentVariable("STAGELOAD_INSTALL_WEIGHTS"); !given.isEmpty()) return given;
    return QString::fromStdString((dataDir() / "install-weights.sh").string());
}

QStringList RemoverInstaller::arguments(RemoverChoice remover) {
    QStringList args{QStringLiteral("--dir"), QString::fromStdString(defaultWeightsDir().string())};
    if (remover == RemoverChoice::ISNet) args << QStringLiteral("--isnet");
    return args;
}

bool RemoverInstaller::run(QWidget* parent, RemoverChoice remover, bool quiet) {
    const QString name = remover == RemoverChoice::ISNet ? QStringLiteral("ISNet") : QStringLiteral("U²-Netp");
    QProgressDialog progress(QObject::tr("Installing %1…").arg(name), QObject::tr("Cancel"), 0, 0, parent);
    progress.setWindowTitle(QObject::tr("Install the background remover"));
    progress.setMinimumDuration(0);
    progress.setMinimumWidth(520);
    QProcess process;
    process.setProcessChannelMode(QProcess::MergedChannels);
    QString output;
    QObject::connect(&process, &QProcess::readyRead, &progress, [&] {
        output += QString::fromLocal8Bit(process.readAll());
        const auto lines = output.trimmed().split(QLatin1Char('\n'));
        progress.setLabelText(QObject::tr("Installing %1…\n%2").arg(name, lines.last().trimmed()));
    });
    QEventLoop loop;  // finished is delivered through this thread's events, so after exec()
    QObject::connect(&process, &QProcess::finished, &loop, &QEventLoop::quit);
    QObject::connect(&progress, &QProgressDialog::canceled, &process, [&] { process.kill(); });
    process.start(QStringLiteral("bash"), QStringList{script()} + arguments(remover));
    if (process.waitForStarted(10000)) loop.exec();
    progress.reset();

    const bool cancelled = progress.wasCanceled();
    const bool ok = !cancelled && process.exitStatus() == QProcess::NormalExit && process.exitCode() == 0 &&
                    removerInstalled(remover);
    if (!quiet && !cancelled) {
        if (ok)
            QMessageBox::information(parent, QObject::tr("Background remover installed"),
                                     QObject::tr("%1 is installed in %2. The next run uses it.")
                                         .arg(name, QString::fromStdString(defaultWeightsDir().string())));
        else
            QMessageBox::warning(parent, QObject::tr("Could not install the background remover"),
                                 QObject::tr("%1 (%2) did not finish:\n\n%3")
                                     .arg(script(), process.errorString(), output.trimmed().right(2000)));
    }
    return ok;
}

}  // namespace stageload::app
