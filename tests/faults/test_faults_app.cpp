// Fault injection on the desktop app: ended by a logout (SIGTERM), Ctrl+C in its terminal, its
// window closed, killed outright or crashed (SIGSEGV, SIGABRT) while a generator runs: every
// process of the run is gone within the grace period, the trace says why, and the history keeps
// the run as interrupted (after a kill or a crash, from the next start on: that start finds the
// app that ran it gone, and its settings and history files whole).
#include <algorithm>

#include <QDirIterator>
#include <QJsonDocument>
#include <QJsonObject>
#include <QProcess>
#include <QScopeGuard>
#include <QSettings>
#include <QTemporaryDir>
#include <QtTest>
#include <csignal>
#include <sys/resource.h>

#include "fault_support.h"
#include "guard/process/signal_block.h"
#include "guard/runner/leftover_group.h"
#include "tests/file_support.h"
#include "ui/app/main_window.h"
#include "ui/app/studio_cli.h"
#include "ui/studio/run_history.h"

using stageload::studio::RunHistory;
using stageload::studio::RunRecord;

namespace {

const QString kFakePort = STAGELOAD_SOURCE_DIR "/tests/generators/fake_port.py";
const QString kPicture = STAGELOAD_SOURCE_DIR "/resources/samples/knight_alpha.png";

}  // namespace

class TestFaultsApp : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    /// A generator file running the fake port: a short first stage, then a long "shape" stage
    /// whose child leaves the group.
    QString fakePort(const QString& name) {
        const QString file = dir_.filePath(name + ".json");
        const QJsonObject def{{"name", name},
                              {"command", QJsonArray{"python3", kFakePort, "--image", "{input}", "--out", "{output}",
                                                     "--trace", "{trace}", "--stages", "a:10:0.3,shape:40,c:10",
                                                     "--stage-seconds", "20", "--child-stage", "shape",
                                                     "--child-setsid", "--child-mb", "40"}},
                              {"trace", "{trace}"},
                              {"stage_pattern", "^\\[stage\\] (\\w+)"}};
        testfile::write(file, QJsonDocument(def).toJson());
        return file;
    }

    /// The fake port's child among the run's processes (it runs during "shape").
    static bool childRuns(const QString& token) {
        const auto mine = faults::processesOf(token);
        for (const auto& p : stageload::listProcesses(true))
            if (std::find(mine.begin(), mine.end(), p.pid) != mine.end() &&
                QString::fromStdString(p.cmdline).contains(QLatin1String("--as-child")))
                return true;
        return false;
    }

    /// The one run.json under `root`, read back.
    static std::optional<RunRecord> onlyRun(const QString& root) {
        QDirIterator it(root, {QStringLiteral("run.json")}, QDir::Files, QDirIterator::Subdirectories);
        if (!it.hasNext()) return std::nullopt;
        const QString file = it.next();
        return RunHistory(QFileInfo(QFileInfo(file).absolutePath()).absolutePath())
            .load(QFileInfo(QFileInfo(file).absolutePath()).fileName());
    }

