#pragma once
// Stageload Studio's main window: the picture and settings on the left, the 3D view over the
// live memory chart in the middle, the guard's thresholds and state, the log and the history of
// runs in docks. Generate runs on a worker thread (RunController); nothing heavy happens here.
//
//   MainWindow w;                    // reads QSettings; saves them when it closes
//   w.show();
//   w.openPicture("hero.png");
//   w.generate();                    // Ctrl+Return; Esc cancels
//
// GUI thread only.

#include <QElapsedTimer>
#include <QLabel>
#include <QMainWindow>
#include <optional>
#include <QProgressBar>
#include <QTimer>
#include <memory>

#include "guard/generator/generator_def.h"
#include "ui/studio/eta_model.h"
#include "ui/studio/run_history.h"
#include "ui/studio/studio_settings.h"
#include "ui/worker/run_controller.h"

class QAction;
class QDockWidget;
class QMenu;
class QSplitter;

namespace stageload::chart {
class MemoryChart;
}
namespace stageload::view {
class MeshPanel;
}
namespace stageload::studio {
class GuardPanel;
}

namespace stageload::app {

class ForecastPanel;
class InputPanel;
class SettingsPanel;
class HistoryPanel;
class LogPane;
using chart::MemoryChart;
using view::MeshPanel;

class MainWindow : public QMainWindow {
    Q_OBJECT

public:
    explicit MainWindow(QWidget* parent = nullptr);
    ~MainWindow() override;

    /// In scripted mode problems are logged (stderr) instead of shown in dialogs.
    void setScripted(bool scripted) { scripted_ = scripted; }

    bool openPicture(const QString& path);
    /// A mesh (.glb/.gltf/.obj), a trace (.jsonl) or else a picture, by its suffix, as from the
    /// file manager or a drop.
    bool openFile(const QString& path);
    bool openMesh(const QString& path);
    /// `label`: what the chart calls it (empty: the file's name).
    bool openTrace(const QString& path, const QString& label = {});
    /// Draws the run of trace `path` over the chart, labelled by its picture and mode (and
    /// `when`, for a run of the history).
    bool overlayTrace(const QString& path, const QString& when = {});
    /// Writes the mesh on show to `path` (.glb, or .obj with .mtl and .png beside it).
    bool exportMeshTo(const QString& path);
    /// Where a file dialog starts: the folder the user last opened from (`saving`: last saved
    /// to), never one of the history's run folders; Documents at first.
    QString dialogFolder(bool saving) const;
    /// Starts a run of the current picture; false (with a message) when it cannot start
    /// (refusalCode() then says why, as `stageload run` would exit).
    bool generate();
    /// 127 when the last generate() was refused because its generator is not set up (what its
    /// definition "requires" is missing), else 1.
    int refusalCode() const { return refusalCode_; }
    /// Params the scripted mode gives (--param KEY=VALUE): over the saved ones of every run.
    void setScriptParams(const std::map<std::string, std::string>& params) { scriptParams_ = params; }
    /// Opens the chosen generator's Set up form; true when it was saved.
    bool setUpGenerator();
    void cancel();
    /// Runs the installer of a learned background remover (with its progress dialog) and
    /// updates the remover menu; true when it is installed.
    bool installRemover(stageload::RemoverChoice remover);
    bool isRunning() const { return runs_.isRunning(); }
    /// Quits the app with `exitCode`, first stopping a run that is going (its whole process
    /// group, for a generator) and keeping it in the history as interrupted because of `why`
    /// ("stageload-studio got SIGTERM (...)"), which its trace's stop mark names too. What the app does when its window is closed or it gets SIGTERM,
    /// SIGINT or SIGHUP.
    void stopRunAndQuit(const QString& why, int exitCode);
    /// The runs the app found interrupted at its start whose process group still ran then (the
    /// app and its keeper both gone, so nothing guards them): their ids. After the window
    /// shows, the user is asked whether to stop them.
    QStringList leftoverRuns() const;
    /// Stops the group of each leftover run (SIGTERM, SIGKILL after the guard's grace) and says
    /// so in its record; returns how many groups are gone. The question's "Stop".
    int stopLeftovers();

    /// Reads the generator definitions again (user folder, then the shipped ones) and lists
    /// them in the Pipeline menu; problems go to the log. Returns how many were found.
    int reloadGenerators();
    const GeneratorCatalog& generators() const { return generators_; }
    /// Selects the generator defined in `file` (loading it when it is not in the catalog yet)
    /// as the pipeline of the next run; false with a message when the file is refused.
    bool useGenerator(const QString& file);

    /// Shows every size in `units` from now on (the chart, its table, History, the forecast, the
    /// guard panel) and remembers the choice; Preferences' OK.
    void setByteUnits(stageload::ByteUnits units);
    /// File ▸ Preferences…
    void showPreferences();

