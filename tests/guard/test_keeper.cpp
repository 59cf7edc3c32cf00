// stageload-keeper (guard/keeper): its owner's lines parsed, its stop mark read back as one,
// and the real program stopping a group, a setsid'd descendant included, when its owner lets
// go of the socket without "done" — and leaving it alone after "done".
#include <QFile>
#include <QTemporaryDir>
#include <QtTest>
#include <chrono>
#include <optional>
#include <thread>

#include "guard/keeper/keeper_link.h"
#include "guard/keeper/keeper_watch.h"
#include "guard/process/group_command.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_keeper {

namespace {

bool waitFor(const std::function<bool()>& done, int ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
    while (!done()) {
        if (std::chrono::steady_clock::now() > until) return false;
        std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    return true;
}

// A group whose shell starts a sleeper that leaves it, tracked until that one is found.
void startHolder(std::optional<GroupCommand>& cmd) {
    cmd.emplace(std::vector<std::string>{"sh", "-c", "setsid sleep 300 & exec sleep 300"});
    QVERIFY(waitFor([&] {
        cmd->track(listProcesses(false));
        return !cmd->escaped().empty();
    }, 5000));
}

}  // namespace

class TestKeeper : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        QVERIFY2(QFile::exists(QString::fromStdString(keeperProgram().string())), keeperProgram().c_str());
    }

    void parsesItsOwnersLines() {
        auto m = parseKeeperLine("group 4242 5.5");
        QVERIFY(m && m->kind == KeeperMessage::Kind::Group && m->pid == 4242 && m->grace == 5.5);
        m = parseKeeperLine("escaped 77 123456");
        QVERIFY(m && m->kind == KeeperMessage::Kind::Escaped && m->pid == 77 && m->ticks == 123456);
        m = parseKeeperLine("trace 99 /tmp/a run/trace.jsonl");  // the path keeps its spaces
        QVERIFY(m && m->kind == KeeperMessage::Kind::Trace && m->epochNs == 99 && m->path == "/tmp/a run/trace.jsonl");
        QVERIFY(parseKeeperLine("done") && parseKeeperLine("done")->kind == KeeperMessage::Kind::Done);
        for (const char* bad : {"", "group", "group 1 5", "group 0 5", "group -5 1", "group 12 nan", "group 12 -1",
                                "escaped 1 5", "escaped x 5", "trace 5", "trace x /a", "hello"})
            QVERIFY2(!parseKeeperLine(bad), bad);
    }

    void itsStopLineIsAStopMark() {
        const auto line = parseTraceLine(keeperStopLine(interruptedReason("the owner ended"), 12.3456));
        QCOMPARE(int(line.kind), int(TraceLine::Kind::Event));
        QCOMPARE(line.event.t, 12.346);
        const auto stop = stopMarkOf(line.event);
        QVERIFY(stop);
        QCOMPARE(QString::fromStdString(stop->reason), QStringLiteral("interrupted: the owner ended"));
        QVERIFY(isInterruption(stop->reason) && !isInterruption("cancelled"));
    }

    // The owner lets go without "done" (what its death does): the group and the sleeper that
    // left it are stopped, and the trace — cut mid-line, as a killed writer leaves it — ends
    // with the keeper's stop mark on a line of its own.
    void stopsTheGroupWhenItsOwnerLetsGo() {
        std::optional<GroupCommand> cmd;
        startHolder(cmd);
        if (QTest::currentTestFailed()) return;
        const pid_t escaped = cmd->escaped().front();
        const QString trace = dir_.filePath(QStringLiteral("cut.jsonl"));
        {
            QFile f(trace);
            QVERIFY(f.open(QIODevice::WriteOnly));
            f.write("{\"type\":\"start\",\"utc\":\"2026-12-02T10:00:00.000Z\",\"interval\":0.1}\n"
                    "{\"type\":\"sample\",\"t\":0.1,\"footprint\":1000,\"swap_used\":0,\"level\":0}\n"
                    "{\"type\":\"sample\",\"t\":0.2,\"foot");
        }
        std::optional<KeeperLink> keeper(std::in_place, keeperProgram());
        keeper->watch(cmd->pgid(), 2.0);
        keeper->escaped(cmd->escapedStarts());
        keeper->trace(trace.toStdString(), std::chrono::steady_clock::now() - std::chrono::seconds(3));
        std::this_thread::sleep_for(std::chrono::milliseconds(300));
        const auto released = std::chrono::steady_clock::now();
        keeper.reset();  // the socket closes without "done"
        QVERIFY(waitFor([&] {
            cmd->poll();
            return !cmd->groupAlive() && !processRuns(escaped, cmd->escapedStarts().begin()->second);
        }, 5000));
        const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - released).count();
        qInfo("group and escaped descendant gone %.0f ms after the owner let go", ms);
        QVERIFY(waitFor([&] { return !faultsTraceReason(trace).isEmpty(); }, 3000));
        const Trace t = readTrace(trace.toStdString());
        QCOMPARE(t.samples.size(), std::size_t(1));  // the half line is gone, not garbage
        QVERIFY(!t.events.empty());
        QVERIFY2(t.events.back().t >= 3.0, std::to_string(t.events.back().t).c_str());
        const QString reason = faultsTraceReason(trace);
        QVERIFY2(reason.startsWith(QLatin1String("interrupted: ")) && reason.contains(QLatin1String("its keeper stopped group ")),
                 qPrintable(reason));
    }

    // After "done" the keeper leaves at once and stops nothing.
    void leavesTheGroupAloneAfterDone() {
        std::optional<GroupCommand> cmd;
        startHolder(cmd);
        if (QTest::currentTestFailed()) return;
        {
            KeeperLink keeper(keeperProgram());
            keeper.watch(cmd->pgid(), 1.0);
            keeper.escaped(cmd->escapedStarts());
            const pid_t pid = keeper.pid();
            keeper.release();
            QVERIFY(!readProcess(pid));  // reaped
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(1500));
        QVERIFY(cmd->groupAlive());
        QVERIFY(!cmd->escaped().empty());
        QVERIFY(cmd->stop(2.0, [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); }));
    }

    // A keeper that cannot start says which file it looked for.
    void aMissingKeeperIsNamed() {
        try {
            KeeperLink keeper("/nonexistent/stageload-keeper");
            QFAIL("started a keeper that is not there");
        } catch (const StartError& e) {
            QVERIFY2(QString::fromUtf8(e.what()).contains(QLatin1String("/nonexistent/stageload-keeper")), e.what());
        }
    }

private:
    static QString faultsTraceReason(const QString& trace) {
        try {
            return QString::fromStdString(summarize(readTrace(trace.toStdString())).stopReason);
        } catch (const std::exception&) {
            return {};
        }
    }
};

}  // namespace test_keeper

STAGELOAD_GUILESS_SUITE(test_keeper, test_keeper::TestKeeper)
#include "test_keeper.moc"
