#include "ui/app/main_window.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QVBoxLayout>

#include "engine/api/run_meta.h"
#include "engine/api/weights.h"
#include "engine/base/data_dirs.h"
#include "engine/base/units.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/forecast/forecast.h"
#include "guard/policy/guard_options.h"
#include "guard/generator/generator_run.h"
#include "guard/memory/process_memory.h"
#include "guard/trace/trace_reader.h"
#include "ui/app/blender_launcher.h"
#include "ui/app/forecast_panel.h"
#include "ui/app/history_panel.h"
#include "ui/app/input_panel.h"
#include "ui/app/log_pane.h"
#include "ui/app/remover_installer.h"
#include "ui/app/settings_panel.h"
#include "ui/chart/memory_chart.h"
#include "ui/studio/guard_panel.h"
#include "ui/view/mesh_panel.h"
#include "ui/view/mesh_view.h"

namespace stageload::studio {
namespace {

// The generator definitions this project ships, installed beside the program.
std::filesystem::path shippedGeneratorsDir() { return dataDir() / "generators"; }

QStringList toQStrings(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

// The run's settings for its history record: the trace's meta keys, and the guard's switch.
QJsonObject settingsJson(const StudioSettings& s, const QString& input) {
    auto json = QJsonDocument::fromJson(
                    QByteArray::fromStdString(runMeta(s.run, input.toStdString()).dump()))
                    .object();
    json.remove(QStringLiteral("input"));
    json.insert(QStringLiteral("threads"), s.run.threads);
    json.insert(QStringLiteral("guard"), s.guardEnabled);
    return json;
}

// The start line the run would write, so its forecast key is made the way the history's were.
nlohmann::json plannedMeta(const StudioSettings& s, const GeneratorDef* generator, const QString& input) {
    if (!generator) return runMeta(s.run, input.toStdString());
    GeneratorValues values;
    values.input = input.toStdString();
    values.seed = s.run.seed;
    values.textureSize = s.run.textureSize;
    return generatorRunMeta(*generator, values);
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), blender_(blenderExecutable()) {
    setWindowTitle(tr("Stageload Studio"));
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    QStringList ignored;
    settings_ = loadSettings(QSettings(), &ignored);
    stages_ = toQStrings(characterStages());

    buildLayout();
    buildActions();
    connectRuns();
    logPane_->attachTo(spdlog::default_logger());
    for (const auto& w : ignored) spdlog::warn("settings: {}", w.toStdString());
    QStringList broken;
    refreshHistory(&broken);
    forecastPanel_->setHistory(readRunPoints({history_.root().toStdString()}));
    forecastPanel_->setWaitForFit(settings_.waitForForecast);
    forecastPanel_->setGuardEnabled(settings_.guardEnabled);
    updateForecast();
    for (const auto& w : broken) spdlog::warn("history: {}", w.toStdString());

    reloadGenerators();
    settingsPanel_->setSettings(settings_);
    guardPanel_->setParams(settings_.guard, settings_.guardEnabled);
    guardPanel_->showIdle();
    // The first time: a window that fits the screen, the 3D view and the chart half and half,
    // the log and history a strip below them. After that, as the user left it.
    if (!restoreGeometry(settings_.windowGeometry)) {
        QSize size(1400, 900);
        if (const QScreen* s = screen()) size = size.boundedTo(s->availableGeometry().size() * 0.92);
        resize(size);
    }
    if (!restoreState(settings_.windowState)) arrangeFirstLayout();

    tick_.setInterval(1000);
    connect(&tick_, &QTimer::timeout, this, &MainWindow::updateProgress);
    memoryTick_.setInterval(3000);
    connect(&memoryTick_, &QTimer::timeout, forecastPanel_, &ForecastPanel::refreshMemory);
    memoryTick_.start();
    updateActions();
    statusBar()->showMessage(tr("Open a picture (Ctrl+O) or drop one on the window"));
}

MainWindow::~MainWindow() = default;

void MainWindow::arrangeFirstLayout() {
    const int strip = std::max(120, height() / 6);
    resizeDocks({logDock_, historyDock_}, {strip, strip}, Qt::Vertical);
    // The settings over the forecast and the guard, half and half, a third of the width.
    resizeDocks({inputDock_, guardDock_}, {height() / 2, height() / 2}, Qt::Vertical);
    const int side = std::clamp(width() / 3, 380, 520);
    resizeDocks({inputDock_, guardDock_}, {side, side}, Qt::Horizontal);
    // Half and half once the window is laid out (before, the splitter has only its minimum).
    QTimer::singleShot(0, this, [this] {
        const int h = viewSplit_->height() - viewSplit_->handleWidth();
        if (h > 0) viewSplit_->setSizes({h / 2, h - h / 2});
    });
}

void MainWindow::buildLayout() {
    meshPanel_ = new MeshPanel(this);
    connect(meshPanel_, &MeshPanel::noteActionClicked, this,
            [this] { installRemover(stageload::RemoverChoice::U2NetP); });
    chart_ = new MemoryChart(this);
    viewSplit_ = new QSplitter(Qt::Vertical, this);
    viewSplit_->addWidget(meshPanel_);
    viewSplit_->addWidget(chart_);
    viewSplit_->setStretchFactor(0, 1);
    viewSplit_->setStretchFactor(1, 1);
    setCentralWidget(viewSplit_);

    inputPanel_ = new InputPanel(this);
    settingsPanel_ = new SettingsPanel(toQStrings(availableDevices()), this);
    auto* left = new QWidget(this);
    auto* leftLayout = new QVBoxLayout(left);
    leftLayout->addWidget(inputPanel_);
    leftLayout->addWidget(settingsPanel_);
    leftLayout->addStretch(1);
    connect(settingsPanel_, &SettingsPanel::edited, this, &MainWindow::updateForecast);
    connect(forecastPanel_, &ForecastPanel::waitForFitToggled, this,
            [this](bool wait) { settings_.waitForForecast = wait; });
    auto* scroll = new QScrollArea(this);
    scroll->setWidget(left);
    scroll->setWidgetResizable(true);
    // Every dock has an object name, so saveState() can put it back where the user left it.
    auto dock = [this](const QString& title, const char* name, QWidget* widget, Qt::DockWidgetArea area) {
        auto* d = new QDockWidget(title, this);
        d->setObjectName(QLatin1String(name));
        d->setWidget(widget);
        addDockWidget(area, d);
        return d;
    };
    inputDock_ = dock(tr("Picture and settings"), "inputDock", scroll, Qt::LeftDockWidgetArea);
    // The forecast answers "will it fit?" where the guard that acts on it is.
    auto* memory = new QWidget(this);
    auto* memoryLayout = new QVBoxLayout(memory);
    forecastPanel_ = new ForecastPanel(memory);
    guardPanel_ = new GuardPanel(memory);
    memoryLayout->addWidget(forecastPanel_);
    memoryLayout->addWidget(guardPanel_, 1);
    auto* memoryScroll = new QScrollArea(this);
    memoryScroll->setWidget(memory);
    memoryScroll->setWidgetResizable(true);
    guardDock_ = dock(tr("Forecast and guard"), "guardDock", memoryScroll, Qt::LeftDockWidgetArea);
    logPane_ = new LogPane(this);
    logDock_ = dock(tr("Log"), "logDock", logPane_, Qt::BottomDockWidgetArea);
    historyPanel_ = new HistoryPanel(this);
    historyDock_ = dock(tr("History"), "historyDock", historyPanel_, Qt::BottomDockWidgetArea);
    tabifyDockWidget(logDock_, historyDock_);
    logDock_->raise();
    connect(chart_, &MemoryChart::overForecast, this, [this](const QString& stage, double footprint, double forecast) {
        const QString text = tr("%1 needs more than forecast: %2, forecast %3").arg(
            stage, QString::fromStdString(formatBytes(static_cast<std::int64_t>(footprint))),
            QString::fromStdString(formatBytes(static_cast<std::int64_t>(forecast))));
        spdlog::warn("{}", text.toStdString());
        statusBar()->showMessage(text, 15000);
    });
    connect(historyPanel_, &HistoryPanel::openRequested, this, &MainWindow::openRun);
    connect(historyPanel_, &HistoryPanel::overlayRequested, this, &MainWindow::overlayRun);
    connect(historyPanel_, &HistoryPanel::deleteRequested, this, &MainWindow::deleteRun);

    progress_ = new QProgressBar(this);
    progress_->setMaximumWidth(360);
    progress_->setTextVisible(true);
    progress_->hide();
    guardLabel_ = new QLabel(this);
    statusBar()->addPermanentWidget(progress_);
    statusBar()->addPermanentWidget(guardLabel_);
    connect(guardPanel_, &GuardPanel::paramsEdited, this, [this] {
        if (auto p = guardPanel_->params()) settings_.guard = *p;
        settings_.guardEnabled = guardPanel_->guardEnabled();
        forecastPanel_->setGuardEnabled(settings_.guardEnabled);
    });
}

int MainWindow::reloadGenerators() {
    generators_ = findGenerators(generatorDirs(shippedGeneratorsDir()));
    for (const auto& p : generators_.problems) spdlog::warn("generators: {}", p);
    settingsPanel_->setGenerators(generators_.generators);
    spdlog::info("{} generator(s) found", generators_.generators.size());
    return static_cast<int>(generators_.generators.size());
}

const GeneratorDef* MainWindow::findGenerator(const QString& file) const {
    for (const auto& g : generators_.generators)
        if (QString::fromStdString(g.source.string()) == file) return &g;
    return nullptr;
}

bool MainWindow::useGenerator(const QString& file) {
    const QString path = QFileInfo(file).absoluteFilePath();
    if (!findGenerator(path)) {
        try {
            generators_.generators.push_back(readGeneratorDef(path.toStdString()));
        } catch (const stageload::Error& e) {
            report(tr("Cannot use the generator"), QString::fromStdString(e.what()));
            return false;
        }
        settingsPanel_->setGenerators(generators_.generators);
    }
    StudioSettings s = currentSettings();
    s.generator = path;
    settingsPanel_->setSettings(s);
    updateForecast();
    return true;
}

void MainWindow::connectRuns() {
    connect(&runs_, &RunController::percentChanged, this, [this](double percent) {
        percent_ = percent;
        updateProgress();
    });
    connect(&runs_, &RunController::sampled, chart_, &MemoryChart::appendSample);
    connect(&runs_, &RunController::eventHappened, chart_, &MemoryChart::appendEvent);
    connect(&runs_, &RunController::cutoutReady, inputPanel_, &InputPanel::setCutout);
    connect(&runs_, &RunController::stageChanged, this, &MainWindow::onStage);
    connect(&runs_, &RunController::guardChanged, this, &MainWindow::onGuard);
    connect(&runs_, &RunController::finished, this, &MainWindow::onRunFinished);
}

void MainWindow::report(const QString& title, const QString& message) {
    spdlog::error("{}: {}", title.toStdString(), message.toStdString());
    if (!scripted_) QMessageBox::warning(this, title, message);
}

void MainWindow::updateForecast() {
    const StudioSettings s = currentSettings();
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
        forecastPanel_->setRun(runKeyOf(plannedMeta(s, generator, inputPanel_->picture())), held);
    } catch (const stageload::Error& e) {
        spdlog::warn("forecast: {}", e.what());  // an unreadable picture: said when it is opened
        forecastPanel_->setRun({}, 0);
    }
}

StudioSettings MainWindow::currentSettings() const {
    StudioSettings s = settings_;
    settingsPanel_->applyTo(s);
    return s;
}

bool MainWindow::openPicture(const QString& path) {
    QString error;
    if (!inputPanel_->setPicture(path, &error)) {
        report(tr("Cannot open the picture"), error);
        return false;
    }
    settings_.addRecentFile(QFileInfo(path).absoluteFilePath());
    settings_.lastOpenDir = QFileInfo(path).absolutePath();
    updateRecentMenu();
    updateActions();
    updateForecast();
    statusBar()->showMessage(tr("Press Generate (Ctrl+Return) to make the mesh"));
    return true;
}

bool MainWindow::generate() {
    if (runs_.isRunning()) return false;
    if (inputPanel_->picture().isEmpty()) {
        report(tr("No picture"), tr("Open a picture first (Ctrl+O), or drop one on the window."));
        return false;
    }
    StudioSettings s = currentSettings();
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
        if (forecastPanel_->waitForFit()) {
            updateForecast();
            if (const auto need = forecastPanel_->need()) {
                s.guard.need = std::max(s.guard.need.value_or(0), *need);
                spdlog::info("the guard waits for {} available: {}", formatBytes(*s.guard.need),
                             forecastPanel_->verdict().text);
            }
        }
    }
    settings_ = s;

