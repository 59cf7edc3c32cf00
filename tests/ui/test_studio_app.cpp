// The desktop app as an artist meets it, under Xvfb: open a sample, Generate, see the mesh in
// the 3D view and the run on the chart and in the history; export; reopen traces and meshes;
// settings kept across windows; and the scripted mode (--generate --screenshot
// --quit-when-done) the README's screenshot comes from.
#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QRegularExpression>
#include <QScrollArea>
#include <QScrollBar>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QWindow>
#include <QStandardItemModel>
#include <QStatusBar>
#include <QScreen>
#include <QtTest>

#include "engine/media/mesh_files.h"
#include "guard/forecast/forecast.h"
#include "guard/generator/generator_def.h"
#include "ui/app/forecast_panel.h"
#include "ui/app/history_panel.h"
#include "ui/app/input_panel.h"
#include "ui/app/main_window.h"
#include "ui/app/settings_panel.h"
#include "ui/chart/memory_chart.h"
#include "ui/chart/stage_peak_table.h"
#include "guard/base/event.h"
#include "guard/base/units.h"
#include "guard/trace/trace_reader.h"
#include "guard/policy/guard_options.h"
#include <qcustomplot.h>
#include "ui/studio/guard_panel.h"
#include "ui/studio/run_history.h"
#include "ui/view/mesh_panel.h"
#include "ui/view/mesh_view.h"
#include "ui/worker/run_controller.h"
#include "ui_test_support.h"
#include "tests/file_support.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::studio;
using namespace stageload::app;
using namespace stageload::worker;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_studio_app {

namespace {

// A cascade's run with every stage of the real one and the engine's high-water mark in each;
// `scale` sizes its footprint (GiB at the top).
Trace markedCascadeTrace(double scale) {
    Trace t;
    const char* stages[] = {"setup", "preprocess", "camera", "structure", "shape_512", "shape_1024", "texture",
                            "decode", "export"};
    double clock = 0.0;
    for (std::size_t i = 0; i < std::size(stages); ++i) {
        Event stage;
        stage.kind = EventKind::Stage;
        stage.name = stages[i];
        stage.t = clock;
        t.events.push_back(stage);
        const std::int64_t bytes = static_cast<std::int64_t>(scale * double(i + 1) * double(1 << 30) * 3.1);
        for (int k = 0; k < 10; ++k, clock += 0.5) {
            MemorySample m;
            m.t = clock;
            m.footprint = bytes;
            t.samples.push_back(m);
        }
        Event peak;
        peak.kind = EventKind::Mark;
        peak.name = kStagePeakMark;
        peak.stage = stages[i];
        peak.nbytes = bytes + (std::int64_t(1) << 28);
        peak.t = clock - 0.1;
        t.events.push_back(peak);
    }
    return t;
}

const QString kSamples = QStringLiteral(STAGELOAD_SAMPLES_DIR);
const QString kSource = QStringLiteral(STAGELOAD_SOURCE_DIR);

// Differs from the view's background (gradient + faint grid) by more than the grid can add.
bool isForeground(const QImage& image, int x, int y) {
    const QColor bg = view::MeshView::backgroundColor(static_cast<double>(y) / std::max(1, image.height() - 1));
    const QColor c = image.pixelColor(x, y);
    return std::abs(c.red() - bg.red()) + std::abs(c.green() - bg.green()) + std::abs(c.blue() - bg.blue()) > 72;
}

GuardParams roomyGuard() {
    GuardParams p;
    p.waitFree = 1;  // the suite must not wait on a busy CI machine
    p.killFree = 0;
    p.poll = 0.2;
    return p;
}

// Shows `w` scripted (no dialogs) at a fixed size, with a guard that lets every run start.
bool showForRuns(MainWindow& w) {
    w.setScripted(true);
    w.resize(1280, 800);
    w.show();
    if (!QTest::qWaitForWindowExposed(&w)) return false;
    w.guardPanel()->setParams(roomyGuard(), true);
    return true;
}

GenerateOutcome generateAndWait(MainWindow& w) {
    QSignalSpy finished(&w, &MainWindow::runFinished);
    if (!w.generate()) qFatal("generate() refused to start");
    // The status bar says what the progress bar says, not the hint of an idle window.
    const QString said = w.statusBar()->currentMessage();
    if (said.contains(QLatin1String("Press Generate")) || said.isEmpty())
        qFatal("the status bar says '%s' as the run starts", qPrintable(said));
    if (!finished.wait(180000)) qFatal("the run did not finish in 3 minutes");
    return finished.at(0).at(0).value<GenerateOutcome>();
}

}  // namespace

class TestStudioApp : public QObject {
    Q_OBJECT

    QTemporaryDir out_;

public:
    // Keep the user's settings and history out of it: everything goes to a temporary home,
    // set before the application reads any of it.
    static void initMain() {
        static QTemporaryDir home;
        qputenv("XDG_CONFIG_HOME", home.filePath(QStringLiteral("config")).toUtf8());
        qputenv("XDG_DATA_HOME", home.filePath(QStringLiteral("data")).toUtf8());
        qputenv("XDG_CACHE_HOME", home.filePath(QStringLiteral("cache")).toUtf8());
    }
    TestStudioApp() {
        QApplication::setOrganizationName(QStringLiteral("Stageload"));
        QApplication::setApplicationName(QStringLiteral("Stageload Studio"));
        registerRunMetaTypes();
    }

private slots:
    void initTestCase() { QVERIFY(out_.isValid()); }

    // The first time, the window fits the screen (1280×800 here) and the chart and the 3D view
    // share it half and half above the log: the chart once opened 200 px tall, at its minimum.
    void theChartOpensTallEnoughToRead() {
        MainWindow w;
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(100);
        const QSize screen = w.screen()->availableGeometry().size();
        qInfo("screen %dx%d, window %dx%d, chart %d px, 3D view %d px tall", screen.width(), screen.height(),
              w.width(), w.height(), w.chart()->height(), w.meshPanel()->height());
        QVERIFY(w.width() <= screen.width() && w.height() <= screen.height());
        QVERIFY2(w.chart()->height() * 3 >= w.height(), qPrintable(QString::number(w.chart()->height())));
        QVERIFY(std::abs(w.chart()->height() - w.meshPanel()->height()) <= 2);
    }

    // On a 1366×768 laptop screen, every dock shows its panel without sideways scrolling, and
    // the chart keeps a readable height even with no mesh to show yet.
    void theWindowFitsALaptopScreen() {
        MainWindow w;
        w.setScripted(true);
        w.resize(1366, 768);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        QTest::qWait(150);
        qInfo("window %dx%d, chart %dx%d, 3D view %d px tall", w.width(), w.height(), w.chart()->width(),
              w.chart()->height(), w.meshPanel()->height());
        for (const auto* area : w.findChildren<QScrollArea*>()) {
            if (!area->isVisible()) continue;
            const auto* bar = area->horizontalScrollBar();
            qInfo("%s: %d px wide, content %d px", qPrintable(area->objectName()), area->viewport()->width(),
                  area->widget() ? area->widget()->minimumSizeHint().width() : 0);
            if (bar->maximum() > 0)  // the widgets that ask for more than the dock gives
                for (const auto* child : area->widget()->findChildren<QWidget*>())
                    if (child->isVisible() && child->minimumSizeHint().width() > area->viewport()->width() - 24)
                        qInfo("  %s %s wants %d px", child->metaObject()->className(),
                              qPrintable(child->objectName()), child->minimumSizeHint().width());
            QVERIFY2(bar->maximum() == 0, qPrintable(area->objectName() + QStringLiteral(" scrolls sideways by ") +
                                                      QString::number(bar->maximum())));
        }
        QVERIFY2(w.chart()->height() >= 260, qPrintable(QString::number(w.chart()->height())));

        // The peak table beside the chart shows every column whole: a cascade's stages with the
        // engine's high-water marks, then compared with a run of the history.
        const Trace run = markedCascadeTrace(1.0);
        const auto* table = w.chart()->peakTable();
        const auto checkTable = [&](const char* what) {
            w.chart()->flush();
            QTest::qWait(50);
            qInfo("%s: table %d px of %d, wants %d", what, table->width(), w.chart()->width(), table->fullWidth());
            QVERIFY2(table->horizontalScrollBar()->maximum() == 0,
                     qPrintable(QStringLiteral("%1: the peak table scrolls sideways by %2")
                                    .arg(what)
                                    .arg(table->horizontalScrollBar()->maximum())));
            QVERIFY(table->width() * 5 <= w.chart()->width() * 2);  // the plot keeps 60 %
        };
        w.chart()->showTrace(run, QStringLiteral("knight_alpha.png · 1024_cascade · staged"));
        QVERIFY(!table->isColumnHidden(chart::StagePeakTable::HighWaterColumn));
        checkTable("one run");
        w.chart()->addOverlay(markedCascadeTrace(1.4), QStringLiteral("knight_alpha_with_a_long_name.png · 1024_cascade · eager · Dec 2 18:30"));
        QVERIFY(!table->isColumnHidden(chart::StagePeakTable::ChangeColumn));
        checkTable("compared");
    }

    void generateShowsTheMeshChartAndHistory() {
        MainWindow w;
        QVERIFY(showForRuns(w));
        QVERIFY(w.openPicture(kSamples + QStringLiteral("/knight_alpha.png")));
        const auto outcome = generateAndWait(w);
        QVERIFY2(outcome.end == RunEnd::Done, qPrintable(outcome.title + ": " + outcome.message));
        QVERIFY(!w.isRunning());

        // The 3D view shows the mesh where its silhouette is.
        auto* view = w.meshPanel()->view();
        QVERIFY(view->hasMesh());
        QCOMPARE(static_cast<std::size_t>(view->triangleCount()), outcome.mesh->triangleCount());
        QTest::qWait(200);
        const QImage textured = view->grabFramebuffer();
        QVERIFY(!textured.isNull());
        // The knight's red plume is there in the textured view ...
        int red = 0;
        for (int y = 0; y < textured.height(); y += 2)
            for (int x = 0; x < textured.width(); x += 2) {
                const QColor c = textured.pixelColor(x, y);
                red += c.red() > 150 && c.green() < 90 && c.blue() < 90;
            }
        QVERIFY2(red > 50, qPrintable(QString::number(red)));
        // The window itself stays a raster surface: an OpenGL child would turn every repaint
        // of the window (the chart's, 20 a second) into an OpenGL composition of all of it.
        QVERIFY(w.windowHandle()->surfaceType() == QSurface::RasterSurface);
        // And a grab of the whole window (the scripted screenshot) has the 3D view in it.
        const QImage window = w.grab().toImage();
        const QPoint origin = view->mapTo(&w, QPoint(0, 0)) * window.devicePixelRatio();
        QCOMPARE(window.copy(QRect(origin, textured.size())).convertToFormat(QImage::Format_RGB32),
                 textured.convertToFormat(QImage::Format_RGB32));
        // ... and in clay (light grey, unlike any background pixel) the surface covers the
        // projected centre of every triangle that faces the camera.
        view->setShadingMode(stageload::view::ShadingMode::Clay);
        QTest::qWait(200);
        const QImage clay = view->grabFramebuffer();
        const auto& m = *outcome.mesh;
        const auto vertex = [&m](std::uint32_t i) {
            return QVector3D(m.positions[3 * i], m.positions[3 * i + 1], m.positions[3 * i + 2]);
        };
        int facing = 0, covered = 0;
        for (std::size_t t = 0; t < m.triangleCount(); ++t) {
            const QVector3D a = vertex(m.indices[3 * t]), b = vertex(m.indices[3 * t + 1]), c = vertex(m.indices[3 * t + 2]);
            const QVector3D toEye = (view->camera().eye() - (a + b + c) / 3).normalized();
            if (QVector3D::dotProduct(QVector3D::crossProduct(b - a, c - a).normalized(), toEye) < 0.7f) continue;
            const QPointF p = view->camera().project((a + b + c) / 3);
            const int x = static_cast<int>(p.x()), y = static_cast<int>(p.y());
            if (x < 0 || y < 0 || x >= clay.width() || y >= clay.height()) continue;
            ++facing;
            covered += isForeground(clay, x, y);
        }
        QVERIFY2(facing > 1000, "the mesh is not in the view");
        QVERIFY2(covered > facing * 97 / 100,
                 qPrintable(QStringLiteral("%1 of %2 front triangles drawn").arg(covered).arg(facing)));
        QVERIFY(!isForeground(clay, 2, 2));
        QVERIFY(!isForeground(clay, clay.width() - 3, 2));

        // The cut-out preview, the chart's stage bands and the history.
        QVERIFY(w.inputPanel()->hasCutout());
        w.chart()->flush();
        QStringList bands;
        for (const auto& b : w.chart()->bands()) bands << b.name;
        for (const auto& stage : {"preprocess", "structure", "shape_512", "shape_1024", "texture", "decode", "export"})
            QVERIFY2(bands.contains(QLatin1String(stage)), qPrintable(bands.join(',')));
        const auto runs = RunHistory().list();
        QVERIFY(!runs.isEmpty());
        const RunRecord& r = runs.first();
        QCOMPARE(r.status, QStringLiteral("done"));
        QVERIFY(QFile::exists(r.output));
        QVERIFY(QFile::exists(r.trace));
        QVERIFY(QFile::exists(r.cutout));
        QCOMPARE(r.triangles, static_cast<qint64>(outcome.mesh->triangleCount()));
        QCOMPARE(r.stageSeconds.size(), 7);
        QVERIFY(r.summary.contains(QStringLiteral("stages")));
        QCOMPARE(w.currentMeshFile(), r.output);

        // Export both formats; a bad extension and a missing folder are refused.
        QVERIFY(w.exportMeshTo(out_.filePath(QStringLiteral("knight.glb"))));
        QVERIFY(w.exportMeshTo(out_.filePath(QStringLiteral("knight.obj"))));
        QVERIFY(QFile::exists(out_.filePath(QStringLiteral("knight.mtl"))));
        QVERIFY(QFile::exists(out_.filePath(QStringLiteral("knight.png"))));
        QCOMPARE(readMeshFile(out_.filePath(QStringLiteral("knight.glb")).toStdString()).triangleCount(),
                 outcome.mesh->triangleCount());
        QVERIFY(!w.exportMeshTo(out_.filePath(QStringLiteral("knight.fbx"))));
        QVERIFY(!w.exportMeshTo(out_.filePath(QStringLiteral("no/such/folder/knight.glb"))));
        // The next Export and Save start where this one went.
        QCOMPARE(w.dialogFolder(true), QDir(out_.path()).absolutePath());
        // Open in Blender offers the last export first, then the run's own mesh; the mesh on
        // show is still the run's.
        QCOMPARE(w.currentMeshFile(), r.output);
        QCOMPARE(w.blenderChoices(), QStringList({QDir(out_.path()).absoluteFilePath(QStringLiteral("knight.obj")), r.output}));
        QFile::remove(out_.filePath(QStringLiteral("knight.obj")));  // gone: only the mesh itself
        QCOMPARE(w.blenderChoices(), QStringList({r.output}));
    }

    // Before Generate the panel says whether the run will fit, from the runs in the history;
    // with "Wait until the forecast fits" a run that will not fit is held back by the guard.
    void theForecastIsShownBeforeGenerateAndTheGuardWaitsForIt() {
        MainWindow w;
        QVERIFY(showForRuns(w));
        auto* forecast = w.forecastPanel();
        QVERIFY(w.openPicture(kSamples + QStringLiteral("/knight_alpha.png")));
        QVERIFY(!forecast->verdictLabel()->text().isEmpty());
        auto* seed = static_cast<QDoubleSpinBox*>(w.settingsPanel()->field(RunField::Seed));
        seed->setValue(4242);
        const auto first = generateAndWait(w);
        QVERIFY2(first.end == RunEnd::Done, qPrintable(first.message));
        // Opened from the history, the run brings its settings back into the panel.
        seed->setValue(5);
        emit w.findChild<HistoryPanel*>()->openRequested(RunHistory().list().first().id);
        QCOMPARE(seed->value(), 4242.0);
        // Its mesh and trace open from the history's own folder; no dialog starts there.
        QVERIFY2(!w.dialogFolder(false).startsWith(RunHistory().root()), qPrintable(w.dialogFolder(false)));
        QCOMPARE(w.dialogFolder(false), QDir(kSamples).absolutePath());
        // The chart is titled by the run's picture and pipeline, not by its trace file's name.
        QVERIFY2(w.chart()->title().startsWith(QStringLiteral("knight_alpha.png · character · ")) &&
                     !w.chart()->title().contains(QStringLiteral("trace.jsonl")),
                 qPrintable(w.chart()->title()));
        QVERIFY2(w.statusBar()->currentMessage().contains(QStringLiteral("seed 4242")),
                 qPrintable(w.statusBar()->currentMessage()));
        // The forecast now rests on that run (at least), and on this machine it fits.
        QVERIFY(forecast->forecast().peak().has_value());
        QVERIFY(forecast->forecast().runs >= 1);
        QCOMPARE(forecast->verdict().fit, Fit::Fits);
        QVERIFY2(forecast->verdictLabel()->text().startsWith(QStringLiteral("Fits: needs about ")),
                 qPrintable(forecast->verdictLabel()->text()));
        QVERIFY2(forecast->stagesLabel()->text().contains(QStringLiteral("<b>")),
                 qPrintable(forecast->stagesLabel()->text()));  // the peak's stage stands out
        // A stop level no peak can stay above, typed into the guard panel: the same forecast is
        // now one the guard will stop, in the panel's words; back at 0 it fits again.
        auto* killFree = w.guardPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("killFree"));
        QVERIFY(killFree);
        killFree->setValue(99.9);
        QCOMPARE(forecast->verdict().fit, Fit::GuardStops);
        QVERIFY2(forecast->verdictLabel()->text().startsWith(QStringLiteral("The guard will stop it in ")) &&
                     forecast->verdictLabel()->text().contains(QStringLiteral("< 99.9% (Stop when free)")),
                 qPrintable(forecast->verdictLabel()->text()));
        killFree->setValue(0);
        QCOMPARE(forecast->verdict().fit, Fit::Fits);
        // Runs like it that needed far more than any machine has: the verdict says so ...
        auto points = readRunPoints({RunHistory().list().first().trace.toStdString()});
        QCOMPARE(points.size(), std::size_t(1));
        for (auto& [stage, peak] : points[0].stagePeaks) peak *= 100000;
        forecast->addRun(points[0]);
        forecast->addRun(points[0]);
        QCOMPARE(forecast->verdict().fit, Fit::WillNotFit);
        QVERIFY2(forecast->verdictLabel()->text().startsWith(QStringLiteral("Will not fit: needs about ")),
                 qPrintable(forecast->verdictLabel()->text()));
        // ... and the guard, told to wait for the forecast, does not start the run.
        GuardParams impatient = roomyGuard();
        impatient.startTimeout = 1;
        w.guardPanel()->setParams(impatient, true);
        forecast->setWaitForFit(true);
        const auto held = generateAndWait(w);
        forecast->setWaitForFit(false);
        QCOMPARE(held.end, RunEnd::Stopped);
        QVERIFY2(held.message.contains(QStringLiteral("need")), qPrintable(held.message));
    }

    // What the run wants the artist to know is above the mesh and in the status bar, not only
    // in the log; a mesh opened from a file does not carry another run's notes.
    void aRunsNotesAreShownWithItsMesh() {
        MainWindow w;
        QVERIFY(showForRuns(w));
        const QImage knight(kSamples + QStringLiteral("/knight_alpha.png"));
        const QString cut = out_.filePath(QStringLiteral("cut-off.png"));
        QVERIFY(knight.copy(0, 0, knight.width(), knight.height() * 3 / 4).save(cut));
        QVERIFY(w.openPicture(cut));
        const auto outcome = generateAndWait(w);
        QVERIFY2(outcome.end == RunEnd::Done, qPrintable(outcome.title + ": " + outcome.message));
        QVERIFY2(w.meshPanel()->notesText().contains(QStringLiteral("bottom edge")),
                 qPrintable(w.meshPanel()->notesText()));
        QVERIFY2(w.statusBar()->currentMessage().startsWith(QStringLiteral("Done, with a note")),
                 qPrintable(w.statusBar()->currentMessage()));
        QVERIFY(w.meshPanel()->openFile(RunHistory().list().first().output));
        QVERIFY(w.meshPanel()->notesText().isEmpty());
    }

    // Run ▸ Install the Background Remover runs the project's installer into the weights folder
    // and the remover menu follows; a failing installer changes nothing.
    void installingTheRemoverFromTheApp() {
        QTemporaryDir weights, scripts;
        const QByteArray before = qgetenv("STAGELOAD_WEIGHTS_DIR");
        qputenv("STAGELOAD_WEIGHTS_DIR", weights.path().toUtf8());
        const auto fake = [&](const QString& name, const QByteArray& body) {
            const QString path = scripts.filePath(name);
            testfile::write(path, "#!/bin/bash\n" + body);
            return path;
        };
        // The arguments are the real script's: --dir DIR [--isnet].
        const QString works = fake(QStringLiteral("works.sh"),
                                   "[[ $1 == --dir ]] || exit 9\necho 'u2netp: fetching'\n"
                                   "mkdir -p \"$2\" && echo weights > \"$2/u2netp.safetensors\"\necho 'u2netp: done'\n");
        const QString fails = fake(QStringLiteral("fails.sh"), "echo 'npm not found' >&2\nexit 3\n");
        {
            MainWindow w;
            QVERIFY(showForRuns(w));
            auto* remover = w.findChild<QComboBox*>(QStringLiteral("remover"));
            QVERIFY(remover);
            const auto* model = qobject_cast<const QStandardItemModel*>(remover->model());
            const auto u2netp = [&] { return model->item(remover->findData(QStringLiteral("u2netp"))); };
            QVERIFY(!u2netp()->isEnabled());
            qputenv("STAGELOAD_INSTALL_WEIGHTS", fails.toUtf8());
            QVERIFY(!w.installRemover(stageload::RemoverChoice::U2NetP));
            QVERIFY(!u2netp()->isEnabled());
            qputenv("STAGELOAD_INSTALL_WEIGHTS", works.toUtf8());
            QVERIFY(w.installRemover(stageload::RemoverChoice::U2NetP));
            QVERIFY(QFile::exists(weights.filePath(QStringLiteral("u2netp.safetensors"))));
            QVERIFY(u2netp()->isEnabled());
            QVERIFY(!u2netp()->text().contains(QStringLiteral("not installed")));
        }
        qunsetenv("STAGELOAD_INSTALL_WEIGHTS");
        qputenv("STAGELOAD_WEIGHTS_DIR", before);
    }

    void opensTracesAndMeshes() {
        MainWindow w;
        w.setScripted(true);
        w.show();
        QVERIFY(QTest::qWaitForWindowExposed(&w));
        // The Python stageload's real trace: its stages become bands. openFile (the command
        // line's FILE, the file manager's "Open With") tells a trace by its suffix.
        QVERIFY(w.openFile(kSource + QStringLiteral("/tests/data/traces/staged-1.trace.jsonl")));
        w.chart()->flush();
        QVERIFY(w.chart()->bands().size() >= 5);
        QVERIFY(w.overlayTrace(kSource + QStringLiteral("/tests/data/traces/eager-1.trace.jsonl")));
        QFile broken(out_.filePath(QStringLiteral("broken.jsonl")));
        QVERIFY(broken.open(QIODevice::WriteOnly));
        broken.write("{\"type\":\"start\"}\nnot json\n{\"type\":\"end\"}\n");
        broken.close();
        QVERIFY(!w.openTrace(broken.fileName()));
        QVERIFY(!w.openFile(broken.fileName()));

        // A .glb written by anyone opens in the view.
        const QString glb = out_.filePath(QStringLiteral("tetra.glb"));
        writeGlb(test::tetrahedron(), glb.toStdString());
        QVERIFY(w.openFile(glb));
        QCOMPARE(w.meshPanel()->view()->triangleCount(), 4);
        QCOMPARE(w.currentMeshFile(), glb);
        QVERIFY(w.meshPanel()->view()->hasMesh());
        QVERIFY(!w.openMesh(out_.filePath(QStringLiteral("missing.glb"))));
        QVERIFY(!w.openPicture(broken.fileName()));
    }

    void settingsAreKeptAcrossSessions() {
        // Every connection is made to an object that exists (one made too early was silently
        // lost): any warning QObject gives at start (connect, disconnect, a parent) fails the test.
        QTest::failOnWarning(QRegularExpression(QStringLiteral("^QObject::")));
        bool waited = false;
        {
            MainWindow w;
            w.setScripted(true);
            w.show();
            waited = w.forecastPanel()->waitForFit();
            w.forecastPanel()->setWaitForFit(!waited);  // as a click on the box does
            w.settingsPanel()->findChild<QDoubleSpinBox*>(QStringLiteral("seed"))->setValue(4242);
            auto* texture = w.settingsPanel()->findChild<QComboBox*>(QStringLiteral("textureSize"));
            texture->setCurrentIndex(texture->findData(4096));
            GuardParams g = roomyGuard();
            g.busy = {QStringLiteral("ffmpeg").toStdString()};
            w.guardPanel()->setParams(g, true);
            w.close();
        }
        MainWindow again;
        StudioSettings s;
        again.settingsPanel()->applyTo(s);
        QCOMPARE(s.run.seed, 4242);
        QCOMPARE(s.run.textureSize, 4096);
        const auto g = again.guardPanel()->params();
        QVERIFY(g.has_value());
        QCOMPARE(g->busy.size(), std::size_t(1));
        QCOMPARE(g->waitFree, 1.0);
        // "Wait until the forecast fits" is a safety setting: it is kept too.
        QCOMPARE(again.forecastPanel()->waitForFit(), !waited);
        again.forecastPanel()->setWaitForFit(waited);  // back as the other tests expect it
        again.close();
    }

    // Every setting a user can change survives a restart of the app, each checked by name: every
    // run setting of the settings panel, every guard threshold of the guard panel, the guard
    // on/off, the forecast wait and the unit family of Preferences. The test fails when a new
    // setting is added to either table without a value here.
    void everySettingSurvivesARestart() {
        StudioSettings changed;
        // A value unlike the default for each run setting; pipeline and device have one choice here.
        const std::map<RunField, std::string> runValues = {
            {RunField::Load, "eager"},   {RunField::Seed, "4243"},      {RunField::TextureSize, "1024"},
            {RunField::Triangles, "21000"}, {RunField::Height, "2.35"}, {RunField::Thickness, "1.4"},
            {RunField::MinPart, "1.5"}, {RunField::Remover, "classical"}, {RunField::Threads, "2"}};
        for (const auto& f : runFields()) {
            const auto v = runValues.find(f.field);
            if (v == runValues.end()) continue;
            setSetting(changed.run, f.field, v->second);
            QVERIFY2(settingText(changed.run, f.field) != settingText(RunSettings{}, f.field), f.key.data());
        }
        // A value unlike the default for each threshold of the panel, by kind.
        const GuardParams defaults;
        changed.guard = defaults;
        for (const auto& o : guardOptions()) {
            if (!o.inPanel) continue;
            const std::string d = guardValueText(defaults, o);
            std::string v;
            switch (o.kind) {
                case GuardValueKind::Percent: v = formatNumber(parsePercent(d, o.flag) + 3); break;
                case GuardValueKind::Size: v = "3G"; break;
                case GuardValueKind::OptionalSize: v = "6G"; break;
                case GuardValueKind::Duration: v = "47s"; break;
                case GuardValueKind::Patterns: v = "ffmpeg\nblender"; break;
                case GuardValueKind::OptionalPercent: v = "55"; break;
                case GuardValueKind::OptionalDuration: v = "19m"; break;
                case GuardValueKind::PercentFor: v = "60/10s"; break;
            }
            setGuardValue(changed.guard, o, v);
            QVERIFY2(guardValueText(changed.guard, o) != d, o.key.data());
        }
        validate(changed.guard);

        {
            MainWindow w;
            w.setScripted(true);
            w.show();
            // The two without a second value: one built-in pipeline (a generator is the other
            // choice of the Pipeline menu, checked below), and this build's one device.
            for (const auto& f : runFields())
                if (!runValues.count(f.field)) QVERIFY2(f.field == RunField::Pipeline || f.field == RunField::Device, f.key.data());
            QCOMPARE(kBuiltinPipelines.size(), std::size_t(1));
            QCOMPARE(w.settingsPanel()->findChild<QComboBox*>(QStringLiteral("device"))->count(), 1);
            // The pipeline: the shipped stand-in cascade, a generator that needs no set-up.
            const QString cascade = kSource + QStringLiteral("/resources/generators/stageload-cascade.json");
            QVERIFY(w.useGenerator(cascade));
            StudioSettings shown;
            w.settingsPanel()->applyTo(shown);
            QVERIFY2(shown.generator.endsWith(QStringLiteral("stageload-cascade.json")), qPrintable(shown.generator));
            changed.generator = shown.generator;
            changed.generatorParams = shown.generatorParams;
            w.settingsPanel()->setSettings(changed);
            w.guardPanel()->setParams(changed.guard, false);
            w.forecastPanel()->setWaitForFit(true);
            w.setByteUnits(ByteUnits::Decimal);
            w.close();
        }
        {
            MainWindow again;
            StudioSettings back;
            again.settingsPanel()->applyTo(back);
            QCOMPARE(back.generator, changed.generator);
            for (const auto& f : runFields())
                QVERIFY2(settingText(back.run, f.field) == settingText(changed.run, f.field),
                         qPrintable(QStringLiteral("%1: %2 after the restart, %3 before")
                                        .arg(f.key.data(), settingText(back.run, f.field).c_str(),
                                             settingText(changed.run, f.field).c_str())));
            const auto g = again.guardPanel()->params();
            QVERIFY(g.has_value());
            for (const auto& o : guardOptions())
                if (o.inPanel)
                    QVERIFY2(guardValueText(*g, o) == guardValueText(changed.guard, o),
                             qPrintable(QStringLiteral("%1: '%2' after the restart, '%3' before")
                                            .arg(o.key.data(), guardValueText(*g, o).c_str(),
                                                 guardValueText(changed.guard, o).c_str())));
            QVERIFY(!again.guardPanel()->guardEnabled());
            QVERIFY(again.forecastPanel()->waitForFit());
            QCOMPARE(again.chart()->plot()->yAxis->label(), QStringLiteral("memory (GB)"));
            const auto* history = again.findChild<HistoryPanel*>();
            QVERIFY(history);
            QStringList headers;
            for (int c = 0; c < history->columnCount(); ++c) headers << history->headerItem()->text(c);
            QVERIFY2(headers.contains(QStringLiteral("Peak (GB)")), qPrintable(headers.join(", ")));

            // Back to the defaults the other tests expect.
            again.settingsPanel()->setSettings(StudioSettings{});  // the built-in pipeline
            again.guardPanel()->setParams(GuardParams{}, true);
            again.forecastPanel()->setWaitForFit(false);
            again.setByteUnits(ByteUnits::Binary);
            again.close();
        }
        MainWindow last;
        QCOMPARE(last.chart()->plot()->yAxis->label(), QStringLiteral("memory (GiB)"));
        last.close();
    }

    void scriptedModeSavesAScreenshot() {
        const QString shot = out_.filePath(QStringLiteral("studio.png"));
        QProcess app;
        app.setProcessChannelMode(QProcess::SeparateChannels);
        startWithSettings(app, QStringLiteral("screenshot"), {{QStringLiteral("waitFree"), 0.0}},
                          {kSamples + QStringLiteral("/lantern_alpha.png"), QStringLiteral("--generate"),
                           QStringLiteral("--screenshot"), shot, QStringLiteral("--quit-when-done"),
                           QStringLiteral("--benchmark")});
        QVERIFY(app.waitForFinished(180000));
        const QString out = QString::fromUtf8(app.readAllStandardOutput());
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, qPrintable(err));
        QVERIFY2(out.contains(QLatin1String("launch to first frame:")), qPrintable(out));
        QVERIFY2(out.contains(QLatin1String("GUI event latency during the run: p50")), qPrintable(out));
        QImage image(shot);
        QVERIFY(!image.isNull());
        QVERIFY(image.width() >= 800 && image.height() >= 500);
        // Not a blank window: many distinct colours (mesh, chart, panels).
        QSet<QRgb> colours;
        for (int y = 0; y < image.height(); y += 4)
            for (int x = 0; x < image.width(); x += 4) colours.insert(image.pixel(x, y));
        QVERIFY2(colours.size() > 500, qPrintable(QString::number(colours.size())));
    }