private slots:
    void initTestCase() { QVERIFY(dir_.isValid()); }

    void appEndedWhileAGeneratorRuns_data() {
        QTest::addColumn<int>("sig");
        QTest::newRow("SIGTERM") << int(SIGTERM);
        QTest::newRow("SIGINT") << int(SIGINT);
        QTest::newRow("SIGKILL") << int(SIGKILL);
        // A crash: the app gets no chance to stop its run, as with SIGKILL.
        QTest::newRow("SIGSEGV") << int(SIGSEGV);
        QTest::newRow("SIGABRT") << int(SIGABRT);
    }
    void appEndedWhileAGeneratorRuns() {
        QFETCH(int, sig);
        const QString token = faults::newToken();
        const QString home = dir_.filePath(QStringLiteral("app-%1").arg(sig));
        {
            QSettings s(home + QStringLiteral("/config/Stageload/Stageload Studio.conf"), QSettings::IniFormat);
            s.setValue(QStringLiteral("guard/waitFree"), 0.0);
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("STAGELOAD_KEEPER"));  // found beside the app, as when installed
        env.insert(QString::fromLatin1(faults::kTokenVariable), token);
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
        QProcess app;
        app.setProcessEnvironment(env);
        app.setChildProcessModifier([] {
            const rlimit none{0, 0};
            ::setrlimit(RLIMIT_CORE, &none);  // a crash here leaves no core file behind
        });
        app.start(QStringLiteral(STAGELOAD_STUDIO_EXE),
                  {kPicture, QStringLiteral("--generator"), fakePort(QStringLiteral("held")),
                   QStringLiteral("--generate"), QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForStarted());
        QVERIFY2(faults::waitFor([&] { return childRuns(token); }, 90000),
                 qPrintable(QString::fromUtf8(app.readAllStandardError())));
        QTest::qWait(1200);  // the guard looks for escaped descendants twice a second
        ::kill(static_cast<pid_t>(app.processId()), sig);
        const qint64 ms = faults::msUntilGone(token, 15000);
        if (!app.waitForFinished(20000)) app.kill();
        app.waitForFinished();
        const QString err = QString::fromUtf8(app.readAllStandardError());
        QVERIFY2(ms >= 0, qPrintable(QStringLiteral("%1 process(es) left; %2").arg(faults::processesOf(token).size()).arg(err)));
        qInfo("app, signal %d: every process of the run gone %lld ms after it", sig, static_cast<long long>(ms));
        QVERIFY2(ms < 7000, qPrintable(QString::number(ms)));

        auto run = onlyRun(home + QStringLiteral("/data"));
        QVERIFY(run);
        const QString reason = faults::stopReasonOf(run->trace);
        if (sig == SIGKILL || sig == SIGSEGV || sig == SIGABRT) {
            QCOMPARE(app.exitStatus(), QProcess::CrashExit);
            QCOMPARE(run->status, RunRecord::statusRunning());  // nobody was left to say otherwise
            QVERIFY2(reason.contains(QLatin1String("its keeper stopped group")), qPrintable(reason));
            // The next start of the app finds the app that ran it gone, and its settings whole.
            QProcess again;
            again.setProcessEnvironment(env);
            again.start(QStringLiteral(STAGELOAD_STUDIO_EXE), {QStringLiteral("--quit-when-done")});
            QVERIFY2(again.waitForFinished(60000) && again.exitCode() == 0, qPrintable(QString::fromUtf8(again.readAllStandardError())));
            QSettings settings(home + QStringLiteral("/config/Stageload/Stageload Studio.conf"), QSettings::IniFormat);
            QCOMPARE(settings.status(), QSettings::NoError);
            QCOMPARE(settings.value(QStringLiteral("guard/waitFree")).toDouble(), 0.0);
            run = onlyRun(home + QStringLiteral("/data"));
            QVERIFY(run);
            QCOMPARE(run->status, RunRecord::statusInterrupted());
            QVERIFY2(run->message.contains(QLatin1String("killed")) && run->message.contains(QLatin1String("keeper")),
                     qPrintable(run->message));
        } else {
            QVERIFY2(app.exitStatus() == QProcess::NormalExit && app.exitCode() == 128 + sig,
                     qPrintable(QStringLiteral("%1 exit %2: %3")
                                    .arg(app.exitStatus() == QProcess::NormalExit ? QStringLiteral("normal") : QStringLiteral("crash"))
                                    .arg(app.exitCode())
                                    .arg(err.right(3000))));
            QCOMPARE(run->status, RunRecord::statusInterrupted());
            const QString name = sig == SIGTERM ? QStringLiteral("SIGTERM") : QStringLiteral("SIGINT");
            QVERIFY2(run->message.contains(name), qPrintable(run->message));
            QVERIFY2(reason == QLatin1String("interrupted: stageload-studio got ") + QString::fromStdString(stageload::SignalBlock::describe(sig)),
                     qPrintable(reason));
            QCOMPARE(RunHistory(QFileInfo(run->dir).absolutePath()).markInterrupted().size(), 0);  // already said
        }
    }

    // The app and its keeper killed at once (everything the user runs killed, both chosen by the
    // OOM killer): a generator that prints nothing (a program that prints dies of the broken
    // pipe) runs on with nothing to guard it. The next start finds it from the run's trace,
    // offers to stop it, and stopping it leaves nothing.
    void aGroupLeftUnguardedIsStoppedAtTheNextStart() {
        const QString token = faults::newToken();
        const QString home = dir_.filePath(QStringLiteral("leftover"));
        {
            QSettings s(home + QStringLiteral("/config/Stageload/Stageload Studio.conf"), QSettings::IniFormat);
            s.setValue(QStringLiteral("guard/waitFree"), 0.0);
        }
        QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("STAGELOAD_KEEPER"));
        env.insert(QString::fromLatin1(faults::kTokenVariable), token);
        env.insert(QStringLiteral("XDG_CONFIG_HOME"), home + QStringLiteral("/config"));
        env.insert(QStringLiteral("XDG_DATA_HOME"), home + QStringLiteral("/data"));
        const QString quiet = dir_.filePath(QStringLiteral("quiet.json"));
        testfile::write(quiet, R"({"name": "quiet", "command": ["sleep", "300"]})");
        const auto sleeperRuns = [&] {
            const auto mine = faults::processesOf(token);
            for (const auto& p : stageload::listProcesses(true))
                if (std::find(mine.begin(), mine.end(), p.pid) != mine.end() && p.cmdline == "sleep 300") return true;
            return false;
        };
        const auto leaveNothing = qScopeGuard([&] {  // a failed check must not leave the sleeper
            for (const pid_t pid : faults::processesOf(token)) ::kill(pid, SIGKILL);
        });
        QProcess app;
        app.setProcessEnvironment(env);
        app.start(QStringLiteral(STAGELOAD_STUDIO_EXE), {kPicture, QStringLiteral("--generator"), quiet,
                                                         QStringLiteral("--generate"), QStringLiteral("--quit-when-done")});
        QVERIFY(app.waitForStarted());
        QVERIFY2(faults::waitFor(sleeperRuns, 90000), qPrintable(QString::fromUtf8(app.readAllStandardError())));
        // The runner names the group in the run's trace just after it starts it; killed in
        // between (the test once was, under load), the app leaves nothing to find it by.
        const auto traced = [&] {
            const auto run = onlyRun(home + QStringLiteral("/data"));
            return run && stageload::findLeftoverGroup(run->trace.toStdString()).has_value();
        };
        QVERIFY2(faults::waitFor(traced, 30000), "the run's trace never named its group");
        const auto mine = faults::processesOf(token);
        int keepers = 0;
        for (const auto& p : stageload::listProcesses(true))
            if (std::find(mine.begin(), mine.end(), p.pid) != mine.end() && p.cmdline.find("stageload-keeper") != std::string::npos) {
                ::kill(p.pid, SIGKILL);  // first, so it cannot stop the group when the app dies
                ++keepers;
            }
        QCOMPARE(keepers, 1);
        ::kill(static_cast<pid_t>(app.processId()), SIGKILL);
        QVERIFY(app.waitForFinished(20000));
        QTest::qWait(500);
        QVERIFY2(sleeperRuns(), "the run should go on, unguarded");

        const QByteArray oldData = qgetenv("XDG_DATA_HOME");
        qputenv("XDG_DATA_HOME", (home + QStringLiteral("/data")).toUtf8());
        stageload::app::nameApplication();  // the app's folders, as the next start sees them
        {
            stageload::app::MainWindow w;
            w.setScripted(true);  // the question's "Stop" is stopLeftovers()
            QCOMPARE(w.leftoverRuns().size(), 1);
            QCOMPARE(w.stopLeftovers(), 1);
            QVERIFY(w.leftoverRuns().isEmpty());
        }
        const qint64 ms = faults::msUntilGone(token, 10000);
        QVERIFY2(ms >= 0, qPrintable(QStringLiteral("%1 process(es) left").arg(faults::processesOf(token).size())));
        const auto run = onlyRun(home + QStringLiteral("/data"));
        QVERIFY(run);
        QCOMPARE(run->status, RunRecord::statusInterrupted());
        QVERIFY2(run->message.contains(QLatin1String("still running at the next start and was stopped")),
                 qPrintable(run->message));
        stageload::app::MainWindow again;  // nothing left to offer
        QVERIFY(again.leftoverRuns().isEmpty());
        qputenv("XDG_DATA_HOME", oldData);
    }

    // The window closed while a generator runs: the run is stopped first and kept as
    // interrupted; the window closes once it has ended.
    void closingTheWindowStopsTheRunFirst() {
        qputenv("XDG_DATA_HOME", dir_.filePath(QStringLiteral("in-process")).toUtf8());
        const QString token = faults::newToken();
        qputenv(faults::kTokenVariable, token.toUtf8());
        stageload::app::MainWindow w;
        w.setScripted(true);  // no question before quitting
        w.show();
        QVERIFY(w.openPicture(kPicture));
        QVERIFY(w.useGenerator(fakePort(QStringLiteral("closed"))));
        QVERIFY(w.generate());
        QVERIFY(faults::waitFor([&] {
            QCoreApplication::processEvents();
            return childRuns(token);
        }, 90000));
        QTest::qWait(1200);
        w.close();
        QTRY_VERIFY_WITH_TIMEOUT(!w.isRunning(), 15000);
        QTRY_VERIFY_WITH_TIMEOUT(!w.isVisible(), 5000);
        QVERIFY(faults::msUntilGone(token, 5000) >= 0);
        const auto runs = RunHistory().list();
        QVERIFY(!runs.isEmpty());
        QCOMPARE(runs.first().status, RunRecord::statusInterrupted());
        QVERIFY2(runs.first().message.contains(QLatin1String("window was closed")), qPrintable(runs.first().message));
        QCOMPARE(faults::stopReasonOf(runs.first().trace), QStringLiteral("interrupted: stageload-studio's window was closed"));
        qunsetenv(faults::kTokenVariable);
    }
};

QTEST_MAIN(TestFaultsApp)
#include "test_faults_app.moc"
