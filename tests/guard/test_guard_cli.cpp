// `stageload guard` and `stageload summary` as a user runs them: usage errors exit 2 before any
// waiting, the guard's exit codes, and the summary table of a real trace.
#include <csignal>

#include <QElapsedTimer>
#include <QFile>
#include <QTemporaryDir>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QtTest>

#include "tests/file_support.h"
#include "tests/process_support.h"

namespace {

using Result = testproc::ProgramResult;
using testproc::stageload;

}  // namespace

class TestGuardCli : public QObject {
    Q_OBJECT

private slots:
    void usageErrorsExit2WithAMessage_data() {
        QTest::addColumn<QStringList>("args");
        QTest::addColumn<QString>("message");
        const QStringList cmd{"--", "true"};
        QTest::newRow("percent") << (QStringList{"guard", "--wait-free", "140"} + cmd)
                                 << "out of range";
        QTest::newRow("negative") << (QStringList{"guard", "--kill-free", "-5"} + cmd)
                                  << "out of range";
        QTest::newRow("size") << (QStringList{"guard", "--swap-budget", "8X"} + cmd)
                              << "not a size";
        QTest::newRow("limit") << (QStringList{"guard", "--swap-limit", "lots"} + cmd)
                               << "not a size";
        QTest::newRow("duration") << (QStringList{"guard", "--quiet-for", "5x"} + cmd)
                                  << "not a duration";
        QTest::newRow("poll") << (QStringList{"guard", "--poll", "0"} + cmd) << "zero poll";
        QTest::newRow("regex") << (QStringList{"guard", "--busy", "(unclosed"} + cmd)
                               << "bad regex";
        QTest::newRow("trace interval")
            << (QStringList{"guard", "--trace", "t.jsonl", "--trace-interval", "5ms"} + cmd)
            << "out of range";
        QTest::newRow("command") << QStringList{"guard", "--wait-free", "10"} << "needs a command";
        QTest::newRow("flag") << (QStringList{"guard", "--no-such-flag"} + cmd) << "no-such-flag";
    }

