// `stageload run` as users and scripts meet it: every sample becomes a .glb that the Khronos
// glTF validator passes with no errors and no warnings and that Blender imports as one textured
// mesh of the right height; the trace has every stage; bad input gets its documented exit code.
#include <csignal>

#include <QElapsedTimer>
#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/file_support.h"
#include "tests/process_support.h"

namespace {

const QString kExe = STAGELOAD_EXE;
const QString kSamples = STAGELOAD_SAMPLES_DIR;
const QString kValidator = STAGELOAD_SOURCE_DIR "/tests/cli/validate_gltf.mjs";
const QString kBlenderCheck = STAGELOAD_SOURCE_DIR "/tests/cli/blender_check.py";
const QStringList kSampleNames = {"knight_alpha",  "knight_white", "knight_parts_alpha",
                                  "slime_busy",    "lantern_alpha", "creature_gray",
                                  "robot_beige",   "knight_photo",  "knight_tiny_white"};

using Result = testproc::ProgramResult;
using testproc::runProgram;
using testproc::stageload;

}  // namespace

class TestCliRun : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString glb(const QString& name) const { return dir_.path() + "/" + name + ".glb"; }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        for (const auto& name : kSampleNames) {
            const auto r = stageload({"run", kSamples + "/" + name + ".png", "-o", glb(name)});
            QVERIFY2(r.code == 0, qPrintable(name + ": " + r.err));
            QVERIFY2(r.out.contains("closed, manifold, outward"), qPrintable(r.out));
        }
    }

    void everySamplePassesTheGltfValidator() {
        QStringList args{kValidator};
        for (const auto& name : kSampleNames) args << glb(name);
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("NODE_PATH", STAGELOAD_NODE_MODULES);
        const auto r = runProgram("node", args, 120000, env);
        qInfo().noquote() << r.out.trimmed();
        QVERIFY2(r.code == 0, qPrintable(r.out + r.err));
        const auto lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), kSampleNames.size());
        for (const auto& line : lines) {
            const auto o = QJsonDocument::fromJson(line.toUtf8()).object();
            QCOMPARE(o["errors"].toInt(-1), 0);
            QCOMPARE(o["warnings"].toInt(-1), 0);
        }
    }

    void everySampleImportsIntoBlender() {
        // One Blender for every sample: it takes seconds to start.
        QStringList args{"-b", "--factory-startup", "--python", kBlenderCheck, "--"};
        for (const auto& name : kSampleNames) args << glb(name);
        args << "2048" << "1.8";
        const auto r = runProgram("blender", args);
        QVERIFY2(r.code == 0 && !r.out.contains("FAIL"), qPrintable("exit " + QString::number(r.code) + "\n" + r.out + r.err));
        for (const auto& name : kSampleNames) {
            // Each file's checks follow its own "file" line, the last one ends the output.
            const auto from = r.out.indexOf("file " + glb(name) + "\n");
            QVERIFY2(from >= 0, qPrintable(name + " was not checked:\n" + r.out));
            const auto checks = r.out.mid(from).section("\nfile ", 0, 0);
            QVERIFY2(checks.contains("ok    one mesh object") && checks.contains("ok    feet at z"),
                     qPrintable(name + ":\n" + checks));
        }
    }

    void sameInputSameBytes() {
        const auto again = dir_.path() + "/again.glb";
        const auto eager = dir_.path() + "/eager.glb";
        QCOMPARE(stageload({"run", kSamples + "/knight_alpha.png", "-o", again}).code, 0);
        QCOMPARE(stageload({"run", kSamples + "/knight_alpha.png", "-o", eager, "--load", "eager"}).code, 0);
        const QByteArray first = testfile::read(glb("knight_alpha"));
        QVERIFY(!first.isEmpty());
        QVERIFY(testfile::read(again) == first);
        QVERIFY(testfile::read(eager) == first);
    }

    void traceHasEveryStage() {
        const auto trace = dir_.path() + "/run.jsonl";
        const auto r = stageload({"run", kSamples + "/lantern_alpha.png", "-o", dir_.path() + "/t.glb",
                                  "--trace", trace, "--texture-size", "1024", "--triangles", "10000"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QFile file(trace);
        QVERIFY(file.open(QIODevice::ReadOnly));
        QStringList stages;
        int loads = 0, releases = 0, samples = 0;
        QString last;
        for (const auto& line : file.readAll().trimmed().split('\n')) {
            const auto o = QJsonDocument::fromJson(line).object();
            const auto type = o["type"].toString(), kind = o["kind"].toString();
            if (type == "event" && kind == "stage") stages << o["stage"].toString();
            loads += type == "event" && kind == "load";
            releases += type == "event" && kind == "release";
            samples += type == "sample";
            last = type;
        }
        QCOMPARE(stages, QStringList({"preprocess", "structure", "shape_512", "shape_1024", "texture",
                                      "decode", "export"}));
        QCOMPARE(loads, 4);      // the lantern has alpha: no background remover
        QVERIFY(releases >= 4);
        QVERIFY(samples > 0);
        QCOMPARE(last, QString("end"));
        // The run's per-stage table is the summary of the trace it wrote, line for line, with
        // the engine's exact high-water mark of every stage beside the sampled peak.
        const auto summary = stageload({"summary", trace});
        QCOMPARE(summary.code, 0);
        const auto table = [](const QString& out) {
            const auto from = out.indexOf("stage   "), to = out.indexOf("\nerrors:");
            return from < 0 || to < 0 ? QString() : out.mid(from, to - from);
        };
        QVERIFY2(!table(r.out).isEmpty(), qPrintable(r.out));
        QCOMPARE(table(r.out), table(summary.out));
        QVERIFY2(r.out.contains("high-water"), qPrintable(r.out));
        const auto texture = r.out.mid(r.out.indexOf("\ntexture ")).section('\n', 1, 1).simplified().split(' ');
        QCOMPARE(texture.size(), 7);  // name, seconds, peak, high-water, weights, loads, releases
        QVERIFY2(texture[3] != "–" && texture[3].toDouble() > 0, qPrintable(r.out));
        QCOMPARE(texture[5], QString("1"));  // the texture model
    }

    void aRunWithoutTraceLeavesNoTemporaryTrace() {
        QTemporaryDir tmp;
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert("TMPDIR", tmp.path());
        const auto r = runProgram(kExe, {"run", kSamples + "/lantern_alpha.png", "-o",
                                         dir_.path() + "/n.glb", "--texture-size", "1024"},
                                  120000, env);
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.out.contains("high-water"), qPrintable(r.out));  // the table, from the trace
        QCOMPARE(QDir(tmp.path()).entryList(QDir::NoDotAndDotDot | QDir::AllEntries), QStringList());
    }

    // Ctrl+C in the middle of a run: exit 130, no mesh, and the trace says where and why it
    // stopped with the mark the app's cancelled runs write too (test_generate_job's
    // cancelStopsTheRunFreesMemoryAndLeavesNoThread): both front ends run the one character job.
    void anInterruptedRunMarksWhereItStopped() {
        const QString trace = dir_.path() + "/interrupted.trace.jsonl";
        const QString mesh = dir_.path() + "/interrupted.glb";
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start(kExe, {"run", kSamples + "/lantern_alpha.png", "-o", mesh, "--texture-size", "4096", "--trace", trace});
        QVERIFY(p.waitForStarted());
        QString output;
        QElapsedTimer clock;
        clock.start();
        while (!output.contains("] texture...") && p.state() == QProcess::Running && clock.elapsed() < 120000) {
            p.waitForReadyRead(200);
            output += QString::fromUtf8(p.readAll());
        }
        QVERIFY2(output.contains("] texture..."), qPrintable(output));
        QCOMPARE(::kill(static_cast<pid_t>(p.processId()), SIGINT), 0);
        QVERIFY(p.waitForFinished(60000));
        output += QString::fromUtf8(p.readAll());
        QVERIFY2(p.exitStatus() == QProcess::NormalExit && p.exitCode() == 130, qPrintable(output));
        QVERIFY2(output.contains("stageload: error: Stopped: interrupted: stageload got SIGINT"), qPrintable(output));
        QVERIFY(!QFile::exists(mesh));
        const auto summary = stageload({"summary", trace});
        QVERIFY2(summary.code == 0 && summary.out.contains("ran to:        texture (interrupted: stageload got SIGINT"),
                 qPrintable(summary.out + summary.err));
    }

    void probeShowsEveryPhase() {
        const auto weights = qEnvironmentVariable("STAGELOAD_WEIGHTS_DIR") + "/u2netp.safetensors";
        const auto r = stageload({"probe", weights});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        for (const auto* phase : {"before", "load", "warm-up", "inference", "release"})
            QVERIFY2(r.out.contains(QString("\n") + phase + " "), qPrintable(r.out));
        QVERIFY(r.out.contains("1125485 parameters"));
        const auto missing = stageload({"probe", dir_.path() + "/nope.pt"});
        QCOMPARE(missing.code, 1);
        QVERIFY(missing.err.contains("no such file"));
        const auto noShape = stageload({"probe", STAGELOAD_SOURCE_DIR "/README.md"});
        QCOMPARE(noShape.code, 2);
        QVERIFY(noShape.err.contains("--input"));
        QCOMPARE(stageload({"probe", weights, "--input", "1,x"}).code, 2);
    }

    // Run from outside the source tree, the bench names the folder it looked for (it once
    // printed a bare "directory iterator cannot open directory").
    void benchCharacterNamesAMissingSamplesFolder() {
        const auto r = stageload({"bench", "character", "--samples", dir_.path() + "/no-samples"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no-samples: no such folder") && r.err.contains("--samples"),
                 qPrintable(r.err));
    }

    void badInputGetsItsExitCode_data() {
        QTest::addColumn<QString>("input");
        QTest::addColumn<QString>("output");
        QTest::addColumn<QStringList>("extra");
        QTest::addColumn<int>("code");
        QTest::addColumn<QString>("message");
        const auto d = dir_.path();
        QTest::newRow("missing picture") << d + "/nope.png" << d + "/a.glb" << QStringList() << 66 << "no such file";
        QTest::newRow("not a picture") << STAGELOAD_SOURCE_DIR "/README.md" << d + "/a.glb" << QStringList() << 65 << "not a picture";
        QTest::newRow("no subject") << d + "/blank.png" << d + "/a.glb" << QStringList() << 65 << "no subject found";
        QTest::newRow("output folder missing") << kSamples + "/knight_alpha.png" << d + "/none/a.glb" << QStringList() << 73 << "does not exist";
        QTest::newRow("output type") << kSamples + "/knight_alpha.png" << d + "/a.fbx" << QStringList() << 2 << ".glb, .obj or .ply";
        QTest::newRow("texture size") << kSamples + "/knight_alpha.png" << d + "/a.glb" << QStringList{"--texture-size", "100"} << 2 << "texture-size";
        QTest::newRow("triangles") << kSamples + "/knight_alpha.png" << d + "/a.glb" << QStringList{"--triangles", "5"} << 2 << "triangles";
        QTest::newRow("device") << kSamples + "/knight_alpha.png" << d + "/a.glb" << QStringList{"--device", "mps"} << 2 << "macOS";
        QTest::newRow("min part") << kSamples + "/knight_alpha.png" << d + "/a.glb" << QStringList{"--min-part", "80"} << 2 << "min-part";
        // A remover that is not installed is not "broken weights"; a damaged file is.
        QTest::newRow("remover not installed")
            << kSamples + "/knight_white.png" << d + "/a.glb"
            << QStringList{"--remover", "isnet", "--weights", d + "/no-weights"} << 69 << "ISNet is not installed";
        QDir().mkpath(d + "/bad-weights");
        QFile bad(d + "/bad-weights/u2netp.safetensors");
        QVERIFY(bad.open(QIODevice::WriteOnly) && bad.write("garbage") == 7);
        bad.close();
        QTest::newRow("broken weights")
            << kSamples + "/knight_white.png" << d + "/a.glb"
            << QStringList{"--remover", "u2netp", "--weights", d + "/bad-weights"} << 78 << "u2netp.safetensors";
    }
    void aLostTraceIsSaidAndExits73() {
        // The mesh is written, its record is not: the run says so and does not claim success.
        const QString out = dir_.path() + "/lost.glb";
        const auto r = stageload({"run", kSamples + "/knight_alpha.png", "-o", out, "--texture-size",
                                  "1024", "--trace", "/dev/full"});
        QCOMPARE(r.code, 73);
        QVERIFY2(r.err.contains("could not be written to /dev/full"), qPrintable(r.err));
        QVERIFY(!r.out.contains("trace written"));
        QVERIFY(QFile::exists(out));
    }

    void badInputGetsItsExitCode() {
        QFETCH(QString, input);
        QFETCH(QString, output);
        QFETCH(QStringList, extra);
        QFETCH(int, code);
        QFETCH(QString, message);
        // A blank picture: nothing stands out.
        QImage blank(200, 300, QImage::Format_RGB32);
        blank.fill(Qt::white);
        QVERIFY(blank.save(dir_.path() + "/blank.png"));
        const auto r = stageload(QStringList{"run", input, "-o", output} + extra);
        QVERIFY2(r.code == code, qPrintable(QString("exit %1: %2").arg(r.code).arg(r.err)));
        QVERIFY2(r.err.contains(message), qPrintable(r.err));
        QVERIFY(!QFile::exists(output));
    }
};

QTEST_GUILESS_MAIN(TestCliRun)
#include "test_cli_run.moc"
