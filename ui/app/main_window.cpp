#include "ui/app/main_window.h"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cmath>

#include <QAction>
#include <QApplication>
#include <QCloseEvent>
#include <QDockWidget>
#include <QFileInfo>
#include <QMessageBox>
#include <QScreen>
#include <QScrollArea>
#include <QSettings>
#include <QSplitter>
#include <QStatusBar>
#include <QTimer>
#include <QVBoxLayout>

#include "engine/api/weights.h"
#include "guard/base/data_dirs.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/forecast/forecast.h"
#include "guard/trace/summary.h"
#include "guard/generator/generator_run.h"
#include "guard/runner/leftover_group.h"
#include "ui/app/blender_launcher.h"
#include "ui/app/forecast_panel.h"
#include "ui/app/generator_setup_dialog.h"
#include "ui/app/history_panel.h"
#include "ui/app/input_panel.h"
#include "ui/app/log_pane.h"
#include "ui/app/preferences_dialog.h"
#include "ui/app/remover_installer.h"
#include "ui/app/settings_panel.h"
#include "ui/chart/display_units.h"
#include "ui/chart/memory_chart.h"
#include "ui/studio/guard_panel.h"
#include "ui/view/mesh_panel.h"
#include "ui/view/mesh_view.h"

namespace stageload::app {
namespace {

QStringList toQStrings(const std::vector<std::string>& v) {
    QStringList out;
    for (const auto& s : v) out << QString::fromStdString(s);
    return out;
}

}  // namespace

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent), blender_(blenderExecutable()) {
    setWindowTitle(tr("Stageload Studio"));
    setObjectName(QStringLiteral("mainWindow"));
    setAcceptDrops(true);
    QStringList ignored;
    settings_ = studio::loadSettings(QSettings(), &ignored);
    chart::setDisplayUnits(settings_.units);  // before any widget writes a size
    stages_ = toQStrings(characterStages());

    buildLayout();
    buildActions();
    connectRuns();
    logPane_->attachTo(spdlog::default_logger());
    for (const auto& w : ignored) spdlog::warn("settings: {}", w.toStdString());
    // Runs an app that is gone left "running"; a group of theirs that still runs is offered a stop.
    const QList<studio::RunRecord> interrupted = history_.markInterrupted();
    if (!interrupted.isEmpty())
        spdlog::warn("history: {} run(s) were interrupted when the app ended last", interrupted.size());
    for (const auto& r : interrupted)
        if (const auto left = findLeftoverGroup(r.trace.toStdString())) {
            spdlog::warn("history: run {} ({}) still runs: {}", r.id.toStdString(), r.pipeline.toStdString(),
                         left->describe());
            leftovers_ << r;
        }
    if (!leftovers_.isEmpty()) QTimer::singleShot(0, this, &MainWindow::offerToStopLeftovers);
    QStringList broken;
    refreshHistory(&broken);
    forecastPanel_->setHistory(readRunPoints({history_.root().toStdString()}));
    forecastPanel_->setWaitForFit(settings_.waitForForecast);
    forecastPanel_->setGuard(settings_.guardEnabled, settings_.guard.killFree);
    updateForecast();
    for (const auto& w : broken) spdlog::warn("history: {}", w.toStdString());

    reloadGenerators();
    // A generator chosen last from a file outside the generator folders is chosen again.
    if (!settings_.generator.isEmpty() && !findGenerator(settings_.generator)) {
        try {
            generators_.generators.push_back(readGeneratorDef(settings_.generator.toStdString()));
            settingsPanel_->setGenerators(generators_.generators);
        } catch (const stageload::Error& e) {
            spdlog::warn("settings: the generator chosen last cannot be used ({}); the built-in pipeline is chosen",
                         e.what());
        }
    }
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
    connect(settingsPanel_, &SettingsPanel::setupRequested, this, &MainWindow::setUpGenerator);
    auto* scroll = new QScrollArea(this);
    scroll->setObjectName(QStringLiteral("inputScroll"));
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
    // Connected once the panel exists: made before, the connection failed ("invalid nullptr
    // parameter") and the choice was never saved.
    connect(forecastPanel_, &ForecastPanel::waitForFitToggled, this,
            [this](bool wait) { settings_.waitForForecast = wait; });
    guardPanel_ = new studio::GuardPanel(memory);
    memoryLayout->addWidget(forecastPanel_);
    memoryLayout->addWidget(guardPanel_, 1);
    auto* memoryScroll = new QScrollArea(this);
    memoryScroll->setObjectName(QStringLiteral("guardScroll"));
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
            stage, chart::sizeText(static_cast<std::int64_t>(footprint)),
            chart::sizeText(static_cast<std::int64_t>(forecast)));
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
    connect(guardPanel_, &studio::GuardPanel::paramsEdited, this, [this] {
        if (auto p = guardPanel_->params()) settings_.guard = *p;
        settings_.guardEnabled = guardPanel_->guardEnabled();
        forecastPanel_->setGuard(settings_.guardEnabled, settings_.guard.killFree);
    });
}