private:
    /// A generator file running tests/generators/fake_port.py with `flags`.
    QString fakePort(const QString& name, const QStringList& flags) {
        QStringList args{QStringLiteral("python3"), QStringLiteral(STAGELOAD_FAKE_PORT),
                         QStringLiteral("--image"), QStringLiteral("{input}"), QStringLiteral("--out"),
                         QStringLiteral("{output}"), QStringLiteral("--trace"), QStringLiteral("{trace}"),
                         QStringLiteral("--stage-seconds"), QStringLiteral("0.3")};
        args += flags;
        QJsonObject def{{"name", name},
                        {"command", QJsonArray::fromStringList(args)},
                        {"trace", "{trace}"},
                        {"stage_pattern", "^\\[stage\\] (\\w+)"},
                        {"progress_pattern", "(\\d+)%\\|"}};
        const QString file = out_.filePath(name + QStringLiteral(".json"));
        testfile::write(file, QJsonDocument(def).toJson());
        return file;
    }

    /// The app in scripted mode with settings of its own (the guard's thresholds `guard`), so
    /// what earlier tests saved (a busy pattern, say) does not hold the run back. History is
    /// shared with this process.
    void startWithSettings(QProcess& app, const QString& name, const QVariantMap& guard,
                           const QStringList& args) {
        const QString config = out_.filePath(QStringLiteral("config-") + name);
        {
            QSettings s(config + QStringLiteral("/Stageload/Stageload Studio.conf"), QSettings::IniFormat);
            for (auto it = guard.begin(); it != guard.end(); ++it) s.setValue(QStringLiteral("guard/") + it.key(), it.value());
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), config);
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(STAGELOAD_STUDIO_EXE), args);
    }

