// Fault injection, from outside, on the real `stageload` program: every way a guarded run can be
// ended (the CLI killed or signalled, the generator killed or stopped, the trace's disk full, a
// hundred guard stops in a row) leaves no process of the run behind — counted from /proc by a
// token in their environment, not from the group id — and the trace says how it ended.
// The program finds its keeper as an installed copy does (STAGELOAD_KEEPER is taken away).
#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>

#include "fault_support.h"
#include "tests/file_support.h"

namespace {

const QString kFakePort = STAGELOAD_SOURCE_DIR "/tests/generators/fake_port.py";
const QString kPicture = STAGELOAD_SOURCE_DIR "/resources/samples/knight_alpha.png";

// A shell that starts a sleeper that leaves its group (setsid) and one that stays, then waits:
// five processes with `stageload guard` and its keeper.
const QStringList kHolder{"sh", "-c", "setsid sleep 300 & sleep 300 & wait"};

const char* signalName(int sig) {
    switch (sig) {
        case SIGTERM: return "SIGTERM";
        case SIGINT: return "SIGINT";
        case SIGHUP: return "SIGHUP";
        case SIGKILL: return "SIGKILL";
        default: return "signal";
    }
}

}  // namespace

class TestFaults : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    /// `stageload ARGS` started with the run's token in its environment, and `extra` too.
    void start(QProcess& p, const QString& token, const QStringList& args, const QProcessEnvironment& extra = {}) {
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.insert(extra);
        env.remove(QStringLiteral("STAGELOAD_KEEPER"));
        env.insert(QString::fromLatin1(faults::kTokenVariable), token);
        env.insert(QStringLiteral("XDG_DATA_HOME"), dir_.filePath(QStringLiteral("data")));
        p.setProcessEnvironment(env);
        p.setProcessChannelMode(QProcess::SeparateChannels);
        p.start(QStringLiteral(STAGELOAD_EXE), args);
        QVERIFY2(p.waitForStarted(), qPrintable(p.errorString()));
    }

    /// A generator file running the fake port with `flags` (stages of `seconds` each).
    QString fakePort(const QString& name, const QStringList& flags) {
        QStringList args{"\"python3\"", "\"" + kFakePort + "\"", "\"--image\"", "\"{input}\"",
                         "\"--out\"", "\"{output}\"", "\"--trace\"", "\"{trace}\""};
        for (const auto& f : flags) args << "\"" + f + "\"";
        const QString file = dir_.filePath(name + ".json");
        testfile::write(file, QStringLiteral("{\"name\": \"%1\", \"command\": [%2], \"trace\": \"{trace}\", "
                                             "\"stage_pattern\": \"^\\\\[stage\\\\] (\\\\w+)\"}")
                                  .arg(name, args.join(QStringLiteral(", ")))
                                  .toUtf8());
        return file;
    }

    /// The fake port's own processes among the run's (`child`: the one it starts, else its leader).
    static std::vector<pid_t> fakePortProcesses(const QString& token, bool child) {
        std::vector<pid_t> out;
        const auto mine = faults::processesOf(token);
        for (const auto& p : stageload::listProcesses(true)) {
            if (std::find(mine.begin(), mine.end(), p.pid) == mine.end()) continue;
            const QString cmd = QString::fromStdString(p.cmdline);
            if (cmd.contains(QLatin1String("fake_port.py")) && cmd.contains(QLatin1String("--as-child")) == child)
                out.push_back(p.pid);
        }
        return out;
    }

    /// Ends `p` (SIGKILL when it does not end itself in time) so no test leaves one behind.
    static void reap(QProcess& p) {
        if (!p.waitForFinished(20000)) {
            p.kill();
            p.waitForFinished();
        }
    }

    /// `stageload run --generator` of the fake port (`flags`) writing NAME.glb, with `extra`
    /// arguments; true once the child it starts in its "shape" stage runs.
    bool runUntilChildRuns(QProcess& p, const QString& token, const QString& name, const QStringList& flags,
                           const QStringList& extra) {
        start(p, token, QStringList{"run", kPicture, "--generator", fakePort(name, flags), "-o",
                                    dir_.filePath(name + QStringLiteral(".glb")), "--wait-free", "0"} + extra);
        if (faults::waitFor([&] { return !fakePortProcesses(token, true).empty(); }, 60000)) return true;
        qWarning("%s", qPrintable(QString::fromUtf8(p.readAllStandardError())));
        return false;
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    // `stageload guard` ended by a logout (SIGTERM), Ctrl+C, its terminal closing, or SIGKILL:
    // its group and the sleeper that left it are gone within the grace period; the trace ends
    // with a stop mark saying why (the keeper writes it when the guard could not).
    void guardEndedAnyWayLeavesNothing_data() {
        QTest::addColumn<int>("sig");
        for (int sig : {SIGTERM, SIGINT, SIGHUP, SIGKILL}) QTest::newRow(signalName(sig)) << sig;
    }
    void guardEndedAnyWayLeavesNothing() {
        QFETCH(int, sig);
        const QString token = faults::newToken();
        const QString trace = dir_.filePath(QStringLiteral("guard-%1.jsonl").arg(sig));
        QProcess p;
        start(p, token, QStringList{"guard", "--wait-free", "0", "--trace", trace, "--"} + kHolder);
        QVERIFY2(faults::waitFor([&] { return faults::processesOf(token).size() >= 5; }, 15000),
                 qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QTest::qWait(1200);  // the guard looks for escaped descendants twice a second
        ::kill(static_cast<pid_t>(p.processId()), sig);
        const qint64 ms = faults::msUntilGone(token, 15000);
        reap(p);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(ms >= 0, qPrintable(QStringLiteral("%1 process(es) left; %2").arg(faults::processesOf(token).size()).arg(err)));
        qInfo("%s: every process of the run gone %lld ms after the signal", signalName(sig), static_cast<long long>(ms));
        QVERIFY2(ms < 7000, qPrintable(QString::number(ms)));  // the 5 s grace and a little
        const QString reason = faults::stopReasonOf(trace);
        if (sig == SIGKILL) {
            QVERIFY2(reason.startsWith(QLatin1String("interrupted: stageload (pid")) &&
                         reason.contains(QLatin1String("its keeper stopped group")), qPrintable(reason));
        } else {
            QCOMPARE(p.exitCode(), 128 + sig);
            QVERIFY2(reason.startsWith(QLatin1String("interrupted: the guard got ") + QLatin1String(signalName(sig))),
                     qPrintable(reason));
        }
    }

    // `stageload run --generator` killed while its generator and the child that left its group
    // hold memory: the keeper stops them both and ends the trace with the reason.
    void generatorRunKilledLeavesNothing() {
        const QString token = faults::newToken();
        const QString trace = dir_.filePath(QStringLiteral("killed.jsonl"));
        QProcess p;
        QVERIFY(runUntilChildRuns(p, token, QStringLiteral("killed"),
                                  {"--stages", "a:10:0.3,shape:40,c:10", "--stage-seconds", "20", "--child-stage", "shape",
                                   "--child-setsid", "--child-mb", "40"},
                                  {"--trace", trace}));
        QTest::qWait(1200);
        ::kill(static_cast<pid_t>(p.processId()), SIGKILL);
        const qint64 ms = faults::msUntilGone(token, 15000);
        reap(p);
        QVERIFY2(ms >= 0, qPrintable(QStringLiteral("%1 process(es) left").arg(faults::processesOf(token).size())));
        qInfo("run --generator killed: every process gone %lld ms after SIGKILL", static_cast<long long>(ms));
        const QString reason = faults::stopReasonOf(trace);
        QVERIFY2(reason.contains(QLatin1String("its keeper stopped group")), qPrintable(reason));
    }

    // The generator itself killed mid-stage: a failed run that says how it ended, nothing left.
    void generatorKilledMidStageIsAFailure() {
        const QString token = faults::newToken();
        QProcess p;
        QVERIFY(runUntilChildRuns(p, token, QStringLiteral("shot"),
                                  {"--stages", "a:10:0.3,shape:40", "--stage-seconds", "20", "--child-stage", "shape"}, {}));
        for (pid_t leader : fakePortProcesses(token, false)) ::kill(leader, SIGKILL);
        QVERIFY(p.waitForFinished(20000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 128 + SIGKILL, qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("exited with code 137")), qPrintable(err));
        QVERIFY2(faults::msUntilGone(token, 3000) >= 0, "its child outlived the run");
        QVERIFY(!QFileInfo::exists(dir_.filePath(QStringLiteral("shot.glb"))));
    }

    // The generator stopped (SIGSTOP: what a GPU watchdog's hang looks like from outside) is
    // caught by --stall-kill with its own exit code, and its stopped processes are ended too.
    // Until then it prints a progress line every second, so only the hang can trip the stop.
    void stoppedGeneratorIsCaughtAsStalled() {
        const QString token = faults::newToken();
        QProcess p;
        QVERIFY(runUntilChildRuns(p, token, QStringLiteral("hung"),
                                  {"--stages", "a:10:0.3,shape:40", "--stage-seconds", "10", "--child-stage", "shape"},
                                  {"--stall-kill", "3s", "--poll", "0.5s"}));
        QElapsedTimer t;
        t.start();
        for (bool child : {false, true})
            for (pid_t pid : fakePortProcesses(token, child)) ::kill(pid, SIGSTOP);
        QVERIFY(p.waitForFinished(30000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        const qint64 ms = t.elapsed();
        qInfo("stalled: stopped %lld ms after SIGSTOP (--stall-kill 3s, --poll 0.5s)", static_cast<long long>(ms));
        // The last line came at most a second before the hang: 2..3 s of it, two readings, and the stop.
        QVERIFY2(ms >= 1500 && ms <= 3000 + 2 * 500 + 2000, qPrintable(QString::number(ms)));
        QVERIFY2(p.exitCode() == 5, qPrintable(err));
        QVERIFY2(err.contains(QLatin1String("stalled")), qPrintable(err));
        QVERIFY2(faults::msUntilGone(token, 3000) >= 0, "a stopped process was left");
    }

    // The generator's grandchild, in a session of its own, still holds memory when the
    // generator itself exits: the run ends with the generator's code and takes it along.
    void grandchildHoldingMemoryEndsWithTheRun() {
        const QString token = faults::newToken();
        const QString hog = QStringLiteral(STAGELOAD_TEST_HOG " --step-mb 64 --steps 4 --every 0");
        QProcess p;
        start(p, token, {"guard", "--wait-free", "0", "--poll", "0.2s", "--", "sh", "-c",
                         "setsid " + hog + " & sleep 1.5; exit 0"});
        QVERIFY2(faults::waitFor([&] { return faults::processesOf(token).size() >= 4; }, 10000),
                 qPrintable(QString::fromUtf8(p.readAllStandardError())));
        QVERIFY(p.waitForFinished(20000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 0, qPrintable(err));
        const qint64 ms = faults::msUntilGone(token, 3000);
        QVERIFY2(ms >= 0, qPrintable(QStringLiteral("%1 process(es) left: %2").arg(faults::processesOf(token).size()).arg(err)));
        qInfo("the grandchild was gone %lld ms after the guard returned", static_cast<long long>(ms));
    }

    // The generator crashes half-way through writing its mesh (or truncates it) and exits 0:
    // the run fails naming the file, and the mesh already at -o from an earlier run is kept.
    void halfWrittenMeshKeepsTheEarlierOne() {
        const QString token = faults::newToken();
        const QString out = dir_.filePath(QStringLiteral("half.glb"));
        testfile::write(out, "the earlier run's mesh");
        QProcess p;
        start(p, token, {"run", kPicture, "--generator", fakePort(QStringLiteral("half"), {"--stage-seconds", "0.1", "--half-output"}),
                         "-o", out, "--wait-free", "0"});
        QVERIFY(p.waitForFinished(60000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 1, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err)));
        QVERIFY2(err.contains(QLatin1String("half.run/mesh.glb")) && err.contains(QLatin1String("does not read as a mesh")), qPrintable(err));
        QCOMPARE(testfile::read(out), QByteArray("the earlier run's mesh"));
        QVERIFY(faults::msUntilGone(token, 3000) >= 0);
    }

    // The remover's weights cut off mid-tensor (a download or copy that stopped): the run
    // stops with 78 naming the file, the tensor and how to mend it, and the mesh already at -o
    // is kept.
    void truncatedWeightsAreRefusedByName() {
        const QString installed = qEnvironmentVariable("STAGELOAD_WEIGHTS_DIR") + QStringLiteral("/u2netp.safetensors");
        const QByteArray whole = testfile::read(installed);
        QVERIFY2(whole.size() > 1000000, qPrintable(installed + QStringLiteral(" is not there")));
        const QString weights = dir_.filePath(QStringLiteral("cut-weights"));
        QVERIFY(QDir().mkpath(weights));
        testfile::write(weights + QStringLiteral("/u2netp.safetensors"), whole.left(whole.size() / 2));
        const QString out = dir_.filePath(QStringLiteral("cut.glb"));
        testfile::write(out, "the earlier run's mesh");
        QProcessEnvironment cut;
        cut.insert(QStringLiteral("STAGELOAD_WEIGHTS_DIR"), weights);
        QProcess p;
        // A white background: the remover runs (a picture with alpha needs none).
        const QString white = STAGELOAD_SOURCE_DIR "/resources/samples/knight_white.png";
        start(p, faults::newToken(), {"run", white, "--remover", "u2netp", "-o", out}, cut);
        QVERIFY(p.waitForFinished(120000));
        const QString err = QString::fromUtf8(p.readAllStandardError());
        QVERIFY2(p.exitCode() == 78, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err)));
        QVERIFY2(err.contains(weights + QStringLiteral("/u2netp.safetensors")) && err.contains(QLatin1String("truncated")) &&
                     err.contains(QLatin1String("to replace it, install it with `stageload install-weights`")),
                 qPrintable(err));
        QCOMPARE(testfile::read(out), QByteArray("the earlier run's mesh"));
    }

    // The trace's disk fills up mid-run (a 12 KiB tmpfs; /dev/full where this machine lets
    // nobody mount one): the generator runs to its end, the mesh is kept, the trace on disk is
    // a readable prefix, and the run exits 73 naming the file and why.
    void traceDiskFillingUpMidRunIsSaid() {
        QString traceDir = dir_.filePath(QStringLiteral("small-disk"));
        QVERIFY(QDir().mkpath(traceDir));
        QProcess mount;
        mount.start(QStringLiteral("mount"), {"-t", "tmpfs", "-o", "size=12k", "tmpfs", traceDir});
        const bool mounted = mount.waitForFinished(10000) && mount.exitStatus() == QProcess::NormalExit && mount.exitCode() == 0;
        const QString trace = mounted ? traceDir + QStringLiteral("/run.jsonl") : QStringLiteral("/dev/full");
        if (!mounted) qInfo("no tmpfs could be mounted (%s): the trace goes to /dev/full", qPrintable(QString::fromLocal8Bit(mount.readAllStandardError()).trimmed()));
        const QString token = faults::newToken();
        const QString out = dir_.filePath(QStringLiteral("full.glb"));
        QProcess p;
        start(p, token, {"run", kPicture, "--generator", fakePort(QStringLiteral("full"), {"--stages", "a:10,b:10,c:10", "--stage-seconds", "3"}),
                         "-o", out, "--trace", trace, "--trace-interval", "20ms", "--wait-free", "0"});
        const bool finished = p.waitForFinished(60000);
        const QString err = QString::fromUtf8(p.readAllStandardError());
        const qint64 traceBytes = QFileInfo(trace).size();
        std::size_t samples = 0;
        QString readError;
        if (mounted) try {
                samples = stageload::readTrace(trace.toStdString()).samples.size();
            } catch (const std::exception& e) {
                readError = QString::fromUtf8(e.what());
            }
        if (mounted) QProcess::execute(QStringLiteral("umount"), {traceDir});
        QVERIFY2(finished, qPrintable(err));
        QVERIFY2(p.exitCode() == 73, qPrintable(QStringLiteral("exit %1: %2").arg(p.exitCode()).arg(err)));
        QVERIFY2(err.contains(trace) && err.contains(QLatin1String("No space left")), qPrintable(err));
        QVERIFY2(QFileInfo(out).size() > 0, "the mesh was not kept");
        if (mounted) {
            QVERIFY2(traceBytes > 4096, qPrintable(QStringLiteral("the trace stopped at %1 bytes").arg(traceBytes)));
            QVERIFY2(readError.isEmpty() && samples > 10, qPrintable(QStringLiteral("%1 samples; %2").arg(samples).arg(readError)));
        }
        QVERIFY2(faults::msUntilGone(token, 3000) >= 0, "a process of the run was left");
    }

    // A hundred guard stops in a row, each of a group with a sleeper that left it: not one
    // process of any of them is left (counted from /proc after each stop).
    void hundredStopsLeaveNothing() {
        const QString token = faults::newToken();
        int left = 0;
        QElapsedTimer total;
        total.start();
        for (int i = 0; i < 100; ++i) {
            QProcess p;
            start(p, token, QStringList{"guard", "--wait-free", "0", "--kill-free", "100", "--poll", "0.05", "--"} + kHolder);
            QVERIFY(p.waitForFinished(30000));
            QVERIFY2(p.exitCode() == 3, qPrintable(QString::fromUtf8(p.readAllStandardError())));
            left += static_cast<int>(faults::processesOf(token).size());
        }
        qInfo("100 guard stops in %lld ms; processes left: %d", static_cast<long long>(total.elapsed()), left);
        QCOMPARE(left, 0);
    }
};

QTEST_GUILESS_MAIN(TestFaults)
#include "test_faults.moc"
