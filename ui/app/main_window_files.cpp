// MainWindow's menus and what they open and write: pictures, meshes, traces, past runs,
// exports, Blender and the chart's picture. The run itself is in main_window.cpp.
#include <spdlog/spdlog.h>

#include <QAction>
#include <QDateTime>
#include <QDeadlineTimer>
#include <QDesktopServices>
#include <QDir>
#include <QDockWidget>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QJsonDocument>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPushButton>
#include <QMimeData>
#include <QStatusBar>
#include <QTimer>
#include <QToolBar>
#include <QUrl>

#include "engine/api/run_meta.h"
#include "engine/media/mesh_files.h"
#include "engine/media/mesh_formats.h"
#include "guard/trace/trace_reader.h"
#include "ui/app/blender_launcher.h"
#include "ui/app/generator_editor.h"
#include "ui/app/history_panel.h"
#include "ui/app/input_panel.h"
#include "ui/app/main_window.h"
#include "ui/app/settings_panel.h"
#include "ui/chart/memory_chart.h"
#include "ui/view/mesh_panel.h"

namespace stageload::app {
namespace {

QString suffixOf(const QString& path) { return QFileInfo(path).suffix().toLower(); }

const MeshFormatInfo* formatOf(const QString& path) { return meshFormatOf(path.toStdString()); }

QString fromView(std::string_view s) { return QString::fromUtf8(s.data(), static_cast<qsizetype>(s.size())); }

// "glTF binary (*.glb)": a save dialog's filter for one format.
QString dialogFilter(const MeshFormatInfo& f) {
    return MainWindow::tr("%1 (*%2)").arg(fromView(f.dialogName), fromView(f.extension));
}

// "Meshes (*.glb *.gltf *.obj *.ply)": the open dialog's filter, every format that reads.
QString openMeshFilter() {
    QStringList patterns;
    for (const auto& f : meshFormats()) patterns << QLatin1Char('*') + fromView(f.extension);
    return MainWindow::tr("Meshes (%1)").arg(patterns.join(QLatin1Char(' ')));
}

// What a run is called on the chart: its picture and load mode (or generator) from the trace's
// start line, else the file's name ("trace.jsonl" says nothing: its folder's name then).
QString runLabel(const Trace& trace, const QString& path) {
    const auto& meta = trace.start;
    const auto text = [&meta](const char* key) {
        const auto it = meta.find(key);
        return it != meta.end() && it->is_string() ? QString::fromStdString(it->get<std::string>()) : QString();
    };
    QString how = text("generator");
    if (how.isEmpty()) how = text("load");
    const QString input = QFileInfo(text("input")).fileName();
    if (!input.isEmpty()) return how.isEmpty() ? input : input + QStringLiteral(", ") + how;
    const QFileInfo file(path);
    return file.fileName() == QLatin1String("trace.jsonl") ? file.dir().dirName() + QStringLiteral("/trace.jsonl")
                                                            : file.fileName();
}

}  // namespace

void MainWindow::buildActions() {
    auto* file = menuBar()->addMenu(tr("&File"));
    openAction_ = file->addAction(tr("&Open Picture…"), QKeySequence::Open, this, [this] {
        const QString path = QFileDialog::getOpenFileName(
            this, tr("Open a picture"), dialogFolder(false),
            tr("Pictures (*.png *.jpg *.jpeg *.webp *.bmp *.tga *.gif)"));
        if (!path.isEmpty()) openPicture(path);
    });
    recentMenu_ = file->addMenu(tr("Open &Recent"));
    file->addAction(tr("Open &Mesh…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a mesh"), dialogFolder(false),
                                                          openMeshFilter());
        if (!path.isEmpty()) openMesh(path);
    });
    file->addAction(tr("Open &Trace…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Open a memory trace"), dialogFolder(false),
                                                          tr("Traces (*.jsonl);;All files (*)"));
        if (!path.isEmpty()) openTrace(path);
    });
    file->addAction(tr("O&verlay Trace…"), this, [this] {
        const QString path = QFileDialog::getOpenFileName(this, tr("Overlay a memory trace"), dialogFolder(false),
                                                          tr("Traces (*.jsonl);;All files (*)"));
        if (!path.isEmpty()) overlayTrace(path);
    });
    file->addSeparator();
    exportAction_ = file->addAction(tr("&Export Mesh…"), QKeySequence(tr("Ctrl+E")), this, &MainWindow::exportMesh);
    blenderAction_ = file->addAction(tr("Open in &Blender"), QKeySequence(tr("Ctrl+B")), this, &MainWindow::launchBlender);
    file->addAction(tr("&Save Chart…"), this, &MainWindow::saveChart);
    file->addSeparator();
    file->addAction(tr("Pre&ferences…"), QKeySequence::Preferences, this, &MainWindow::showPreferences)
        ->setMenuRole(QAction::PreferencesRole);
    file->addSeparator();
    file->addAction(tr("&Quit"), QKeySequence::Quit, this, &QWidget::close);

    auto* run = menuBar()->addMenu(tr("&Run"));
    generateAction_ = run->addAction(tr("&Generate"), QKeySequence(Qt::CTRL | Qt::Key_Return), this,
                                     [this] { generate(); });
    generateAction_->setShortcuts({QKeySequence(Qt::CTRL | Qt::Key_Return), QKeySequence(Qt::CTRL | Qt::Key_Enter)});
    cancelAction_ = run->addAction(tr("&Cancel"), QKeySequence(Qt::Key_Escape), this, &MainWindow::cancel);

    run->addSeparator();
    run->addAction(tr("&Install the Background Remover (U²-Netp)…"), this,
                   [this] { installRemover(stageload::RemoverChoice::U2NetP); });
    run->addAction(tr("Install &ISNet Too…"), this, [this] { installRemover(stageload::RemoverChoice::ISNet); });
    run->addSeparator();
    run->addAction(tr("&New Generator…"), this, [this] { editGenerator(nullptr); });
    run->addAction(tr("&Edit Generator…"), this, [this] {
        const QString file = currentSettings().generator;
        editGenerator(file.isEmpty() ? nullptr : findGenerator(file));
    });
    run->addAction(tr("&Reload Generators"), this, [this] {
        const int n = reloadGenerators();
        statusBar()->showMessage(tr("%n generator(s) found", nullptr, n));
    });
    run->addAction(tr("Open the &Generators Folder"), this, [] {
        const auto dirs = generatorDirs({});
        const QString dir = QString::fromStdString(dirs.empty() ? std::string() : dirs.front().string());
        if (dir.isEmpty()) return;
        QDir().mkpath(dir);
        QDesktopServices::openUrl(QUrl::fromLocalFile(dir));
    });

    auto* view = menuBar()->addMenu(tr("&View"));
    for (auto* dock : findChildren<QDockWidget*>()) view->addAction(dock->toggleViewAction());
    view->addSeparator();
    // Overlays come and go: one entry per overlaid run, listed when the menu opens.
    auto* overlays = view->addMenu(tr("&Remove Overlay"));
    connect(overlays, &QMenu::aboutToShow, this, [this, overlays] {
        overlays->clear();
        const QStringList labels = chart_->overlayLabels();
        for (int i = 0; i < labels.size(); ++i)
            overlays->addAction(labels[i], this, [this, i] { chart_->removeOverlay(i); });
        if (labels.isEmpty()) overlays->addAction(tr("No overlay"))->setEnabled(false);
        overlays->addSeparator();
        overlays->addAction(tr("Remove &All Overlays"), this, [this] { chart_->clearOverlay(); })
            ->setEnabled(!labels.isEmpty());
    });

    auto* help = menuBar()->addMenu(tr("&Help"));
    help->addAction(tr("&About Stageload Studio"), this, &MainWindow::showAbout);
    help->addAction(tr("About &Qt"), qApp, &QApplication::aboutQt);

    auto* bar = addToolBar(tr("Main"));
    bar->setObjectName(QStringLiteral("mainToolBar"));
    bar->setToolButtonStyle(Qt::ToolButtonTextOnly);
    bar->addAction(openAction_);
    bar->addSeparator();
    bar->addAction(generateAction_);
    bar->addAction(cancelAction_);
    bar->addSeparator();
    bar->addAction(exportAction_);
    bar->addAction(blenderAction_);
    updateRecentMenu();
}