private slots:
    void scriptedModeRunsAGeneratorAndShowsItsMesh() {
        const QString shot = out_.filePath(QStringLiteral("generator.png"));
        QProcess app;
        startWithSettings(app, QStringLiteral("generator"), {{QStringLiteral("waitFree"), 0.0}},
                  {kSamples + QStringLiteral("/knight_alpha.png"), QStringLiteral("--generator"),
                   fakePort(QStringLiteral("fake-port"),
                            {QStringLiteral("--stages"), QStringLiteral("a:20,b:60,c:10"),
                             QStringLiteral("--child-stage"), QStringLiteral("b")}),
                   QStringLiteral("--generate"), QStringLiteral("--screenshot"), shot,
                   QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForFinished(120000));
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("fake-port: stage b")), qPrintable(err));
        QImage image(shot);
        QVERIFY(!image.isNull());
        // The run is in the history with its mesh, its log and both traces.
        RunHistory history;
        const auto runs = history.list();
        QVERIFY(!runs.isEmpty());
        const RunRecord& last = runs.first();
        QCOMPARE(last.pipeline, QStringLiteral("fake-port"));
        QCOMPARE(last.status, QStringLiteral("done"));
        for (const char* file : {"mesh.glb", "command.log", "command.trace.jsonl", "trace.jsonl"})
            QVERIFY2(QFileInfo::exists(last.filePath(QLatin1String(file))), file);
    }

    void scriptedModeExits3WhenTheGuardStopsAGenerator() {
        QProcess app;
        startWithSettings(app, QStringLiteral("runaway"),
                          {{QStringLiteral("waitFree"), 0.0}, {QStringLiteral("killFree"), 90.0},
                           {QStringLiteral("poll"), 0.2}},
                          {kSamples + QStringLiteral("/knight_alpha.png"), QStringLiteral("--generator"),
                           fakePort(QStringLiteral("runaway"),
                                    {QStringLiteral("--stages"), QStringLiteral("a:10,grow:10,c:10"),
                                     QStringLiteral("--runaway"), QStringLiteral("--ignore-sigterm")}),
                           QStringLiteral("--generate"), QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForFinished(120000));
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(app.exitCode() == 3, qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("Stopped by the guard")), qPrintable(err));
    }

    // Each preset for a real generator, set up with --param, run from the scripted mode against
    // a stand-in of its program (tests/generators/make_standins.py): the mesh shown, its stages
    // in the run's trace, and what actually ran (the expanded command line, every param's value,
    // the loading mode its own "load" param was given) in the history.
    void scriptedModeRunsEachPreset_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QStringList>("params");
        QTest::addColumn<QStringList>("stages");
        const QString checkouts = out_.filePath(QStringLiteral("checkouts"));
        QProcess make;
        make.start(QStringLiteral("python3"),
                   {QStringLiteral(STAGELOAD_SOURCE_DIR "/tests/generators/make_standins.py"), checkouts});
        if (!make.waitForFinished(60000) || make.exitCode() != 0) qFatal("make_standins.py failed");
        const auto presets = QJsonDocument::fromJson(testfile::read(checkouts + QStringLiteral("/presets.json"))).object();
        for (auto it = presets.begin(); it != presets.end(); ++it) {
            QStringList params, stages;
            const auto values = it.value().toObject().value(QStringLiteral("params")).toObject();
            for (auto v = values.begin(); v != values.end(); ++v)
                params << QStringLiteral("--param") << v.key() + QLatin1Char('=') + v.value().toString();
            for (const auto& stage : it.value().toObject().value(QStringLiteral("stages")).toArray()) stages << stage.toString();
            QTest::newRow(qPrintable(it.key())) << it.key() << params << stages;
        }
    }

    void scriptedModeRunsEachPreset() {
        QFETCH(QString, preset);
        QFETCH(QStringList, params);
        QFETCH(QStringList, stages);
        const bool eager = preset == QLatin1String("stageload-pixal3d");  // it has a "load" param
        if (eager) params << QStringLiteral("--param") << QStringLiteral("load=eager");
        QProcess app;
        startWithSettings(app, QStringLiteral("preset-") + preset, {{QStringLiteral("waitFree"), 0.0}},
                          QStringList{kSamples + QStringLiteral("/knight_white.png"), QStringLiteral("--generator"), preset} +
                              params + QStringList{QStringLiteral("--generate"), QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForFinished(120000));
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, qPrintable(err));
        const RunRecord last = RunHistory().list().first();
        const auto def = stageload::readGeneratorNamed(preset.toStdString());
        QCOMPARE(last.pipeline, QString::fromStdString(def.name));
        QCOMPARE(last.status, QStringLiteral("done"));
        QVERIFY(last.triangles > 0);  // the mesh read back and shown
        QCOMPARE(last.loadMode, eager ? QStringLiteral("eager") : QString());
        const QJsonObject recorded = last.settings.value(QStringLiteral("params")).toObject();
        QCOMPARE(recorded.size(), static_cast<qsizetype>(def.params.size()));  // every param's value
        if (eager) QCOMPARE(recorded.value(QStringLiteral("load")).toString(), QStringLiteral("eager"));
        const QJsonArray command = last.settings.value(QStringLiteral("command")).toArray();
        QVERIFY2(command.size() > 2, qPrintable(QJsonDocument(last.settings).toJson()));
        if (eager) QVERIFY(command.contains(QStringLiteral("eager")));
        QStringList seen;
        for (const QByteArray& line : testfile::read(last.trace).split('\n')) {
            const auto o = QJsonDocument::fromJson(line).object();
            const QString stage = o.value(QStringLiteral("stage")).toString();  // a stage event's name
            if (o.value(QStringLiteral("kind")).toString() == QLatin1String("stage") && (seen.isEmpty() || seen.last() != stage))
                seen << stage;
        }
        QCOMPARE(seen, stages);
    }

    // One whose checkout is not there is refused before anything starts: 127, the path and the
    // param named, and no run in the history.
    void scriptedModeRefusesAPresetThatIsNotSetUp() {
        const int before = static_cast<int>(RunHistory().list().size());
        QProcess app;
        const QString nowhere = out_.filePath(QStringLiteral("no-checkout"));
        startWithSettings(app, QStringLiteral("not-set-up"), {{QStringLiteral("waitFree"), 0.0}},
                          {kSamples + QStringLiteral("/knight_white.png"), QStringLiteral("--generator"),
                           QStringLiteral("pixal3d-mac"), QStringLiteral("--param"), QStringLiteral("checkout=") + nowhere,
                           QStringLiteral("--generate"), QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForFinished(60000));
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(app.exitCode() == 127, qPrintable(err));
        QVERIFY2(err.contains(nowhere + QStringLiteral(" does not exist")) && err.contains(QLatin1String("'checkout'")),
                 qPrintable(err));
        QCOMPARE(static_cast<int>(RunHistory().list().size()), before);
    }

    void scriptedModeReportsBadInput() {
        QProcess app;
        app.start(QStringLiteral(STAGELOAD_STUDIO_EXE), {QStringLiteral("--generate"), QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 2);
        QVERIFY(QString::fromUtf8(app.readAllStandardError()).contains(QLatin1String("needs a picture")));

        app.start(QStringLiteral(STAGELOAD_STUDIO_EXE),
                  {out_.filePath(QStringLiteral("nothing-here.png")), QStringLiteral("--generate"),
                   QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForFinished(60000));
        QCOMPARE(app.exitCode(), 1);
        QVERIFY(QString::fromUtf8(app.readAllStandardError()).contains(QLatin1String("nothing-here.png")));
    }
};

}  // namespace test_studio_app

STAGELOAD_SUITE(test_studio_app, test_studio_app::TestStudioApp)
#include "test_studio_app.moc"