    MeshPanel* meshPanel() const { return meshPanel_; }
    MemoryChart* chart() const { return chart_; }
    studio::GuardPanel* guardPanel() const { return guardPanel_; }
    InputPanel* inputPanel() const { return inputPanel_; }
    SettingsPanel* settingsPanel() const { return settingsPanel_; }
    ForecastPanel* forecastPanel() const { return forecastPanel_; }
    /// The file of the mesh on show (a run's output or an opened file), "" if none.
    QString currentMeshFile() const { return meshFile_; }
    /// What Open in Blender offers, the first chosen by default: the last export of the mesh on
    /// show (while that file is there), then the mesh's own file.
    QStringList blenderChoices() const;

signals:
    /// A run ended (any way); emitted after the view, chart and history are updated.
    void runFinished(const stageload::studio::GenerateOutcome& outcome);

protected:
    void closeEvent(QCloseEvent* event) override;
    void dragEnterEvent(QDragEnterEvent* event) override;
    void dropEvent(QDropEvent* event) override;

private:
    /// Writes every setting now (the panels' values, the guard's, the window's layout).
    void saveSettingsNow();
    void buildActions();
    void buildLayout();
    void arrangeFirstLayout();
    void connectRuns();
    void report(const QString& title, const QString& message);
    void updateActions();
    void updateProgress();
    void updateRecentMenu();
    /// Lists the history once, shows it, and returns it (`broken`: runs that could not be read).
    QList<studio::RunRecord> refreshHistory(QStringList* broken = nullptr);
    studio::StudioSettings currentSettings() const;
    /// Forecasts the run the picture and settings describe (again, after a change).
    void updateForecast();

    void onStage(const QString& stage, int index, int count, bool begins);
    void onGuard(stageload::GuardState state, const QString& reason, double secondsInState);
    void onRunFinished(const studio::GenerateOutcome& outcome);
    void openRun(const QString& id);
    void overlayRun(const QString& id);
    void deleteRun(const QString& id);
    void exportMesh();
    void launchBlender();
    void launchBlenderOn(const QString& meshFile);
    void saveChart();
    void showAbout();
    void offerToStopLeftovers();

    const GeneratorDef* findGenerator(const QString& file) const;
    /// The generator editor for `def` (nullptr: a new one); a saved file becomes the pipeline.
    void editGenerator(const GeneratorDef* def);

    studio::StudioSettings settings_;
    GeneratorCatalog generators_;
    studio::RunHistory history_;
    studio::EtaModel eta_;
    worker::RunController runs_;
    std::optional<studio::RunRecord> running_;      ///< the record of the run in progress
    QList<studio::RunRecord> leftovers_;             ///< interrupted runs whose group still ran
    std::shared_ptr<const TexturedMesh> mesh_;  ///< the mesh on show, for export
    QString meshFile_;
    QString exportedFile_;  ///< the last export of the mesh on show ("" since a new one showed)
    bool scripted_ = false;
    int refusalCode_ = 1;
    std::optional<int> quitCode_;  ///< set: quit with it once the run has ended
    std::map<std::string, std::string> scriptParams_;
    const QString blender_;  ///< blender on PATH at start ("" when none): not searched per update

    InputPanel* inputPanel_ = nullptr;
    SettingsPanel* settingsPanel_ = nullptr;
    ForecastPanel* forecastPanel_ = nullptr;
    studio::GuardPanel* guardPanel_ = nullptr;
    HistoryPanel* historyPanel_ = nullptr;
    LogPane* logPane_ = nullptr;
    MemoryChart* chart_ = nullptr;
    MeshPanel* meshPanel_ = nullptr;
    QProgressBar* progress_ = nullptr;
    QLabel* guardLabel_ = nullptr;
    QMenu* recentMenu_ = nullptr;
    QSplitter* viewSplit_ = nullptr;  ///< the 3D view above the chart
    QDockWidget* inputDock_ = nullptr;
    QDockWidget* guardDock_ = nullptr;
    QDockWidget* logDock_ = nullptr;
    QDockWidget* historyDock_ = nullptr;

    QAction* openAction_ = nullptr;
    QAction* generateAction_ = nullptr;
    QAction* cancelAction_ = nullptr;
    QAction* exportAction_ = nullptr;
    QAction* blenderAction_ = nullptr;

    // Progress and guard state between signals: ticks once a second.
    QTimer tick_;
    QTimer memoryTick_;  ///< while idle: the forecast's verdict follows the memory available
    QStringList stages_;
    int stageIndex_ = -1;
    QString stage_;          ///< a generator's current stage (its stages are not known ahead)
    double percent_ = -1.0;  ///< a generator's percent in that stage, -1 when none
    QElapsedTimer stageClock_;
    stageload::GuardState guardState_ = stageload::GuardState::Waiting;
    bool guardActive_ = false;
    QString guardReason_;
    double guardSeconds_ = 0.0;
    QElapsedTimer guardClock_;
};

}  // namespace stageload::app
