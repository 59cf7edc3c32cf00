// The main window's smaller parts, offscreen: the settings form, the picture panel, the history
// list, image conversion, the GUI latency statistics and "Open in Blender" (checked with the
// real Blender, headless).
#include <memory>

#include <QApplication>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QLayout>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QSignalSpy>
#include <QProcess>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include "engine/api/run_meta.h"
#include "engine/media/mesh_files.h"
#include "engine/media/mesh_formats.h"
#include "guard/forecast/forecast.h"
#include "guard/generator/generator_def.h"
#include "tests/file_support.h"
#include "ui/app/blender_launcher.h"
#include "ui/app/generator_editor.h"
#include "ui/app/history_panel.h"
#include "ui/app/image_convert.h"
#include "ui/app/input_panel.h"
#include "ui/app/log_pane.h"
#include "ui/app/preferences_dialog.h"
#include "ui/app/settings_panel.h"
#include "ui/chart/latency_probe.h"
#include "ui/studio/guard_panel.h"
#include "ui_test_support.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::studio;
using namespace stageload::app;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_app_parts {

class TestAppParts : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    // --help and --version answer without a display, as any program's do (over ssh, in a
    // container); the app itself still needs one.
    void helpAndVersionNeedNoDisplay_data() {
        QTest::addColumn<QString>("flag");
        QTest::addColumn<QString>("expected");
        QTest::newRow("--help") << QStringLiteral("--help") << QStringLiteral("--quit-when-done");
        QTest::newRow("-h") << QStringLiteral("-h") << QStringLiteral("--generator <file>");
        QTest::newRow("--version") << QStringLiteral("--version") << QStringLiteral("Stageload Studio ");
    }
    void helpAndVersionNeedNoDisplay() {
        QFETCH(QString, flag);
        QFETCH(QString, expected);
        QProcess app;
        auto env = QProcessEnvironment::systemEnvironment();
        for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM", "XAUTHORITY"})
            env.remove(QString::fromLatin1(name));
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(STAGELOAD_STUDIO_EXE), {flag});
        QVERIFY(app.waitForFinished(20000));
        const QString out = QString::fromUtf8(app.readAllStandardOutput());
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 0, qPrintable(err));
        QVERIFY2(out.contains(expected), qPrintable(out));
    }

    // Preferences gives back the family chosen in it, starting from the one it was given.
    void preferencesChooseTheUnits() {
        PreferencesDialog binary(ByteUnits::Binary);
        QCOMPARE(binary.units(), ByteUnits::Binary);
        QVERIFY(binary.findChild<QRadioButton*>(QStringLiteral("unitsBinary"))->isChecked());
        binary.findChild<QRadioButton*>(QStringLiteral("unitsDecimal"))->click();
        QVERIFY(binary.units() == ByteUnits::Decimal);
        PreferencesDialog decimal(ByteUnits::Decimal);
        QVERIFY(decimal.units() == ByteUnits::Decimal);
        QVERIFY(!decimal.findChild<QRadioButton*>(QStringLiteral("unitsBinary"))->isChecked());
    }

    void settingsPanelRoundTrip() {
        SettingsPanel panel({QStringLiteral("cpu")});
        StudioSettings s;
        s.run.seed = 77;
        s.run.textureSize = 1024;
        s.run.triangles = 1'200'000;  // the engine's limit, not a smaller one of the app's
        s.run.heightMeters = 0.45;
        s.run.thickness = 1.7;
        s.run.minPart = 2.5;
        s.run.mode = stageload::LoadMode::Eager;
        s.run.threads = 1;
        s.run.remover = stageload::RemoverChoice::Classical;
        panel.setSettings(s);
        StudioSettings back;
        panel.applyTo(back);
        QCOMPARE(back.run.seed, 77);
        QCOMPARE(back.run.textureSize, 1024);
        QCOMPARE(back.run.triangles, 1'200'000);
        QCOMPARE(back.run.heightMeters, 0.45);
        QCOMPARE(back.run.thickness, 1.7);
        QCOMPARE(back.run.minPart, 2.5);
        // Each number shows its unit (the issue found height and thickness bare).
        QCOMPARE(panel.findChild<QDoubleSpinBox*>(QStringLiteral("height"))->text(), QStringLiteral("0.45 m"));
        QCOMPARE(panel.findChild<QDoubleSpinBox*>(QStringLiteral("thickness"))->text(), QStringLiteral("1.70 ×"));
        QCOMPARE(panel.findChild<QDoubleSpinBox*>(QStringLiteral("minPart"))->text(), QStringLiteral("2.5 %"));
        QVERIFY(back.run.mode == stageload::LoadMode::Eager);
        QCOMPARE(back.run.threads, 1);
        QVERIFY(back.run.remover == stageload::RemoverChoice::Classical);
    }

    void settingsPanelHoldsTheLargestSeed() {
        SettingsPanel panel({QStringLiteral("cpu")});
        StudioSettings s;
        s.run.seed = stageload::kMaxSeed;
        panel.setSettings(s);
        StudioSettings back;
        panel.applyTo(back);
        QCOMPARE(back.run.seed, stageload::kMaxSeed);
    }

    void settingsPanelOffersOnlyThisBuildsDevices() {
        SettingsPanel panel({QStringLiteral("cpu")});
        auto* device = panel.findChild<QComboBox*>(QStringLiteral("device"));
        QVERIFY(device);
        QCOMPARE(device->count(), 1);
        StudioSettings s;
        s.run.device = "cuda";  // saved on a machine with a GPU
        panel.setSettings(s);
        StudioSettings back;
        panel.applyTo(back);
        QCOMPARE(back.run.device, std::string("cpu"));
    }

    // A learned remover without weights is listed as not installed and cannot be chosen; a
    // saved choice of it falls back to auto.
    void settingsPanelMarksRemoversThatAreNotInstalled() {
        QTemporaryDir empty;
        const QByteArray before = qgetenv("STAGELOAD_WEIGHTS_DIR");
        qputenv("STAGELOAD_WEIGHTS_DIR", empty.path().toUtf8());
        SettingsPanel panel({QStringLiteral("cpu")});
        qputenv("STAGELOAD_WEIGHTS_DIR", before);
        auto* remover = panel.findChild<QComboBox*>(QStringLiteral("remover"));
        QVERIFY(remover);
        const auto* model = qobject_cast<const QStandardItemModel*>(remover->model());
        QVERIFY(model);
        for (const char* name : {"u2netp", "isnet"}) {
            const auto* item = model->item(remover->findData(QString::fromLatin1(name)));
            QVERIFY(item);
            QVERIFY2(item->text().contains("not installed"), qPrintable(item->text()));
            QVERIFY(!item->isEnabled());
            QVERIFY2(item->toolTip().contains("stageload install-weights"), qPrintable(item->toolTip()));
        }
        for (const char* name : {"auto", "classical"})
            QVERIFY(model->item(remover->findData(QString::fromLatin1(name)))->isEnabled());
        StudioSettings s;
        s.run.remover = stageload::RemoverChoice::ISNet;
        panel.setSettings(s);
        StudioSettings back;
        panel.applyTo(back);
        QVERIFY(back.run.remover == stageload::RemoverChoice::Auto);
    }

    void inputPanelShowsPicturesAndRefusesBrokenOnes() {
        InputPanel panel;
        QString error;
        QVERIFY(panel.setPicture(QStringLiteral(STAGELOAD_SAMPLES_DIR "/knight_alpha.png"), &error));
        QVERIFY(!panel.findChild<QLabel*>(QStringLiteral("thumbnail"))->pixmap().isNull());
        QFile bad(dir_.filePath(QStringLiteral("bad.jpg")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("definitely not a jpeg");
        bad.close();
        QVERIFY(!panel.setPicture(bad.fileName(), &error));
        QVERIFY2(error.contains(QLatin1String("bad.jpg")), qPrintable(error));
        QVERIFY(panel.picture().endsWith(QLatin1String("knight_alpha.png")));  // the old one stays
        Image cutout(8, 4, 4);
        std::fill(cutout.pixels.begin(), cutout.pixels.end(), 200);
        panel.setCutout(cutout);
        QVERIFY(panel.hasCutout());
    }

    void imagesConvertWithTheirChannels() {
        Image rgb(3, 2, 3);
        rgb.at(2, 1)[0] = 255;  // red pixel bottom right
        const QImage q = toQImage(rgb);
        QCOMPARE(q.size(), QSize(3, 2));
        QCOMPARE(q.pixelColor(2, 1), QColor(255, 0, 0));
        Image gray(2, 2, 1);
        gray.pixels = {0, 64, 128, 255};
        QCOMPARE(toQImage(gray).pixelColor(1, 1).red(), 255);
        QVERIFY(toQImage(Image{}).isNull());
        Image two(2, 2, 2);
        QVERIFY(toQImage(two).isNull());
    }

    // An old run's settings come back from its record (the trace's start-line keys); a bad
    // value keeps the current one and is named.
    void aRunsSettingsComeBackFromItsRecord() {
        RunSettings set;
        set.seed = 77;
        set.textureSize = 1024;
        set.triangles = 12000;
        set.mode = LoadMode::Eager;
        set.thickness = 1.5;
        auto meta = runMeta(set, "knight.png");
        meta["threads"] = 2;
        const RunSettings back = runSettingsFromMeta(meta, RunSettings{});
        for (const auto& f : runFields())
            if (f.field != RunField::Threads) QCOMPARE(settingText(back, f.field), settingText(set, f.field));
        QCOMPARE(back.threads, 2);
        meta["texture_size"] = 1000;  // not a size the pipeline has
        meta["seed"] = "many";
        std::vector<std::string> ignored;
        const RunSettings partly = runSettingsFromMeta(meta, RunSettings{}, &ignored);
        QCOMPARE(partly.textureSize, RunSettings{}.textureSize);
        QCOMPARE(partly.seed, RunSettings{}.seed);
        QCOMPARE(partly.triangles, 12000);
        QCOMPARE(ignored.size(), std::size_t(2));
        QVERIFY2(ignored[0].rfind("seed: ", 0) == 0, ignored[0].c_str());
    }

    // A run that names an installed learned remover knows preprocess's weights ahead, from the
    // file's header; auto decides at run time and says nothing.
    void aNamedRemoversWeightsAreInTheRunsMeta() {
        QTemporaryDir weights;
        QVERIFY(weights.isValid());
        testfile::write(weights.filePath("u2netp.safetensors"),
                        testfile::safetensors(R"({"w":{"dtype":"F16","shape":[1000],"data_offsets":[0,2000]}})", 2000));
        const QByteArray before = qgetenv("STAGELOAD_WEIGHTS_DIR");
        qputenv("STAGELOAD_WEIGHTS_DIR", weights.path().toUtf8());
        RunSettings set;
        set.remover = RemoverChoice::U2NetP;
        const auto named = runMeta(set, "knight.png");
        set.remover = RemoverChoice::Auto;
        const auto automatic = runMeta(set, "knight.png");
        set.remover = RemoverChoice::ISNet;  // not installed here
        const auto missing = runMeta(set, "knight.png");
        before.isNull() ? qunsetenv("STAGELOAD_WEIGHTS_DIR") : qputenv("STAGELOAD_WEIGHTS_DIR", before);
        QCOMPARE(named["stage_weights"]["preprocess"].get<std::int64_t>(), std::int64_t(2000));
        QVERIFY(!automatic.contains("stage_weights"));
        QVERIFY(!missing.contains("stage_weights"));
        QCOMPARE(runKeyOf(named).weights.at("preprocess"), std::int64_t(2000));
    }

    void historyPanelListsRuns() {
        HistoryPanel panel;
        for (int c = 0; c < panel.columnCount(); ++c)  // every column explained
            QVERIFY2(!panel.headerItem()->toolTip(c).isEmpty(), qPrintable(panel.headerItem()->text(c)));
        RunRecord a;
        a.id = QStringLiteral("a");
        a.input = QStringLiteral("/pictures/knight.png");
        a.createdUtc = QDateTime::currentDateTimeUtc();
        a.status = RunRecord::statusDone();
        a.seconds = 6.25;
        a.triangles = 40000;
        a.loadMode = QStringLiteral("staged");
        a.settings = QJsonObject{{QStringLiteral("seed"), 9007199254740991.0}, {QStringLiteral("remover"), QStringLiteral("auto")}};
        RunRecord b = a;
        b.id = QStringLiteral("b");
        b.status = RunRecord::statusStopped();
        b.summary = QJsonObject{{QStringLiteral("stopped_at"), QStringLiteral("texture")}};
        // A run that waited 30 s for the guard: its seconds are the trace's, its peak the summary's.
        RunRecord c = a;
        c.id = QStringLiteral("c");
        c.seconds = 36.0;
        c.summary = QJsonObject{{QStringLiteral("duration"), 6.0}, {QStringLiteral("peak_footprint"), 1.5 * (1 << 30)}};
        panel.setRecords({a, b, c});
        QCOMPARE(panel.topLevelItemCount(), 3);
        const auto column = [&](const QString& header) {
            for (int i = 0; i < panel.columnCount(); ++i)
                if (panel.headerItem()->text(i) == header) return i;
            qFatal("no column %s", qPrintable(header));
            return -1;
        };
        const auto cell = [&](int row, const QString& header) { return panel.topLevelItem(row)->text(column(header)); };
        QCOMPARE(cell(0, "Result"), QStringLiteral("done"));
        QCOMPARE(cell(1, "Result"), QStringLiteral("stopped in texture"));
        QCOMPARE(cell(0, "Picture"), QStringLiteral("knight.png"));
        QCOMPARE(cell(0, "Mode"), QStringLiteral("staged"));
        QCOMPARE(cell(0, "Seed"), QStringLiteral("9007199254740991"));
        QCOMPARE(cell(0, "Remover"), QStringLiteral("auto"));
        QCOMPARE(cell(0, "Seconds"), QStringLiteral("6.3"));
        QCOMPARE(cell(0, "Peak (GiB)"), QString());
        QCOMPARE(cell(2, "Seconds"), QStringLiteral("6.0"));
        QVERIFY(panel.topLevelItem(2)->toolTip(column("Seconds")).contains(QStringLiteral("36.0 s")));
        QCOMPARE(cell(2, "Peak (GiB)"), QStringLiteral("1.50"));
        panel.setCurrentItem(panel.topLevelItem(1));
        QCOMPARE(panel.selectedId(), QStringLiteral("b"));
    }

    // The wheel over a choice the user has not clicked into scrolls the panel, not the choice
    // (Loading flipped to Eager that way); once it has focus, the wheel changes it.
    void theWheelChangesOnlyAFocusedChoice() {
        auto* panel = new SettingsPanel({QStringLiteral("cpu")});
        QScrollArea area;
        area.setWidget(panel);
        area.setWidgetResizable(true);
        area.resize(420, 160);  // far shorter than the form: it scrolls
        area.show();
        QVERIFY(QTest::qWaitForWindowExposed(&area));
        auto* load = static_cast<QComboBox*>(panel->field(RunField::Load));
        QVERIFY(load && load->count() >= 2);
        const int before = load->currentIndex();
        QVERIFY(area.verticalScrollBar()->maximum() > 0);
        area.verticalScrollBar()->setValue(0);
        const auto wheel = [&](int delta) {
            const QPointF at(load->width() / 2.0, load->height() / 2.0);
            QWheelEvent e(at, load->mapToGlobal(at), QPoint(), QPoint(0, delta), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
            QApplication::sendEvent(load, &e);
        };
        QVERIFY(!load->hasFocus());
        wheel(-120);
        QCOMPARE(load->currentIndex(), before);
        QVERIFY2(area.verticalScrollBar()->value() > 0, "the panel did not scroll");
        QVERIFY(!load->hasFocus());  // the wheel takes no focus either
        area.activateWindow();
        QVERIFY(QTest::qWaitForWindowActive(&area));
        load->setFocus(Qt::MouseFocusReason);
        QVERIFY(load->hasFocus());
        wheel(before == 0 ? -120 : 120);
        QVERIFY(load->currentIndex() != before);
        // The guard panel's and a generator's fields are guarded the same way.
        GuardPanel guard;
        const auto* killFree = guard.findChild<QDoubleSpinBox*>(QStringLiteral("killFree"));
        QVERIFY(killFree);
        QCOMPARE(killFree->focusPolicy(), Qt::StrongFocus);
    }

    // The log follows new lines after the docks are resized, stops while the user reads higher
    // up, and follows again once they scroll back to the end.
    void theLogFollowsUntilTheUserScrollsUp() {
        LogPane pane;
        pane.resize(600, 200);
        pane.show();
        QVERIFY(QTest::qWaitForWindowExposed(&pane));
        auto* bar = pane.verticalScrollBar();
        const QString longLine = QStringLiteral("guard: available 41.0% of 23.54 GiB, swap used 0 B, ") + QString(60, QLatin1Char('x'));
        for (int i = 0; i < 200; ++i) pane.appendLine(longLine + QString::number(i), 2);
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), bar->maximum());
        pane.resize(260, 200);  // narrower: the lines wrap, the end moves down
        QCoreApplication::processEvents();
        pane.appendLine(QStringLiteral("after the resize"), 2);
        QCoreApplication::processEvents();
        QVERIFY(pane.following());
        QCOMPARE(bar->value(), bar->maximum());
        bar->setValue(bar->maximum() / 2);  // the user reads higher up
        QVERIFY(!pane.following());
        const int reading = bar->value();
        pane.appendLine(QStringLiteral("while reading"), 2);
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), reading);
        bar->setValue(bar->maximum());  // back to the end
        QVERIFY(pane.following());
        pane.appendLine(QStringLiteral("followed again"), 2);
        QCoreApplication::processEvents();
        QCOMPARE(bar->value(), bar->maximum());
    }

    void latencyPercentiles() {
        std::vector<double> late;
        for (int i = 1; i <= 100; ++i) late.push_back(i);
        const auto s = chart::latencyStats(late);
        QCOMPARE(s.p50, 50.0);
        QCOMPARE(s.p99, 99.0);
        QCOMPARE(s.max, 100.0);
        QCOMPARE(s.ticks, 100);
        QCOMPARE(chart::latencyStats({}).ticks, 0);
    }

    // With a generator chosen, the settings follow it: the built-in pipeline's own rows hidden,
    // its params as fields (a Browse… button where "requires" names them, a choice list where it
    // has choices), Loading only where it has a "load" param, a "not set up" mark in the menu
    // and the panel, and the params back in the settings.
    void settingsFollowTheChosenGenerator() {
        const auto trellis = readGeneratorDef(STAGELOAD_SOURCE_DIR "/resources/generators/trellis-cpp.json");
        const auto pixal = readGeneratorDef(STAGELOAD_SOURCE_DIR "/resources/generators/stageload-pixal3d.json");
        SettingsPanel panel({QStringLiteral("cpu")});
        panel.setGenerators({trellis, pixal});
        auto* pipeline = static_cast<QComboBox*>(panel.field(RunField::Pipeline));
        const int at = pipeline->findData(QStringLiteral("generator:") + QString::fromStdString(trellis.source.string()));
        QVERIFY(at > 0);
        QVERIFY2(pipeline->itemText(at).endsWith(QLatin1String("not set up")), qPrintable(pipeline->itemText(at)));
        QVERIFY(panel.field(RunField::Triangles)->isVisibleTo(&panel));
        QSignalSpy setup(&panel, &SettingsPanel::setupRequested);
        pipeline->setCurrentIndex(at);
        emit pipeline->activated(at);  // as the user's choice
        QCOMPARE(setup.count(), 1);    // not set up: the form is asked for
        QVERIFY(panel.generator() && panel.generator()->name == trellis.name);
        for (auto f : {RunField::Triangles, RunField::Height, RunField::Thickness, RunField::MinPart, RunField::Remover,
                       RunField::Threads, RunField::Device})
            QVERIFY(!panel.field(f)->isVisibleTo(&panel));
        QVERIFY(panel.field(RunField::Seed)->isEnabled());
        QVERIFY(!panel.field(RunField::Load)->isEnabled());  // trellis.cpp has no loading mode
        auto* res = panel.findChild<QComboBox*>(QStringLiteral("param_res"));
        QVERIFY(res && res->count() == 3);
        QVERIFY(panel.findChild<QWidget*>(QStringLiteral("browse_models")));
        QVERIFY(!panel.isSetUp());
        QVERIFY(panel.findChild<QLabel*>(QStringLiteral("setupStatus"))->text().contains(QLatin1String("Not set up")));

        // Set up: a real program and folder, and the mark goes.
        const QString models = dir_.filePath(QStringLiteral("models"));
        QDir().mkpath(models);
        testfile::write(models + QStringLiteral("/ss_flow.gguf"), "GGUF");
        panel.setGeneratorParams(QStringLiteral("trellis-cpp"),
                                 {{QStringLiteral("trellis_cli"), QStringLiteral("/bin/true")}, {QStringLiteral("models"), models}});
        QVERIFY(panel.isSetUp());
        QCOMPARE(pipeline->itemText(at), QString::fromStdString(trellis.name));
        res = panel.findChild<QComboBox*>(QStringLiteral("param_res"));
        res->setCurrentIndex(res->findData(QStringLiteral("512")));
        StudioSettings s;
        panel.applyTo(s);
        QCOMPARE(s.generatorParams.value(QStringLiteral("trellis-cpp")).value(QStringLiteral("res")), QStringLiteral("512"));
        QCOMPARE(s.generatorParams.value(QStringLiteral("trellis-cpp")).value(QStringLiteral("models")), models);

        // One with a "load" param: Loading is it, and its own field is not shown twice.
        pipeline->setCurrentIndex(pipeline->findData(QStringLiteral("generator:") + QString::fromStdString(pixal.source.string())));
        QVERIFY(panel.field(RunField::Load)->isEnabled());
        QVERIFY(!panel.findChild<QWidget*>(QStringLiteral("param_load")));
        QVERIFY(panel.findChild<QWidget*>(QStringLiteral("param_checkout")));
        // The built-in pipeline again: its rows are back, the params kept.
        pipeline->setCurrentIndex(0);
        QVERIFY(panel.field(RunField::Triangles)->isVisibleTo(&panel));
        panel.applyTo(s);
        QCOMPARE(s.generatorParams.value(QStringLiteral("trellis-cpp")).value(QStringLiteral("res")), QStringLiteral("512"));
        QVERIFY(s.generator.isEmpty());
    }

    void generatorEditorChecksAndSaves() {
        qputenv("STAGELOAD_GENERATORS_DIR", dir_.filePath(QStringLiteral("generators")).toUtf8());
        GeneratorEditor editor;
        editor.setPicture(QStringLiteral("/pictures/my hero.png"));
        editor.findChild<QLineEdit*>(QStringLiteral("name"))->setText(QStringLiteral("My Port (test)"));
        auto* command = editor.findChild<QPlainTextEdit*>(QStringLiteral("command"));
        command->setPlainText(QStringLiteral("python3\nrun.py\n--image\n{input}\n--out\n{output}"));
        QVERIFY(editor.check());
        QVERIFY2(editor.preview().contains(QLatin1String("python3 run.py --image '/pictures/my hero.png' --out '<run>/mesh.glb'")),
                 qPrintable(editor.preview()));

        command->setPlainText(QStringLiteral("python3\nrun.py\n--image\n{inptu}"));
        QString error;
        QVERIFY(!editor.check(&error));
        QVERIFY2(error.contains(QLatin1String("command[3]")) && error.contains(QLatin1String("{inptu}")), qPrintable(error));
        command->setPlainText(QStringLiteral("python3\nrun.py\n{input}"));
        editor.findChild<QLineEdit*>(QStringLiteral("stage_pattern"))->setText(QStringLiteral("(["));
        QVERIFY(!editor.check(&error));
        QVERIFY2(error.contains(QLatin1String("stage_pattern")), qPrintable(error));
        editor.findChild<QLineEdit*>(QStringLiteral("stage_pattern"))->setText(QStringLiteral("^== (\\w+)"));

        QSignalSpy saved(&editor, &GeneratorEditor::saved);
        const QString file = editor.save();
        QCOMPARE(file, dir_.filePath(QStringLiteral("generators/my-port-test.json")));
        QCOMPARE(saved.count(), 1);
        const auto back = readGeneratorDef(file.toStdString());
        QCOMPARE(back.name, std::string("My Port (test)"));
        QCOMPARE(back.stagePattern, std::string("^== (\\w+)"));
        QCOMPARE(back.command, (std::vector<std::string>{"python3", "run.py", "{input}"}));
        qunsetenv("STAGELOAD_GENERATORS_DIR");
    }

    // The form is the key table's: every key with a field has one, named after it, and a shipped
    // preset comes back from the form exactly as its file has it (the keys without a field, each
    // param's choices and help included).
    void generatorEditorShowsEveryKeyAndKeepsEachPresetWhole() {
        GeneratorEditor editor;
        int fields = 0;
        for (const GeneratorKey& key : generatorKeys()) {
            auto* widget = editor.findChild<QWidget*>(QString::fromUtf8(key.name));
            QCOMPARE(widget != nullptr, key.field != KeyField::None);
            fields += widget ? 1 : 0;
        }
        QVERIFY(fields >= 10);
        const auto catalog = findGenerators({shippedGeneratorDir()});
        QVERIFY(catalog.generators.size() >= 10);
        for (const auto& def : catalog.generators) {
            editor.setDefinition(def);
            QString error;
            const auto back = editor.check(&error);
            QVERIFY2(back, qPrintable(QString::fromStdString(def.source.string()) + ": " + error));
            QCOMPARE(QString::fromStdString(generatorDefJson(*back)), QString::fromStdString(generatorDefJson(def)));
        }
    }

    // Going between the built-in pipeline, a generator with params and one without leaves the
    // panel's layout whole: the params row is there for every generator (empty for one without)
    // and gone for the built-in. Run again in a child process with glibc's heap checks, so a
    // corrupted layout aborts there instead of passing by luck.
    void aGeneratorWithoutParamsLeavesTheLayoutWhole() {
        const char* checked = "STAGELOAD_HEAP_CHECKED";
        if (!qEnvironmentVariableIsSet(checked)) {
            QProcess child;
            auto env = QProcessEnvironment::systemEnvironment();
            env.insert(checked, "1");
            env.insert("LD_PRELOAD", "libc_malloc_debug.so.0");
            env.insert("GLIBC_TUNABLES", "glibc.malloc.check=3");
            child.setProcessEnvironment(env);
            child.setProcessChannelMode(QProcess::MergedChannels);
            child.start(QCoreApplication::applicationFilePath(),
                        {stageload::test::runningSuite(), QStringLiteral("aGeneratorWithoutParamsLeavesTheLayoutWhole")});
            QVERIFY(child.waitForFinished(60000));
            const QString out = QString::fromUtf8(child.readAll());
            QVERIFY2(child.exitStatus() == QProcess::NormalExit && child.exitCode() == 0, qPrintable(out.right(3000)));
        }
        const auto trellis = readGeneratorDef(STAGELOAD_SOURCE_DIR "/resources/generators/trellis-cpp.json");
        GeneratorDef bare;
        bare.name = "bare";
        bare.command = {"true"};
        bare.source = dir_.filePath(QStringLiteral("bare.json")).toStdString();
        auto panel = std::make_unique<SettingsPanel>(QStringList{QStringLiteral("cpu")});
        panel->setGenerators({trellis, bare});
        auto* pipeline = static_cast<QComboBox*>(panel->field(RunField::Pipeline));
        auto* params = panel->findChild<QWidget*>(QStringLiteral("generatorParams"));
        QVERIFY(params);
        panel->resize(400, 600);
        panel->show();
        const auto choose = [&](const GeneratorDef* g) {
            pipeline->setCurrentIndex(g ? pipeline->findData(QStringLiteral("generator:") + QString::fromStdString(g->source.string())) : 0);
            panel->layout()->activate();  // laid out in each state, as on screen
            QCoreApplication::processEvents();
        };
        for (int round = 0; round < 3; ++round) {
            choose(&trellis);
            QVERIFY(params->isVisibleTo(panel.get()));
            choose(&bare);
            QVERIFY(params->isVisibleTo(panel.get()));
            QVERIFY(!panel->field(RunField::Triangles)->isVisibleTo(panel.get()));
            choose(nullptr);
            QVERIFY(!params->isVisibleTo(panel.get()));
            QVERIFY(panel->field(RunField::Triangles)->isVisibleTo(panel.get()));
            panel->setGenerators({trellis, bare});  // as a generator opened by file adds one
        }
        panel.reset();
    }

    void blenderImportsWhatTheAppExports() {
        // The same arguments "Open in Blender" uses, run headless with Debian's Blender.
        QVERIFY2(!blenderExecutable().isEmpty(), "blender is not on PATH: run packaging/install-deps.sh");
        const QString path = dir_.filePath(QStringLiteral("it's a tetra.glb"));  // a quote in the name
        writeGlb(test::tetrahedron(), path.toStdString());
        QProcess blender;
        blender.start(blenderExecutable(), blenderArguments(path, true));
        QVERIFY(blender.waitForFinished(120000));
        const QString out = QString::fromUtf8(blender.readAllStandardOutput());
        QVERIFY2(out.contains(QLatin1String("stageload: imported 1 mesh object(s)")), qPrintable(out.right(2000)));

        QVERIFY(blenderImportResult(out).has_value() && blenderImportResult(out)->ok);

        // Every format the app exports imports through its row's operator (.obj, .ply ...),
        // upright, unrotated and at the size the .glb comes in (the .obj importer rotates the
        // object by 90° about X where the glTF one turns the data).
        const auto sizeLine = [](const QString& said) {
            for (const QString& line : said.split(QLatin1Char('\n')))
                if (line.startsWith(QLatin1String("stageload: size "))) return line.trimmed();
            return QString();
        };
        const QString glbSize = sizeLine(out);
        QVERIFY2(glbSize.endsWith(QLatin1String("rotation 0.0000 0.0000 0.0000")), qPrintable(out.right(2000)));
        for (const auto& f : meshFormats()) {
            if (!f.write || f.extension == ".glb") continue;
            const QString file = dir_.filePath(QStringLiteral("tetra-export") + QString::fromLatin1(f.extension.data(), f.extension.size()));
            f.write(test::tetrahedron(), file.toStdString());
            QProcess headless;
            headless.start(blenderExecutable(), blenderArguments(file, true));
            QVERIFY(headless.waitForFinished(120000));
            const QString said = QString::fromUtf8(headless.readAllStandardOutput());
            QVERIFY2(said.contains(QLatin1String("stageload: imported 1 mesh object(s)")),
                     qPrintable(file + ": " + said.right(2000)));
            QCOMPARE(sizeLine(said), glbSize);
        }
        // The app's own launch keeps the user's preferences: no factory settings.
        QVERIFY(!blenderArguments(path).contains(QStringLiteral("--factory-startup")));

        // With a window (Xvfb here), an .obj as "Open in Blender" starts it: the import waits
        // for the window (run at startup, the importer's poll failed and Blender opened empty).
        QCOMPARE(writeObj(test::tetrahedron(), dir_.filePath(QStringLiteral("tetra.obj")).toStdString()).size(), std::size_t(3));
        QProcess windowed;
        windowed.start(blenderExecutable(), blenderArguments(dir_.filePath(QStringLiteral("tetra.obj")), false, true));
        QVERIFY(windowed.waitForFinished(120000));
        const QString shown = QString::fromUtf8(windowed.readAllStandardOutput());
        const auto result = blenderImportResult(shown);
        QVERIFY2(result && result->ok && result->detail == QStringLiteral("1 mesh object(s)"), qPrintable(shown.right(2000)));
        QCOMPARE(blenderImportResult("x\nstageload: import failed: context is incorrect\n")->detail,
                 QStringLiteral("context is incorrect"));
        QVERIFY(!blenderImportResult("Blender 3.4\n").has_value());

        QString error;
        QVERIFY(!openInBlender(dir_.filePath(QStringLiteral("missing.glb")), &error));
        QVERIFY(error.contains(QLatin1String("missing.glb")));
    }
};

}  // namespace test_app_parts

STAGELOAD_SUITE(test_app_parts, test_app_parts::TestAppParts)
#include "test_app_parts.moc"