bool MainWindow::openMesh(const QString& path) {
    QString error;
    if (!meshPanel_->openFile(path, &error)) {
        report(tr("Cannot open the mesh"), error);
        return false;
    }
    mesh_.reset();  // exported as it is: the file itself
    meshFile_ = QFileInfo(path).absoluteFilePath();
    exportedFile_.clear();
    studio::rememberFolder(settings_.lastOpenDir, path, history_.root());
    updateActions();
    return true;
}

bool MainWindow::openTrace(const QString& path, const QString& label) {
    try {
        chart_->showTrace(readTrace(path.toStdString()), label.isEmpty() ? QFileInfo(path).fileName() : label);
        studio::rememberFolder(settings_.lastOpenDir, path, history_.root());
        return true;
    } catch (const stageload::Error& e) {
        report(tr("Cannot open the trace"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::overlayTrace(const QString& path, const QString& when) {
    try {
        const Trace trace = readTrace(path.toStdString());
        QString label = runLabel(trace, path);
        if (!when.isEmpty()) label += QStringLiteral(", ") + when;
        // Two overlays of the same picture and mode are told apart by their number.
        const QStringList taken = chart_->overlayLabels();
        const QString base = label;
        for (int n = 2; taken.contains(label); ++n) label = base + QStringLiteral(" #%1").arg(n);
        chart_->addOverlay(trace, label);
        return true;
    } catch (const stageload::Error& e) {
        report(tr("Cannot open the trace"), QString::fromStdString(e.what()));
        return false;
    }
}

bool MainWindow::openFile(const QString& path) {
    const QString suffix = suffixOf(path);
    if (formatOf(path)) return openMesh(path);
    if (suffix == QLatin1String("jsonl")) return openTrace(path);
    return openPicture(path);
}

void MainWindow::openRun(const QString& id) {
    const auto r = history_.load(id);
    if (!r) {
        report(tr("Cannot open the run"), tr("The run %1 is no longer in the history.").arg(id));
        return;
    }
    if (QFileInfo::exists(r->input)) inputPanel_->setPicture(r->input, nullptr);
    if (!r->cutout.isEmpty() && QFileInfo::exists(r->cutout)) {
        try {
            inputPanel_->setCutout(readImageFile(r->cutout.toStdString()).image);
        } catch (const stageload::Error& e) {
            spdlog::warn("{}", e.what());
        }
    }
    // Titled by what it made and when, not by its trace file (every run's is "trace.jsonl").
    const QString when = r->createdUtc.toLocalTime().toString(QStringLiteral("MMM d hh:mm"));
    if (!r->trace.isEmpty() && QFileInfo::exists(r->trace))
        openTrace(r->trace, tr("%1 · %2 · %3").arg(QFileInfo(r->input).fileName(), r->pipeline, when));
    if (!r->output.isEmpty() && QFileInfo::exists(r->output)) openMesh(r->output);
    // Its settings in the panel: what it was run with is in view, and Generate runs it again.
    studio::StudioSettings s = currentSettings();
    std::vector<std::string> ignored;
    s.run = runSettingsFromMeta(
        nlohmann::json::parse(QJsonDocument(r->settings).toJson().toStdString(), nullptr, false), s.run,
        &ignored);
    s.generator.clear();
    for (const auto& g : generators_.generators)
        if (QString::fromStdString(g.name) == r->pipeline) s.generator = QString::fromStdString(g.source.string());
    settingsPanel_->setSettings(s);
    for (const auto& why : ignored) spdlog::warn("the run's settings: {}", why);
    updateForecast();
    statusBar()->showMessage(
        tr("The run of %1: %2, seed %3, texture %4, %5 triangles; its settings are in the panel (Generate runs it again)")
            .arg(when,
                 s.generator.isEmpty() ? QString::fromUtf8(choiceName(s.run.mode).data()) : r->pipeline)
            .arg(s.run.seed)
            .arg(s.run.textureSize)
            .arg(s.run.triangles));
}

void MainWindow::overlayRun(const QString& id) {
    const auto r = history_.load(id);
    if (r && QFileInfo::exists(r->trace))
        overlayTrace(r->trace, r->createdUtc.toLocalTime().toString(QStringLiteral("MMM d hh:mm")));
    else
        report(tr("Cannot overlay the run"), tr("The run %1 has no trace.").arg(id));
}

void MainWindow::deleteRun(const QString& id) {
    if (running_ && running_->id == id) return;
    if (!scripted_ && QMessageBox::question(this, tr("Delete run"),
                                            tr("Delete this run and its files?")) != QMessageBox::Yes)
        return;
    try {
        history_.remove(id);
    } catch (const stageload::Error& e) {
        report(tr("Cannot delete the run"), QString::fromStdString(e.what()));
    }
    refreshHistory();
}

void MainWindow::exportMesh() {
    if (meshFile_.isEmpty() && !mesh_) return;
    // One filter per format that writes; the last one used is chosen first.
    QStringList filters;
    const MeshFormatInfo* chosen = nullptr;
    for (const auto& f : meshFormats()) {
        if (!f.write) continue;
        filters << dialogFilter(f);
        if (!chosen || fromView(f.word) == settings_.exportFormat) chosen = &f;
    }
    QString filter = dialogFilter(*chosen);
    const QString base = QFileInfo(inputPanel_->picture()).completeBaseName();
    QString path = QFileDialog::getSaveFileName(
        this, tr("Export mesh"),
        dialogFolder(true) + QLatin1Char('/') + (base.isEmpty() ? QStringLiteral("mesh") : base) +
            fromView(chosen->extension),
        filters.join(QStringLiteral(";;")), &filter);
    if (path.isEmpty()) return;
    if (const auto* f = formatOf(path); !f || !f->write) {  // no extension typed: the filter's
        for (const auto& g : meshFormats())
            if (g.write && dialogFilter(g) == filter) path += fromView(g.extension);
    }
    exportMeshTo(path);
}

bool MainWindow::exportMeshTo(const QString& path) {
    const MeshFormatInfo* format = formatOf(path);
    if (!format || !format->write) {
        report(tr("Cannot export the mesh"),
               tr("%1: export as %2").arg(path, QString::fromStdString(writableMeshExtensions())));
        return false;
    }
    if (!mesh_ && meshFile_.isEmpty()) {
        report(tr("Cannot export the mesh"), tr("There is no mesh yet: generate one or open a mesh file."));
        return false;
    }
    try {
        // A mesh opened from a file is exported as it was read.
        const TexturedMesh mesh = mesh_ ? *mesh_ : readMeshFile(meshFile_.toStdString());
        format->write(mesh, path.toStdString());
        settings_.exportFormat = fromView(format->word);
        studio::rememberFolder(settings_.lastExportDir, path, history_.root());
        exportedFile_ = QFileInfo(path).absoluteFilePath();
        spdlog::info("exported {}", path.toStdString());
        statusBar()->showMessage(tr("Exported %1").arg(path));
        updateActions();
        return true;
    } catch (const stageload::Error& e) {
        report(tr("Cannot export the mesh"), QString::fromStdString(e.what()));
        return false;
    }
}

QStringList MainWindow::blenderChoices() const {
    QStringList files;
    if (!exportedFile_.isEmpty() && exportedFile_ != meshFile_ && QFileInfo::exists(exportedFile_)) files << exportedFile_;
    if (!meshFile_.isEmpty()) files << meshFile_;
    return files;
}

void MainWindow::launchBlender() {
    const QStringList files = blenderChoices();
    if (files.isEmpty()) return;
    QString chosen = files.front();
    if (files.size() > 1 && !scripted_) {
        // The export (another format, the user's folder) or the mesh itself: the user says.
        QMessageBox box(QMessageBox::Question, tr("Open in Blender"), tr("Which file should Blender open?"),
                        QMessageBox::Cancel, this);
        QPushButton* exported = box.addButton(tr("The export: %1").arg(QFileInfo(files[0]).fileName()),
                                              QMessageBox::AcceptRole);
        QPushButton* own = box.addButton(tr("The mesh on show: %1").arg(QFileInfo(files[1]).fileName()),
                                         QMessageBox::AcceptRole);
        exported->setToolTip(files[0]);
        own->setToolTip(files[1]);
        box.setDefaultButton(exported);
        box.exec();
        if (box.clickedButton() == own)
            chosen = files[1];
        else if (box.clickedButton() != exported)
            return;
    }
    launchBlenderOn(chosen);
}

void MainWindow::launchBlenderOn(const QString& meshFile) {
    // Blender's output goes to a log the app reads until the import says how it went: an error
    // there is shown here, not left on a terminal nobody sees.
    const QString log = QDir::temp().filePath(
        QStringLiteral("stageload-blender-%1.log").arg(QDateTime::currentMSecsSinceEpoch()));
    QString error;
    if (!openInBlender(meshFile, &error, log)) {
        report(tr("Cannot open Blender"), error);
        return;
    }
    statusBar()->showMessage(tr("Opening %1 in Blender…").arg(QFileInfo(meshFile).fileName()));
    auto* watch = new QTimer(this);
    const QDeadlineTimer patience(120000);
    const QString mesh = QFileInfo(meshFile).fileName();
    connect(watch, &QTimer::timeout, this, [this, watch, patience, log, mesh] {
        QFile file(log);
        const auto result = file.open(QIODevice::ReadOnly)
                                ? blenderImportResult(QString::fromUtf8(file.readAll()))
                                : std::nullopt;
        if (!result && !patience.hasExpired()) return;
        watch->stop();
        watch->deleteLater();
        if (!result) return;  // Blender is slow to start, or was closed: nothing to say
        if (result->ok) {
            statusBar()->showMessage(tr("Blender opened %1 (%2)").arg(mesh, result->detail), 10000);
            QFile::remove(log);
        } else {
            report(tr("Blender could not import the mesh"),
                   tr("%1: %2\nBlender's whole output: %3").arg(mesh, result->detail, log));
        }
    });
    watch->start(500);
}

void MainWindow::saveChart() {
    const QString path = QFileDialog::getSaveFileName(this, tr("Save chart"), dialogFolder(true) + QStringLiteral("/memory.png"),
                                                      tr("PNG (*.png);;SVG (*.svg);;PDF (*.pdf)"));
    if (path.isEmpty()) return;
    QString error;
    if (!chart_->save(path, &error)) {
        report(tr("Cannot save the chart"), error);
        return;
    }
    studio::rememberFolder(settings_.lastExportDir, path, history_.root());
}

QString MainWindow::dialogFolder(bool saving) const {
    return studio::dialogStartFolder(saving ? settings_.lastExportDir : settings_.lastOpenDir);
}

void MainWindow::updateRecentMenu() {
    recentMenu_->clear();
    for (const auto& path : settings_.recentFiles)
        recentMenu_->addAction(QFileInfo(path).fileName(), this, [this, path] { openPicture(path); })
            ->setToolTip(path);
    recentMenu_->setEnabled(!settings_.recentFiles.isEmpty());
}

void MainWindow::dragEnterEvent(QDragEnterEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (!urls.isEmpty() && urls.first().isLocalFile()) event->acceptProposedAction();
}

void MainWindow::dropEvent(QDropEvent* event) {
    const auto urls = event->mimeData()->urls();
    if (urls.isEmpty() || !urls.first().isLocalFile()) return;
    openFile(urls.first().toLocalFile());
    event->acceptProposedAction();
}

void MainWindow::editGenerator(const GeneratorDef* def) {
    GeneratorEditor editor(this);
    if (def) editor.setDefinition(*def);
    editor.setPicture(inputPanel_->picture());
    connect(&editor, &GeneratorEditor::saved, this, [this](const QString& file) {
        spdlog::info("generator saved: {}", file.toStdString());
        reloadGenerators();
        useGenerator(file);
    });
    editor.exec();
}

}  // namespace stageload::app
