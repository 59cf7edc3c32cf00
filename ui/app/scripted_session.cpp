#include "ui/app/scripted_session.h"

#include <QApplication>
#include <QImage>
#include <QSaveFile>
#include <QTimer>
#include <cstdio>

#include "guard/process/process_list.h"
#include "guard/runner/guard_runner.h"
#include "ui/app/main_window.h"
#include "ui/view/mesh_panel.h"
#include "ui/view/mesh_view.h"

namespace stageload::app {

ScriptedSession::ScriptedSession(MainWindow& window, ScriptOptions options, QElapsedTimer launch)
    : window_(window), options_(std::move(options)), launch_(launch) {
    connect(&window_, &MainWindow::runFinished, this, &ScriptedSession::onRunFinished);
}

void ScriptedSession::begin() {
    // The 3D view renders while the window paints its first frame; the turn after that has
    // flushed it to the screen. The timeout only keeps a window without a frame from hanging.
    auto once = std::make_shared<bool>(false);
    auto shown = [this, once] {
        if (*once) return;
        *once = true;
        QTimer::singleShot(0, this, &ScriptedSession::onFirstFrame);
    };
    connect(window_.meshPanel()->view(), &stageload::view::MeshView::frameRendered, this, shown,
            Qt::SingleShotConnection);
    QTimer::singleShot(10000, this, shown);
}

void ScriptedSession::onFirstFrame() {
    const auto age = processAgeSeconds();  // from process start, re-execution included
    firstFrameMs_ = age ? static_cast<qint64>(*age * 1000.0) : launch_.elapsed();
    if (options_.benchmark)
        std::printf("launch to first frame: %lld ms\n", static_cast<long long>(firstFrameMs_));
    if (!options_.generate) {
        if (!options_.screenshot.isEmpty()) exitCode_ = saveScreenshot() ? 0 : 1;
        if (options_.quitWhenDone) finish(exitCode_);
        return;
    }
    if (!window_.generate()) {
        std::fprintf(stderr, "stageload-studio: the run could not start (see the messages above)\n");
        if (options_.quitWhenDone) finish(window_.refusalCode());
        return;
    }
    if (options_.benchmark) probe_.start();
}

void ScriptedSession::onRunFinished(const studio::GenerateOutcome& outcome) {
    if (!options_.generate) return;
    probe_.stop();
    if (options_.benchmark) {
        const auto s = probe_.stats();
        std::printf("run: %.2f s (%s)\n", outcome.seconds, qPrintable(studio::toStatus(outcome.end)));
        std::printf("GUI event latency during the run: p50 %.1f ms, p99 %.1f ms, max %.1f ms "
                    "(%d ticks of a 10 ms timer)\n",
                    s.p50, s.p99, s.max, s.ticks);
        std::fflush(stdout);
    }
    if (outcome.end != studio::RunEnd::Done) {
        std::fprintf(stderr, "stageload-studio: %s: %s\n", qPrintable(outcome.title),
                     qPrintable(outcome.message));
        // A run the guard stopped exits 3, as `stageload run` and `stageload guard` do. Its
        // screenshot shows the stop: where, and why.
        exitCode_ = outcome.exitCode == kExitStoppedByGuard ? kExitStoppedByGuard : 1;
        if (!options_.screenshot.isEmpty() && exitCode_ == kExitStoppedByGuard)
            QTimer::singleShot(300, this, [this] {
                if (!saveScreenshot()) exitCode_ = 1;
                if (options_.quitWhenDone) finish(exitCode_);
            });
        else if (options_.quitWhenDone)
            finish(exitCode_);
        return;
    }
    if (options_.screenshot.isEmpty()) {
        if (options_.quitWhenDone) finish(0);
        return;
    }
    // grab() paints the whole window, so the 3D view renders the new mesh into it; the moment
    // of waiting lets the chart and the panels take their final state first.
    QTimer::singleShot(300, this, [this] {
        exitCode_ = saveScreenshot() ? 0 : 1;
        if (options_.quitWhenDone) finish(exitCode_);
    });
}

bool ScriptedSession::saveScreenshot() {
    const QImage shot = window_.grab().toImage();
    QSaveFile file(options_.screenshot);
    if (shot.isNull() || !file.open(QIODevice::WriteOnly) || !shot.save(&file, "PNG") || !file.commit()) {
        std::fprintf(stderr, "stageload-studio: cannot write the screenshot %s: %s\n",
                     qPrintable(options_.screenshot), qPrintable(file.errorString()));
        return false;
    }
    std::printf("screenshot: %s (%d×%d)\n", qPrintable(options_.screenshot), shot.width(), shot.height());
    return true;
}

void ScriptedSession::finish(int exitCode) {
    window_.close();
    QCoreApplication::exit(exitCode);
}

}  // namespace stageload::app
