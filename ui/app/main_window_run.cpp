// MainWindow, running a job: the forecast of the run the settings describe, Generate (the
// launcher turns the settings into a history record and a request), its progress and guard
// state while it runs, and what its outcome shows. The layout and the files are elsewhere
// (main_window.cpp, main_window_files.cpp).
#include "ui/app/main_window.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include <QFileInfo>
#include <QLabel>
#include <QLocale>
#include <QPushButton>
#include <QProgressBar>
#include <QMessageBox>
#include <QStatusBar>

#include "engine/api/run_meta.h"
#include "engine/api/weights.h"
#include "guard/forecast/forecast.h"
#include "guard/generator/generator_run.h"
#include "guard/memory/process_memory.h"
#include "guard/policy/guard_levels.h"
#include "guard/policy/guard_options.h"
#include "guard/runner/leftover_group.h"
#include "guard/trace/trace_reader.h"
#include "ui/app/forecast_panel.h"
#include "ui/app/input_panel.h"
#include "ui/app/settings_panel.h"
#include "ui/chart/display_units.h"
#include "ui/chart/memory_chart.h"
#include "ui/studio/guard_panel.h"
#include "ui/studio/run_launcher.h"
#include "ui/view/mesh_panel.h"
#include "ui/view/mesh_view.h"