    const GeneratorDef* generator = s.generator.isEmpty() ? nullptr : findGenerator(s.generator);
    if (!s.generator.isEmpty() && !generator) {
        report(tr("Cannot use the generator"),
               tr("%1 is no longer there or no longer valid; choose another pipeline.").arg(s.generator));
        return false;
    }
    RunRecord record;
    try {
        record = history_.create(inputPanel_->picture(),
                                 generator ? QString::fromStdString(generator->name)
                                           : QString::fromStdString(s.run.pipeline),
                                 QString::fromUtf8(choiceName(s.run.mode).data()),
                                 settingsJson(s, inputPanel_->picture()));
        record.output = record.filePath(
            generator ? QStringLiteral("mesh.") + QString::fromStdString(generator->format)
                      : QStringLiteral("mesh.glb"));
        record.trace = record.filePath(QStringLiteral("trace.jsonl"));
        record.cutout = record.filePath(QStringLiteral("cutout.png"));
        history_.save(record);
    } catch (const stageload::Error& e) {
        report(tr("Cannot keep the run in the history"), QString::fromStdString(e.what()));
        return false;
    }

    GenerateRequest request;
    request.input = record.input;
    request.output = record.output;
    request.trace = record.trace;
    request.cutout = record.cutout;
    request.run = s.run;
    request.guardEnabled = s.guardEnabled;
    request.guard = s.guard;
    if (generator) {
        request.generator = *generator;
        request.runDir = record.dir;
        request.stageloadCommand = QString::fromStdString(
            stageloadCommandNear(QCoreApplication::applicationFilePath().toStdString()).string());
    }
    if (!runs_.start(std::move(request))) return false;
    running_ = record;