int MainWindow::reloadGenerators() {
    generators_ = findGenerators(generatorDirs(shippedGeneratorDir()));
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
    QString path;
    try {  // a file, or the name of one in the generator folders ("trellis-cpp")
        path = QFileInfo(QString::fromStdString(
                             resolveGeneratorFile(file.toStdString(), generatorDirs(shippedGeneratorDir())).string()))
                   .absoluteFilePath();
    } catch (const stageload::Error& e) {
        report(tr("Cannot use the generator"), QString::fromStdString(e.what()));
        return false;
    }
    if (!findGenerator(path)) {
        try {
            generators_.generators.push_back(readGeneratorDef(path.toStdString()));
        } catch (const stageload::Error& e) {
            report(tr("Cannot use the generator"), QString::fromStdString(e.what()));
            return false;
        }
        settingsPanel_->setGenerators(generators_.generators);
    }
    studio::StudioSettings s = currentSettings();
    s.generator = path;
    settingsPanel_->setSettings(s);
    updateForecast();
    return true;
}

void MainWindow::connectRuns() {
    connect(&runs_, &worker::RunController::percentChanged, this, [this](double percent) {
        percent_ = percent;
        updateProgress();
    });
    connect(&runs_, &worker::RunController::sampled, chart_, &MemoryChart::appendSample);
    connect(&runs_, &worker::RunController::eventHappened, chart_, &MemoryChart::appendEvent);
    connect(&runs_, &worker::RunController::cutoutReady, inputPanel_, &InputPanel::setCutout);
    connect(&runs_, &worker::RunController::stageChanged, this, &MainWindow::onStage);
    connect(&runs_, &worker::RunController::guardChanged, this, &MainWindow::onGuard);
    connect(&runs_, &worker::RunController::finished, this, &MainWindow::onRunFinished);
}

void MainWindow::report(const QString& title, const QString& message) {
    spdlog::error("{}: {}", title.toStdString(), message.toStdString());
    if (!scripted_) QMessageBox::warning(this, title, message);
}

bool MainWindow::setUpGenerator() {
    const GeneratorDef* g = settingsPanel_->generator();
    if (!g || scripted_) return false;
    const studio::StudioSettings s = currentSettings();
    const QString key = studio::StudioSettings::generatorKey(QString::fromStdString(g->source.string()));
    GeneratorSetupDialog dialog(*g, s.generatorParams.value(key), this);
    if (dialog.exec() != QDialog::Accepted) return false;
    settingsPanel_->setGeneratorParams(key, dialog.values());
    settings_.generatorParams[key] = dialog.values();
    updateForecast();
    return true;
}

studio::StudioSettings MainWindow::currentSettings() const {
    studio::StudioSettings s = settings_;
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
    studio::rememberFolder(settings_.lastOpenDir, path, history_.root());
    updateRecentMenu();
    updateActions();
    updateForecast();
    if (!runs_.isRunning()) statusBar()->showMessage(tr("Press Generate (Ctrl+Return) to make the mesh"));
    return true;
}

QList<studio::RunRecord> MainWindow::refreshHistory(QStringList* broken) {
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

void MainWindow::stopRunAndQuit(const QString& why, int exitCode) {
    quitCode_ = exitCode;
    if (runs_.isRunning()) {
        spdlog::warn("quitting: {}; stopping the run first", why.toStdString());
        statusBar()->showMessage(tr("Stopping the run before quitting (%1)…").arg(why));
        runs_.cancel(QString::fromStdString(interruptedReason(why.toStdString())));
        return;  // onRunFinished() quits
    }
    close();  // the last window: the app quits
    if (exitCode != 0) QCoreApplication::exit(exitCode);
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
        // The run is stopped and kept in the history first; the window closes when it has ended.
        stopRunAndQuit(QStringLiteral("stageload-studio's window was closed"), 0);
        event->ignore();
        return;
    }
    saveSettingsNow();
    event->accept();
}

void MainWindow::saveSettingsNow() {
    settingsPanel_->applyTo(settings_);
    settings_.guardEnabled = guardPanel_->guardEnabled();
    if (auto p = guardPanel_->params()) settings_.guard = *p;
    settings_.windowGeometry = saveGeometry();
    settings_.windowState = saveState();
    QSettings qs;
    studio::saveSettings(qs, settings_);
}

void MainWindow::setByteUnits(ByteUnits units) {
    chart::setDisplayUnits(units);
    settings_.units = units;
    chart_->refreshUnits();
    refreshHistory();
    forecastPanel_->refreshMemory();
    saveSettingsNow();  // a preference is kept at once, not only when the window closes
}

void MainWindow::showPreferences() {
    PreferencesDialog dialog(settings_.units, this);
    if (dialog.exec() == QDialog::Accepted && dialog.units() != settings_.units) setByteUnits(dialog.units());
}

}  // namespace stageload::app