    void usageErrorsExit2WithAMessage() {
        QFETCH(QStringList, args);
        QFETCH(QString, message);
        // --start-timeout 0 is not given: a usage error must come before any waiting anyway.
        const Result r = stageload(QStringList(args));
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(message) || r.out.contains(message), qPrintable(r.err + r.out));
        QVERIFY(r.ms < 5000);
    }

    void guardPassesTheCommandsExitCode() {
        const Result r =
            stageload({"guard", "--wait-free", "0", "--poll", "100ms", "--", "sh", "-c", "exit 5"});
        QCOMPARE(r.code, 5);
        QVERIFY2(r.err.contains("guard: start"), qPrintable(r.err));
        QVERIFY2(r.err.contains("Z guard: exit"), qPrintable(r.err));
    }

    void guardGives127ForAMissingCommand() {
        const Result r = stageload({"guard", "--wait-free", "0", "--", "/nonexistent/cmd"});
        QCOMPARE(r.code, 127);
        QVERIFY2(r.err.contains("/nonexistent/cmd"), qPrintable(r.err));
    }

    void guardGives4WhenThereIsNoRoom() {
        const Result r = stageload({"guard", "--wait-free", "100", "--start-timeout", "300ms",
                                    "--poll", "100ms", "--", "true"});
        QCOMPARE(r.code, 4);
        QVERIFY2(r.err.contains("--wait-free"), qPrintable(r.err));
    }

    void guardWritesATraceOfTheGroup() {
        QTemporaryDir dir;
        const QString trace = dir.filePath("g.jsonl");
        const Result r = stageload({"guard", "--wait-free", "0", "--poll", "100ms", "--trace",
                                    trace, "--", "sleep", "1.2"});
        QCOMPARE(r.code, 0);
        const Result s = stageload({"summary", trace});
        QCOMPARE(s.code, 0);
        QVERIFY2(s.out.contains("ran to:        end"), qPrintable(s.out));
    }

    // A guard-stopped run's summary says so, and why (it once read "ran to: end").
    void aGuardStopIsSummarisedAsOne() {
        QTemporaryDir dir;
        const QString trace = dir.filePath("stopped.jsonl");
        const Result r = stageload({"guard", "--wait-free", "0", "--kill-free", "100", "--poll",
                                    "100ms", "--trace", trace, "--", "sleep", "5"});
        QCOMPARE(r.code, 3);
        const Result s = stageload({"summary", trace});
        QCOMPARE(s.code, 0);
        QVERIFY2(s.out.contains("ran to:        setup (stopped by the guard: available"), qPrintable(s.out));
        const Result j = stageload({"summary", "--json", trace});
        QVERIFY2(j.out.contains("\"stopped_by_guard\": true"), qPrintable(j.out));
    }

    // In a terminal the command owns it while it runs: a prompt gets its answer instead of
    // the command being stopped by SIGTTIN (which hangs the guard until the test times out).
    void aCommandReadingTheTerminalGetsIt() {
        QProcess p;
        const QString inner = QString("%1 guard --wait-free 0 --poll 100ms -- sh -c "
                                      "'read answer; echo got:$answer'")
                                  .arg(STAGELOAD_EXE);
        p.start("script", {"-qec", inner, "/dev/null"});  // util-linux: runs it on a new pty
        QVERIFY(p.waitForStarted());
        p.write("hello\n");
        const bool finished = p.waitForFinished(15000);
        if (!finished) {
            p.kill();
            p.waitForFinished();
        }
        const QString out = QString::fromUtf8(p.readAll());
        QVERIFY2(finished, "the guarded command was stopped reading the terminal");
        QCOMPARE(p.exitCode(), 0);
        QVERIFY2(out.contains("got:hello"), qPrintable(out));
    }

    void aLostTraceIsReportedAndFailsTheRun() {
        const Result r = stageload({"guard", "--wait-free", "0", "--poll", "100ms", "--trace", "/dev/full",
                                    "--", "sh", "-c", "sleep 0.3"});
        QCOMPARE(r.code, 73);  // as `run` exits when its trace is lost
        QVERIFY2(r.err.contains("could not be written to /dev/full"), qPrintable(r.err));
    }

    void signalsIgnoredAtStartStayIgnored() {
        // As under nohup: SIGHUP is ignored when the guard starts, so a hangup must neither end
        // the guard nor its command; SIGTERM still stops both.
        const QString guard = QStringLiteral("trap '' HUP; exec '%1' guard --wait-free 0 --poll 100ms -- sleep 2")
                                  .arg(QStringLiteral(STAGELOAD_EXE));
        // Signals go once the guard has started its command (it says so), not after a fixed
        // wait: on a loaded machine it may still be starting, with no handlers yet.
        const auto startGuard = [&guard](QProcess& p, QByteArray& err) {
            p.start(QStringLiteral("sh"), {QStringLiteral("-c"), guard});
            if (!p.waitForStarted()) return false;
            QElapsedTimer clock;
            clock.start();
            while (!err.contains("guard: start:") && clock.elapsed() < 20000) {
                p.waitForReadyRead(100);
                err += p.readAllStandardError();
            }
            return err.contains("guard: start:");
        };
        QProcess p;
        QByteArray err;
        QVERIFY(startGuard(p, err));
        ::kill(static_cast<pid_t>(p.processId()), SIGHUP);
        QVERIFY(p.waitForFinished(10000));
        err += p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QVERIFY2(p.exitCode() == 0, err.constData());

        err.clear();
        QVERIFY(startGuard(p, err));
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(10000));
        QCOMPARE(p.exitCode(), 128 + SIGTERM);
    }

    // `stageload` links no LibTorch (the commands that run models are the engine's), and the
    // termination signals it blocks from its first instruction are its own: the guarded
    // command starts with none of them blocked.
    void theGuardLoadsNoLibTorchAndItsCommandGetsEverySignal() {
        const Result r = stageload({"guard", "--wait-free", "0", "--poll", "100ms", "--", "sh", "-c",
                                    "cat /proc/$PPID/comm; grep -c libtorch /proc/$PPID/maps; "
                                    "grep SigBlk /proc/self/status"});
        QVERIFY2(r.code == 0 || r.code == 1, qPrintable(r.err));  // grep -c exits 1 on 0 lines
        const QStringList lines = r.out.trimmed().split('\n');
        QCOMPARE(lines.size(), 3);
        QCOMPARE(lines[0], QStringLiteral("stageload"));  // the guard itself is the parent
        QCOMPARE(lines[1], QStringLiteral("0"));
        bool ok = false;
        const qulonglong blocked = lines[2].section(':', 1).trimmed().toULongLong(&ok, 16);
        QVERIFY2(ok, qPrintable(lines[2]));
        for (int sig : {SIGHUP, SIGINT, SIGQUIT, SIGTERM})
            QVERIFY2(!(blocked & (1ull << (sig - 1))), qPrintable(QStringLiteral("signal %1 blocked: %2").arg(sig).arg(lines[2])));
    }

    // A SIGTERM that comes while the guard starts is recorded by the guard, which stops its
    // command and exits 143 itself, instead of killing it: when it linked LibTorch it spent its
    // first second loading it, with no handler yet.
    void aSignalWhileTheGuardStartsIsItsToHandle() {
        QProcess p;
        p.start(QStringLiteral(STAGELOAD_EXE),
                {"guard", "--wait-free", "0", "--poll", "100ms", "--", "sleep", "30"});
        QVERIFY(p.waitForStarted());
        QTest::qSleep(150);
        ::kill(static_cast<pid_t>(p.processId()), SIGTERM);
        QVERIFY(p.waitForFinished(10000));
        const QByteArray err = p.readAllStandardError();
        QCOMPARE(p.exitStatus(), QProcess::NormalExit);
        QCOMPARE(p.exitCode(), 128 + SIGTERM);
        QVERIFY2(err.contains("guard ended by signal 15"), err.constData());
    }

    // Without its engine, a command that runs models says what is missing and exits 127.
    void aMissingEngineIsNamed() {
        auto env = QProcessEnvironment::systemEnvironment();
        env.insert(QStringLiteral("STAGELOAD_ENGINE"), QStringLiteral("/nonexistent/stageload-engine"));
        QTemporaryDir dir;
        const QString picture = QStringLiteral(STAGELOAD_SAMPLES_DIR "/knight_tiny_white.png");
        for (const QStringList& args : {QStringList{"probe", "model.pt"}, QStringList{"bench", "cascade", "--help"},
                                        QStringList{"run", picture, "-o", dir.filePath("hero.glb")}}) {
            const Result r = stageload(args, 30000, env);
            QCOMPARE(r.code, 127);
            QVERIFY2(r.err.contains("/nonexistent/stageload-engine") && r.err.contains("No such file"),
                     qPrintable(r.err));
        }
        // The Torch-free commands do not need it.
        QCOMPARE(stageload({"guard", "--wait-free", "0", "--", "true"}, 30000, env).code, 0);
        QVERIFY(stageload({"--help"}, 30000, env).out.contains("probe"));
    }

    void traceIntervalSetsTheSamplingRate() {
        QTemporaryDir dir;
        const QString trace = dir.filePath("fast.jsonl");
        const Result r = stageload({"guard", "--wait-free", "0", "--poll", "100ms", "--trace",
                                    trace, "--trace-interval", "50ms", "--", "sleep", "1"});
        QCOMPARE(r.code, 0);
        const QString text = QString::fromUtf8(testfile::read(trace));
        QVERIFY2(text.startsWith(R"({"type":"start")") && text.contains(R"("interval":0.05)"),
                 qPrintable(text.left(200)));
        QVERIFY2(text.count(R"("type":"sample")") >= 10, "50 ms over 1 s: at least 10 samples");
    }

    void summaryOfARealTrace() {
        const Result r =
            stageload({"summary", QString(STAGELOAD_TRACE_DATA) + "/staged-1.trace.jsonl"});
        QCOMPARE(r.code, 0);
        for (const char* expected : {"texture", "30.08", "export", "69.57", "595.9", "24.4"})
            QVERIFY2(r.out.contains(expected), qPrintable(expected + QString(" in\n") + r.out));
        const Result j = stageload(
            {"summary", "--json", QString(STAGELOAD_TRACE_DATA) + "/eager-1.trace.jsonl"});
        QCOMPARE(j.code, 0);
        QVERIFY2(j.out.contains("\"ran_to\": \"texture (stopped)\""), qPrintable(j.out));
        QVERIFY2(j.out.contains("\"peak_footprint_gb\": 30.55"), qPrintable(j.out));
    }

    // Two cascade traces at scales 1 and 3 (texture peaks 300 and 700 MiB): the forecast at
    // scale 2 is their midpoint; a missing --trace is named; --param needs --generator.
    void forecastFromTraces() {
        QTemporaryDir dir;
        QStringList args{"forecast", "--cascade-scale", "2", "--no-app-history", "--json"};
        for (const int scale : {1, 3}) {
            const QString path = dir.filePath(QStringLiteral("c%1.jsonl").arg(scale));
            const qint64 peak = (100 + 200 * scale) * (qint64(1) << 20);
            testfile::write(path, QStringLiteral("{\"type\":\"start\",\"pipeline\":\"cascade\",\"load\":\"staged\",\"scale_gib\":%1}\n"
                                   "{\"type\":\"event\",\"kind\":\"stage\",\"stage\":\"texture\",\"t\":0}\n"
                                   "{\"type\":\"sample\",\"t\":0.5,\"footprint\":%2}\n{\"type\":\"end\"}\n")
                        .arg(scale)
                        .arg(peak)
                        .toUtf8());
            args << "--trace" << path;
        }
        const Result r = stageload(args);
        QCOMPARE(r.code, 0);
        const auto json = QJsonDocument::fromJson(r.out.toUtf8()).object();
        QCOMPARE(json["runs"].toInt(), 2);
        QCOMPARE(json["peak"].toDouble(), std::round(500.0 * (1 << 20) * 1.08));  // the fit and its 8 % margin
        QCOMPARE(json["peak_stage"].toString(), QStringLiteral("texture"));

        const Result missing = stageload({"forecast", "--trace", dir.filePath("nope.jsonl")});
        QCOMPARE(missing.code, 1);
        QVERIFY2(missing.err.contains("nope.jsonl"), qPrintable(missing.err));
        const Result usage = stageload({"forecast", "--param", "scale=2"});
        QCOMPARE(usage.code, 2);
    }

    // --need forecast reads the run from its command line (`stageload run` and its settings):
    // the runs beside its --trace give the need. Another command is refused before any waiting.
    // `stageload run` with guard flags runs itself under the guard.
    void needForecastReadsTheRunCommand() {
        QTemporaryDir dir;
        const QString picture = QStringLiteral(STAGELOAD_SAMPLES_DIR "/knight_tiny_alpha.png");
        // Runs that differ in their triangle budget, at the smallest texture: quick, and fitted
        // over the budget from the second on.
        const auto run = [&](const QString& triangles) {
            return QStringList{STAGELOAD_EXE, "run", picture, "-o", dir.filePath("k" + triangles + ".glb"),
                               "--texture-size", "1024", "--triangles", triangles, "--trace",
                               dir.filePath("k" + triangles + ".jsonl")};
        };
        const auto env = [&] {
            auto e = QProcessEnvironment::systemEnvironment();
            e.insert("XDG_DATA_HOME", dir.filePath("data"));  // not the user's history
            return e;
        }();
        const auto guarded = [&](const QString& triangles) {
            return stageload(QStringList{"guard", "--need", "forecast", "--wait-free", "0", "--poll", "100ms", "--"} +
                                 run(triangles),
                             300000, env);
        };
        const Result first = guarded("2000");
        QCOMPARE(first.code, 0);
        QVERIFY2(first.err.contains("no earlier run of character"), qPrintable(first.err));
        QCOMPARE(guarded("3000").code, 0);
        const Result third = guarded("4000");
        QCOMPARE(third.code, 0);
        QVERIFY2(third.err.contains("[guard] need ") && third.err.contains("from 2 earlier runs"),
                 qPrintable(third.err));
        QVERIFY(QFile::exists(dir.filePath("k4000.glb")));
        // `stageload run` itself takes the guard's flags: the same forecast, and the built-in
        // run goes on as a guarded child (so the guard can stop it: exit 3).
        QStringList direct = run("4000").mid(1);
        direct << "--need" << "forecast" << "--wait-free" << "0" << "--poll" << "100ms";
        direct.replace(direct.indexOf(dir.filePath("k4000.glb")), dir.filePath("direct.glb"));
        const Result itself = stageload(direct, 300000, env);
        QCOMPARE(itself.code, 0);
        QVERIFY2(itself.err.contains("from 3 earlier runs"), qPrintable(itself.err));
        QVERIFY(QFile::exists(dir.filePath("direct.glb")));
        const Result stopped = stageload({"run", picture, "-o", dir.filePath("stopped.glb"), "--wait-free", "0",
                                          "--kill-free", "100", "--poll", "100ms"});
        QCOMPARE(stopped.code, 3);
        QVERIFY2(stopped.err.contains("stopped by the guard"), qPrintable(stopped.err));
        QVERIFY(!QFile::exists(dir.filePath("stopped.glb")));

        const Result other = stageload({"guard", "--need", "forecast", "--", "sh", "-c", "exit 0"});
        QCOMPARE(other.code, 2);
        QVERIFY2(other.err.contains("--need forecast: the guard forecasts `stageload run ...`"), qPrintable(other.err));
    }

    void summaryNamesTheBrokenLineOrMissingFile() {
        QTemporaryDir dir;
        const QString path = dir.filePath("broken.jsonl");
        testfile::write(
            path, "{\"type\":\"sample\",\"t\":0,\"footprint\":1}\n{\"type\":\"sam\n{\"type\":\"end\"}\n");
        Result r = stageload({"summary", path});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("line 2"), qPrintable(r.err));
        r = stageload({"summary", dir.filePath("missing.jsonl")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("missing.jsonl"), qPrintable(r.err));
    }
};

QTEST_APPLESS_MAIN(TestGuardCli)
#include "test_guard_cli.moc"