    eta_.learn(refreshHistory(), record.pipeline, record.loadMode);  // the new run is listed too
    inputPanel_->clearCutout();
    chart_->beginRun(tr("%1, %2").arg(QFileInfo(record.input).fileName(),
                                      generator ? record.pipeline : record.loadMode));
    // The forecast as a stepped line, and a warning the moment a stage goes past it.
    std::vector<std::pair<std::string, std::int64_t>> forecast;
    for (const auto& stage : forecastPanel_->forecast().stages)
        if (stage.peak) forecast.emplace_back(stage.stage, *stage.peak);
    chart_->setForecast(std::move(forecast));
    stageIndex_ = -1;
    stage_.clear();
    percent_ = -1.0;
    progress_->setRange(0, static_cast<int>(stages_.size()));
    progress_->setValue(0);
    progress_->setFormat(s.guardEnabled ? tr("Waiting for the guard…") : tr("Starting…"));
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

void MainWindow::onRunFinished(const GenerateOutcome& outcome) {
    tick_.stop();
    progress_->hide();
    chart_->endRun();
    guardActive_ = false;
    if (outcome.end != RunEnd::Stopped) guardPanel_->showIdle();
    guardLabel_->clear();

    if (running_) {
        RunRecord& r = *running_;
        try {  // the next forecast learns from this run
            if (const auto point = runPointOf(readTrace(r.trace.toStdString()), r.trace.toStdString()))
                forecastPanel_->addRun(*point);
        } catch (const stageload::Error& e) {
            spdlog::warn("forecast: {}", e.what());
        }
        r.status = toStatus(outcome.end);
        r.message = outcome.end == RunEnd::Done ? outcome.notices.join(QLatin1Char('\n')) : outcome.message;
        r.seconds = outcome.seconds;
        r.stageSeconds = outcome.stageSeconds;
        if (outcome.mesh) {
            r.vertices = static_cast<qint64>(outcome.mesh->vertexCount());
            r.triangles = static_cast<qint64>(outcome.mesh->triangleCount());
        }
        r.summary = outcome.summary;
        if (!QFileInfo::exists(r.output)) r.output.clear();
        if (!QFileInfo::exists(r.cutout)) r.cutout.clear();
        try {
            history_.save(r);
        } catch (const stageload::Error& e) {
            spdlog::warn("history: {}", e.what());
        }
        if (outcome.end == RunEnd::Done) eta_.record(r);
        if (outcome.end == RunEnd::Done) meshFile_ = r.output;
        running_.reset();
    }

    switch (outcome.end) {
        case RunEnd::Done:
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
        case RunEnd::Cancelled:
            spdlog::info("{}", outcome.message.toStdString());
            statusBar()->showMessage(tr("Cancelled"));
            break;
        case RunEnd::Failed:
        case RunEnd::Stopped:
            statusBar()->showMessage(outcome.title);
            report(outcome.title, outcome.message);
            break;
    }
    refreshHistory();
    updateActions();
    emit runFinished(outcome);
}

QList<RunRecord> MainWindow::refreshHistory(QStringList* broken) {
    const auto runs = history_.list(broken);
    historyPanel_->setRecords(runs);
    return runs;
}

bool MainWindow::installRemover(stageload::RemoverChoice remover) {
    const bool ok = RemoverInstaller::run(this, remover, scripted_);
    settingsPanel_->updateRemovers();
    statusBar()->showMessage(ok ? tr("Background remover installed") : tr("The background remover was not installed"));
    return ok;
}

void MainWindow::showAbout() {
    QString removers;
    for (const auto remover : {stageload::RemoverChoice::U2NetP, stageload::RemoverChoice::ISNet}) {
        const auto file = removerWeightsFile(remover);
        const QString name = remover == stageload::RemoverChoice::ISNet ? QStringLiteral("ISNet") : QStringLiteral("U²-Netp");
        removers += removerInstalled(remover)
                        ? tr("<li>%1: %2</li>").arg(name, QString::fromStdString(file.string()).toHtmlEscaped())
                        : tr("<li>%1: not installed</li>").arg(name);
    }
    QMessageBox::about(
        this, tr("About Stageload Studio"),
        tr("<h3>Stageload Studio %1</h3>"
           "<p>Turn one picture of a character into a textured 3D mesh, stage by stage, with memory "
           "charted live and every run guarded.</p>"
           "<p><a href=\"%2\">%2</a></p>"
           "<p>Background removers:</p><ul>%3</ul>"
           "<p>Shipped data: %4<br>Qt %5</p>")
            .arg(QApplication::applicationVersion(), QStringLiteral(STAGELOAD_HOMEPAGE), removers,
                 QString::fromStdString(dataDir().string()).toHtmlEscaped(), QString::fromLatin1(qVersion())));
}

void MainWindow::updateActions() {
    const bool running = runs_.isRunning();
    generateAction_->setEnabled(!running && !inputPanel_->picture().isEmpty());
    cancelAction_->setEnabled(running);
    exportAction_->setEnabled(mesh_ || !meshFile_.isEmpty());
    const bool blender = !blender_.isEmpty();
    blenderAction_->setEnabled(blender && !meshFile_.isEmpty());
    blenderAction_->setToolTip(blender ? tr("Open the mesh in Blender") : tr("Blender is not on PATH"));
    settingsPanel_->setEnabled(!running);
}

void MainWindow::closeEvent(QCloseEvent* event) {
    if (runs_.isRunning()) {
        if (!scripted_ &&
            QMessageBox::question(this, tr("Quit"),
                                  running_ && running_->pipeline != QStringLiteral("character")
                                      ? tr("'%1' is running. Stop its whole process group and quit?")
                                            .arg(running_->pipeline)
                                      : tr("A run is going. Cancel it and quit?")) != QMessageBox::Yes) {
            event->ignore();
            return;
        }
        runs_.cancel();
    }
    settingsPanel_->applyTo(settings_);
    settings_.guardEnabled = guardPanel_->guardEnabled();
    if (auto p = guardPanel_->params()) settings_.guard = *p;
    settings_.windowGeometry = saveGeometry();
    settings_.windowState = saveState();
    QSettings qs;
    saveSettings(qs, settings_);
    event->accept();
}

}  // namespace stageload::studio