namespace stageload::app {

void MainWindow::updateForecast() {
    const studio::StudioSettings s = currentSettings();
    const GeneratorDef* generator = s.generator.isEmpty() ? nullptr : findGenerator(s.generator);
    if (!s.generator.isEmpty() && !generator) {
        forecastPanel_->setRun({}, 0);
        return;
    }
    // A built-in run happens in this process: what the app holds now is part of its footprint.
    std::int64_t held = 0;
    if (!generator) {
        try {
            held = readFootprint();
        } catch (const stageload::Error&) {
        }
    }
    try {
        forecastPanel_->setRun(
            runKeyOf(plannedRunMeta(s.run, inputPanel_->picture().toStdString(), generator,
                                    generator ? studio::generatorRunParams(s, *generator, scriptParams_) : std::map<std::string, std::string>{})),
            held);
    } catch (const stageload::Error& e) {
        spdlog::warn("forecast: {}", e.what());  // an unreadable picture: said when it is opened
        forecastPanel_->setRun({}, 0);
    }
}

bool MainWindow::generate() {
    if (runs_.isRunning()) return false;
    if (inputPanel_->picture().isEmpty()) {
        report(tr("No picture"), tr("Open a picture first (Ctrl+O), or drop one on the window."));
        return false;
    }
    studio::StudioSettings s = currentSettings();
    s.guardEnabled = guardPanel_->guardEnabled();
    if (s.guardEnabled) {
        QString error;
        const auto params = guardPanel_->params(&error);
        if (!params) {
            report(tr("The guard's thresholds are not valid"), error);
            return false;
        }
        s.guard = *params;
        // Wait for the forecast too: the larger of the two needs.
        if (forecastPanel_->waitForFit() || s.guard.needForecast) {
            updateForecast();
            if (const auto need = forecastPanel_->need()) {
                s.guard.need = std::max(s.guard.need.value_or(0), *need);
                spdlog::info("the guard waits for {} available: {}", chart::sizeText(*s.guard.need).toStdString(),
                             forecastPanel_->verdict().text);
            }
        }
    }
    settings_ = s;

    refusalCode_ = 1;
    const GeneratorDef* generator = s.generator.isEmpty() ? nullptr : findGenerator(s.generator);
    if (!s.generator.isEmpty() && !generator) {
        report(tr("Cannot use the generator"),
               tr("%1 is no longer there or no longer valid; choose another pipeline.").arg(s.generator));
        return false;
    }
    std::map<std::string, std::string> params;
    if (generator) {
        // What it needs is looked for before anything starts: no history record, no waiting.
        params = studio::generatorRunParams(s, *generator, scriptParams_);
        const QStringList missing = studio::missingSetup(*generator, params);
        if (!missing.isEmpty()) {
            refusalCode_ = kExitCannotStart;
            report(tr("%1 is not set up").arg(QString::fromStdString(generator->name)), missing.join(QLatin1Char('\n')));
            setUpGenerator();
            return false;
        }
    }
    studio::LaunchedRun launched;
    try {
        launched = studio::launchRun(history_, s, inputPanel_->picture(), generator, params,
                                     studio::stageloadCommand());
    } catch (const stageload::Error& e) {
        report(tr("Cannot keep the run in the history"), QString::fromStdString(e.what()));
        return false;
    }
    if (!runs_.start(std::move(launched.request))) return false;
    running_ = launched.record;
    const studio::RunRecord& record = *running_;

    eta_.learn(refreshHistory(), record.pipeline, record.loadMode);  // the new run is listed too
    inputPanel_->clearCutout();
    chart_->beginRun(tr("%1, %2").arg(QFileInfo(record.input).fileName(),
                                      generator ? record.pipeline : record.loadMode));
    // The forecast as a stepped line, and a warning the moment a stage goes past it.
    std::vector<std::pair<std::string, std::int64_t>> forecast;
    for (const auto& stage : forecastPanel_->forecast().stages)
        if (stage.peak) forecast.emplace_back(stage.stage, *stage.peak);
    chart_->setForecast(std::move(forecast));
    chart_->setGuardLevels(s.guardEnabled ? std::optional(guardLevels(s.guard)) : std::nullopt);
    stageIndex_ = -1;
    stage_.clear();
    percent_ = -1.0;
    progress_->setRange(0, static_cast<int>(stages_.size()));
    progress_->setValue(0);
    progress_->setFormat(s.guardEnabled ? tr("Waiting for the guard…") : tr("Starting…"));
    statusBar()->showMessage(progress_->format());  // not "Press Generate" while it runs
    progress_->show();
    tick_.start();
    spdlog::info("generate {} ({}, seed {}, texture {}, {} triangles)", record.input.toStdString(),
                 record.loadMode.toStdString(), s.run.seed, s.run.textureSize, s.run.triangles);
    updateActions();
    return true;
}

void MainWindow::cancel() {
    if (!runs_.isRunning()) return;
    spdlog::info("cancel requested");
    progress_->setFormat(tr("Cancelling…"));
    runs_.cancel();
}

void MainWindow::onStage(const QString& stage, int index, int count, bool begins) {
    if (!begins) {
        progress_->setValue(index + 1);
        return;
    }
    stageIndex_ = index;
    stage_ = stage;
    percent_ = -1.0;
    stageClock_.start();
    progress_->setRange(0, count);  // 0: a generator's stages are not known ahead (busy bar)
    updateProgress();
}

void MainWindow::updateProgress() {
    if (guardActive_ && guardState_ == GuardState::Waiting) {
        const double waited = guardSeconds_ + guardClock_.elapsed() / 1000.0;
        guardPanel_->showState(guardState_, guardReason_, waited);
        progress_->setFormat(tr("Waiting for room: %1 s").arg(static_cast<int>(waited)));
    }
    if (progress_->maximum() == 0 && !stage_.isEmpty()) {  // a generator
        progress_->setFormat(percent_ >= 0 ? tr("%1 · %2 %").arg(stage_).arg(static_cast<int>(percent_))
                                           : stage_);
        statusBar()->showMessage(progress_->format());
        return;
    }
    if (stageIndex_ < 0 || stageIndex_ >= stages_.size()) return;
    QString text = tr("%1 (%2/%3)").arg(stages_[stageIndex_]).arg(stageIndex_ + 1).arg(stages_.size());
    if (const auto left = eta_.remaining(stages_, stageIndex_, stageClock_.elapsed() / 1000.0))
        text += tr(" · about %1 s left").arg(static_cast<int>(std::ceil(*left)));
    progress_->setFormat(text);
}

void MainWindow::onGuard(GuardState state, const QString& reason, double secondsInState) {
    guardActive_ = true;
    guardState_ = state;
    guardReason_ = reason;
    guardSeconds_ = secondsInState;
    guardClock_.start();
    guardPanel_->showState(state, reason, secondsInState);
    guardLabel_->setText(tr("Guard: %1").arg(QString::fromLatin1(toString(state))));
    guardLabel_->setToolTip(QString::fromStdString(guardReasonInWords(reason.toStdString())));
    updateProgress();
}

void MainWindow::onRunFinished(const studio::GenerateOutcome& outcome) {
    tick_.stop();
    progress_->hide();
    chart_->endRun();
    guardActive_ = false;
    if (outcome.end != studio::RunEnd::Stopped) guardPanel_->showIdle();
    guardLabel_->clear();

    if (running_) {
        studio::RunRecord& r = *running_;
        try {  // the next forecast learns from this run
            if (const auto point = runPointOf(readTrace(r.trace.toStdString()), r.trace.toStdString()))
                forecastPanel_->addRun(*point);
        } catch (const stageload::Error& e) {
            spdlog::warn("forecast: {}", e.what());
        }
        studio::recordOutcome(r, outcome);
        try {
            history_.save(r);
        } catch (const stageload::Error& e) {
            spdlog::warn("history: {}", e.what());
        }
        if (outcome.end == studio::RunEnd::Done) {
            eta_.record(r);
            meshFile_ = r.output;
            exportedFile_.clear();
        }
        running_.reset();
    }

    switch (outcome.end) {
        case studio::RunEnd::Done:
            mesh_ = outcome.mesh;
            meshPanel_->view()->setMesh(*outcome.mesh);
            // Without weights the classical cut-out was used: the way to better masks is one
            // click away, right under the note that says so.
            meshPanel_->setNotes(outcome.notices,
                                 outcome.maskSource == QLatin1String("classical") &&
                                         !outcome.notices.isEmpty() &&
                                         !removerInstalled(stageload::RemoverChoice::U2NetP)
                                     ? tr("Install the learned background remover…")
                                     : QString());
            for (const auto& n : outcome.notices) spdlog::warn("{}", n.toStdString());
            spdlog::info("done: {} (mesh {}{})", outcome.message.toStdString(),
                         outcome.meshCheck.toStdString(),
                         outcome.maskSource.isEmpty() ? "" : "; subject from " + outcome.maskSource.toStdString());
            // The first note where the eye is at the end of a run; all of them above the view.
            statusBar()->showMessage(outcome.notices.isEmpty()
                                         ? tr("Done: %1").arg(outcome.message)
                                         : tr("Done, with a note: %1").arg(outcome.notices.front()));
            break;
        case studio::RunEnd::Cancelled:
        case studio::RunEnd::Interrupted:  // the app is quitting: no dialog to hold it
            spdlog::info("{}", outcome.message.toStdString());
            statusBar()->showMessage(outcome.title);
            break;
        case studio::RunEnd::Failed:
        case studio::RunEnd::Stopped:
            statusBar()->showMessage(outcome.title);
            report(outcome.title, outcome.message);
            break;
    }
    refreshHistory();
    updateActions();
    emit runFinished(outcome);
    if (quitCode_) stopRunAndQuit(QString(), *quitCode_);  // the run it waited for has ended
}

QStringList MainWindow::leftoverRuns() const {
    QStringList ids;
    for (const auto& r : leftovers_) ids << r.id;
    return ids;
}

void MainWindow::offerToStopLeftovers() {
    QStringList lines;
    for (const auto& r : leftovers_)
        if (const auto left = findLeftoverGroup(r.trace.toStdString()))
            lines << tr("'%1' on %2, started %3: %4")
                         .arg(r.pipeline, QFileInfo(r.input).fileName(),
                              QLocale().toString(r.createdUtc.toLocalTime(), QLocale::ShortFormat),
                              QString::fromStdString(left->describe()));
    if (lines.isEmpty()) {  // it ended by itself meanwhile
        leftovers_.clear();
        return;
    }
    if (scripted_) return;  // no question without a user: the log has said it
    QMessageBox box(QMessageBox::Warning, tr("A run is still going without a guard"),
                    tr("The app ended while this run was going, and its processes are still running. Nothing "
                       "watches their memory now:\n\n%1\n\nStop them?")
                        .arg(lines.join(QLatin1Char('\n'))),
                    QMessageBox::NoButton, this);
    QPushButton* stop = box.addButton(tr("Stop them"), QMessageBox::DestructiveRole);
    box.addButton(tr("Leave them running"), QMessageBox::RejectRole);
    box.setDefaultButton(stop);
    box.exec();
    if (box.clickedButton() == stop) {
        stopLeftovers();
    } else {
        spdlog::warn("history: left running at the user's choice: {}", leftoverRuns().join(QStringLiteral(", ")).toStdString());
        leftovers_.clear();
    }
}

int MainWindow::stopLeftovers() {
    int gone = 0;
    const double grace = settings_.guard.stopGrace;
    for (studio::RunRecord r : std::as_const(leftovers_)) {
        const auto left = findLeftoverGroup(r.trace.toStdString());
        if (!left) {
            ++gone;  // it ended by itself
            continue;
        }
        const bool stopped = stopLeftoverGroup(*left, grace);
        spdlog::warn("history: run {}: {} {}", r.id.toStdString(), left->describe(),
                     stopped ? "stopped" : "did not stop (some processes survived SIGKILL)");
        if (!stopped) continue;
        ++gone;
        r.message += tr(" Its process group was still running at the next start and was stopped then.");
        try {
            history_.save(r);
        } catch (const stageload::Error& e) {
            spdlog::warn("history: {}", e.what());
        }
    }
    leftovers_.clear();
    refreshHistory();
    return gone;
}

}  // namespace stageload::app
