// The worker behind Generate (ui/worker): a real character run on a worker thread, cancelled,
// failed, guarded. Leaves no thread behind and gives its memory back.
#include <QDir>
#include <QJsonArray>
#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QtTest>

#include "guard/generator/generator_def.h"
#include "guard/memory/process_memory.h"
#include "guard/policy/guard_levels.h"
#include "guard/trace/summary.h"
#include "ui/worker/run_controller.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::studio;
using namespace stageload::worker;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_generate_job {

namespace {

const QString kSamples = QStringLiteral(STAGELOAD_SAMPLES_DIR);

// The names of this process's threads, e.g. "test_generate_j, stageload-run".
QStringList threads() {
    QStringList names;
    const QDir tasks(QStringLiteral("/proc/self/task"));
    for (const auto& id : tasks.entryList(QDir::Dirs | QDir::NoDotAndDotDot)) {
        QFile comm(tasks.filePath(id + QStringLiteral("/comm")));
        names << (comm.open(QIODevice::ReadOnly) ? QString::fromUtf8(comm.readAll()).trimmed() : id);
    }
    names.sort();
    return names;
}

// The run's worker thread is gone and nothing was added (threads outside the run's control,
// such as an idle LibTorch pool thread, may come and go on their own). QThread::wait() returns
// before the kernel has reaped the thread, so give it a moment to leave /proc.
bool noRunThreadLeft(const QStringList& before) {
    QElapsedTimer clock;
    clock.start();
    for (;;) {
        const QStringList now = threads();
        if (!now.contains(QStringLiteral("stageload-run")) && now.size() <= before.size()) return true;
        if (clock.elapsed() > 2000) return false;
        QThread::msleep(10);
    }
}

// The stop mark among the events a run sent while it was live, or nullopt.
std::optional<stageload::StopMark> liveStopMark(const QSignalSpy& events) {
    for (const auto& args : events)
        if (auto stop = stageload::stopMarkOf(args.at(0).value<stageload::Event>())) return stop;
    return std::nullopt;
}

double mib(std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

GenerateOutcome waitForOutcome(RunController& runs, int timeoutMs = 120000) {
    QSignalSpy finished(&runs, &RunController::finished);
    if (!finished.wait(timeoutMs)) qFatal("the run did not finish within %d ms", timeoutMs);
    return finished.at(0).at(0).value<GenerateOutcome>();
}

}  // namespace

class TestGenerateJob : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    GenerateRequest request(const QString& picture, const QString& name) {
        GenerateRequest r;
        r.input = kSamples + QLatin1Char('/') + picture;
        r.output = dir_.filePath(name + QStringLiteral(".glb"));
        r.trace = dir_.filePath(name + QStringLiteral(".trace.jsonl"));
        r.cutout = dir_.filePath(name + QStringLiteral(".cutout.png"));
        r.run.textureSize = 1024;
        r.run.remover = stageload::RemoverChoice::Classical;  // no weights needed for alpha pictures
        r.guard.poll = 0.1;
        r.guard.quietFor = 0;
        r.guard.waitFree = 0;   // any machine has room
        r.guard.killFree = 0;
        return r;
    }

    /// A generator `name` that only sleeps `seconds` (no CPU, no output, no mesh).
    GenerateRequest sleeper(const QString& name, int seconds) {
        auto r = request(QStringLiteral("knight_alpha.png"), name);
        const QString json = QStringLiteral(R"({"name": "%1", "command": ["sleep", "%2"]})").arg(name).arg(seconds);
        r.generator = stageload::parseGeneratorDef(json.toStdString(), dir_.filePath(name + QStringLiteral(".json")).toStdString());
        r.runDir = dir_.filePath(name + QStringLiteral(".run"));
        return r;
    }

private slots:
    void initTestCase() {
        registerRunMetaTypes();
        QVERIFY(dir_.isValid());
        // A first run starts LibTorch's thread pool and warms up the allocator: thread counts
        // and resident memory after it are the baselines the other cases compare against.
        RunController warm;
        QVERIFY(warm.start(request(QStringLiteral("lantern_alpha.png"), QStringLiteral("warm"))));
        const auto outcome = waitForOutcome(warm);
        QVERIFY2(outcome.end == RunEnd::Done, qPrintable(outcome.title + ": " + outcome.message));
    }

    void runEndsWithMeshTraceAndSignals() {
        RunController runs;
        QSignalSpy stages(&runs, &RunController::stageChanged);
        QSignalSpy samples(&runs, &RunController::sampled);
        QSignalSpy events(&runs, &RunController::eventHappened);
        QSignalSpy cutouts(&runs, &RunController::cutoutReady);
        QSignalSpy guard(&runs, &RunController::guardChanged);
        const QStringList threadsBefore = threads();
        QVERIFY(runs.start(request(QStringLiteral("knight_alpha.png"), QStringLiteral("done"))));
        QVERIFY(runs.isRunning());
        QVERIFY(!runs.start(request(QStringLiteral("knight_alpha.png"), QStringLiteral("second"))));
        const auto outcome = waitForOutcome(runs);

        QVERIFY2(outcome.end == RunEnd::Done, qPrintable(outcome.title + ": " + outcome.message));
        QVERIFY(!runs.isRunning());
        QVERIFY2(noRunThreadLeft(threadsBefore), qPrintable(threads().join(',') + QStringLiteral(" / before: ") + threadsBefore.join(',')));
        QVERIFY(outcome.mesh);
        QVERIFY(outcome.mesh->triangleCount() > 1000);
        QCOMPARE(outcome.maskSource, QStringLiteral("alpha"));
        QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("done.glb"))));
        QVERIFY(QFile::exists(dir_.filePath(QStringLiteral("done.cutout.png"))));
        QCOMPARE(cutouts.size(), 1);

        // Every stage began and ended, in order, numbered from 0.
        QCOMPARE(stages.size(), 2 * outcome.stageSeconds.size());
        QCOMPARE(stages.first().at(0).toString(), QStringLiteral("preprocess"));
        QCOMPARE(stages.first().at(1).toInt(), 0);
        QCOMPARE(stages.last().at(0).toString(), QStringLiteral("export"));
        QCOMPARE(stages.last().at(3).toBool(), false);

        // The chart's feed: samples at 20 Hz, events on the same clock as the trace.
        QVERIFY(samples.size() >= 3);
        QVERIFY(!events.isEmpty());
        const auto trace = readTrace(dir_.filePath(QStringLiteral("done.trace.jsonl")).toStdString());
        QVERIFY(trace.ended);
        QCOMPARE(static_cast<qsizetype>(trace.events.size()), events.size());
        // The summary for the history is the trace's, computed on the worker.
        QCOMPARE(outcome.summary.value(QStringLiteral("stages")).toArray().size(),
                 static_cast<qsizetype>(summarize(trace).stages.size()));
        const auto last = events.last().at(0).value<Event>();
        QVERIFY(std::abs(last.t - trace.events.back().t) < 0.002);
        // The guard admitted the run (waiting, then running).
        QVERIFY(!guard.isEmpty());
        QVERIFY(guard.last().at(0).value<GuardState>() == GuardState::Running);
    }

    void cancelStopsTheRunFreesMemoryAndLeavesNoThread() {
        const QStringList threadsBefore = threads();
        const auto baseline = readProcessMemory().rss;
        QVERIFY(resetPeakRss());

        // Cancel while the texture stage is at work (seconds at 4096²): the run stops before
        // the next stage, having held the texture's memory.
        RunController runs;
        connect(&runs, &RunController::stageChanged, &runs,
                [&](const QString& stage, int, int, bool begins) {
                    if (stage == QLatin1String("texture") && begins) runs.cancel();
                });
        auto r = request(QStringLiteral("lantern_alpha.png"), QStringLiteral("cancelled"));
        r.run.textureSize = 4096;  // a texture stage that holds real memory
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs);
        QVERIFY2(outcome.end == RunEnd::Cancelled, qPrintable(outcome.title + ": " + outcome.message));
        QVERIFY2(outcome.message.contains(QLatin1String("decode")), qPrintable(outcome.message));
        QVERIFY(!outcome.mesh);
        QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("cancelled.glb"))));
        QVERIFY2(noRunThreadLeft(threadsBefore), qPrintable(threads().join(',') + QStringLiteral(" / before: ") + threadsBefore.join(',')));

        const auto after = readProcessMemory();
        qInfo("rss: baseline %.0f MiB, peak during the run %.0f MiB, after %.0f MiB", mib(baseline),
              mib(after.peakRss), mib(after.rss));
        QVERIFY2(after.peakRss > baseline + (64 << 20), "the run held no memory worth freeing");
        QVERIFY2(after.rss < baseline + (48 << 20), "the cancelled run kept its memory");
        // The trace records where it stopped and ends cleanly.
        const auto trace = readTrace(dir_.filePath(QStringLiteral("cancelled.trace.jsonl")).toStdString());
        QVERIFY(trace.ended);
        QCOMPARE(QString::fromStdString(summarize(trace).stoppedAt), QStringLiteral("texture"));
        QCOMPARE(QString::fromStdString(summarize(trace).ranTo()), QStringLiteral("texture (cancelled)"));
    }

    void guardWaitsThenGivesUpWhenThereIsNoRoom() {
        RunController runs;
        QSignalSpy guard(&runs, &RunController::guardChanged);
        auto r = request(QStringLiteral("knight_alpha.png"), QStringLiteral("noroom"));
        r.guard.waitFree = 100;  // never this much available
        r.guard.startTimeout = 0.5;
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs, 10000);
        QVERIFY(outcome.end == RunEnd::Stopped);
        QVERIFY2(outcome.message.contains(QLatin1String("wait-free")), qPrintable(outcome.message));
        QVERIFY(guard.size() >= 2);  // waiting, re-checked every poll
        QVERIFY(guard.first().at(0).value<GuardState>() == GuardState::Waiting);
        QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("noroom.trace.jsonl"))));
    }

    void cancelWhileWaitingIsImmediate() {
        RunController runs;
        auto r = request(QStringLiteral("knight_alpha.png"), QStringLiteral("waiting"));
        r.guard.waitFree = 100;
        r.guard.poll = 60;  // the wait must not sleep through a cancel
        QVERIFY(runs.start(r));
        QTest::qWait(200);
        QElapsedTimer clock;
        clock.start();
        runs.cancel();
        const auto outcome = waitForOutcome(runs, 5000);
        QVERIFY(outcome.end == RunEnd::Cancelled);
        QVERIFY(clock.elapsed() < 2000);
    }

    // A generator that hangs (a sleep: no CPU, no output) is stopped by --stall-kill, and the
    // dialog's title says it hung rather than a plain guard stop.
    void aHungGeneratorIsTitledAsSuch() {
        RunController runs;
        auto r = sleeper(QStringLiteral("hung"), 30);
        r.guard.stallKill = 1.0;
        r.guard.killFree = 1;  // a level to keep in the trace; any machine has more free
        QSignalSpy events(&runs, &RunController::eventHappened);
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs);
        QVERIFY2(outcome.end == RunEnd::Stopped, qPrintable(outcome.title + QStringLiteral(": ") + outcome.message));
        QCOMPARE(outcome.title, QStringLiteral("Stopped: the generator hung"));
        QCOMPARE(outcome.exitCode, 5);
        QVERIFY2(outcome.message.contains(QLatin1String("stalled")), qPrintable(outcome.message));
        // The live chart gets the stop mark as the trace does, not only a run reopened later.
        const auto stop = liveStopMark(events);
        QVERIFY(stop.has_value());
        QVERIFY2(stop->reason.find("stall") != std::string::npos, stop->reason.c_str());
        // And the trace keeps the levels it ran under, for the chart of a reopened run.
        const auto levels = stageload::guardLevelsOf(readTrace(r.trace.toStdString()).start);
        QVERIFY(levels.has_value());
        QCOMPARE(levels->stopFree, r.guard.killFree);
        QCOMPARE(levels->startFree, r.guard.waitFree);
    }

    // A generator's group is judged as often as a built-in run, not at the poll: a minute's poll
    // must not let a peak of a few seconds through (the cascade's texture peak did at 5 s).
    void aGeneratorIsJudgedWhateverThePoll() {
        RunController runs;
        auto r = sleeper(QStringLiteral("polled"), 20);
        r.guard.killFree = 100;  // any reading breaches: stopped after two
        r.guard.poll = 60;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs);
        QVERIFY2(outcome.end == RunEnd::Stopped, qPrintable(outcome.title + QStringLiteral(": ") + outcome.message));
        QVERIFY2(clock.elapsed() < 10000, qPrintable(QString::number(clock.elapsed())));
    }

    void guardBudgetStopsARunningJob() {
        RunController runs;
        auto r = request(QStringLiteral("knight_alpha.png"), QStringLiteral("breach"));
        r.guard.waitFree = 0;
        r.guard.killFree = 100;  // any reading breaches: stopped after two polls
        r.guard.poll = 0.05;
        QSignalSpy events(&runs, &RunController::eventHappened);
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs);
        QVERIFY(outcome.end == RunEnd::Stopped);
        QCOMPARE(outcome.title, QStringLiteral("Stopped by the guard"));
        QVERIFY2(outcome.message.contains(QLatin1String("kill-free")), qPrintable(outcome.message));
        QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("breach.glb"))));
        const auto trace = readTrace(r.trace.toStdString());
        const auto s = summarize(trace);
        QVERIFY(s.stoppedByGuard());
        QVERIFY2(s.stopReason.find("kill-free") != std::string::npos, s.stopReason.c_str());
        const auto stop = liveStopMark(events);
        QVERIFY(stop.has_value());
        QCOMPARE(stop->reason, s.stopReason);
        QVERIFY(stageload::guardLevelsOf(trace.start) == std::optional(stageload::GuardLevels{0, 100}));
    }

    // The budget is checked at the meter's rate, not only every poll: a run of a few seconds
    // is stopped although the poll is a minute.
    void aShortRunIsGuardedWhateverThePoll() {
        RunController runs;
        auto r = request(QStringLiteral("knight_alpha.png"), QStringLiteral("short"));
        r.guard.waitFree = 0;
        r.guard.killFree = 100;
        r.guard.poll = 60;
        QElapsedTimer clock;
        clock.start();
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs);
        QVERIFY2(outcome.end == RunEnd::Stopped, qPrintable(outcome.title + ": " + outcome.message));
        QVERIFY(clock.elapsed() < 30000);
        QVERIFY(!QFile::exists(dir_.filePath(QStringLiteral("short.glb"))));
    }

    void badPictureFailsWithItsName() {
        QFile bad(dir_.filePath(QStringLiteral("broken.png")));
        QVERIFY(bad.open(QIODevice::WriteOnly));
        bad.write("\x89PNG\r\n\x1a\nthis is not a picture");
        bad.close();
        RunController runs;
        auto r = request(QStringLiteral("knight_alpha.png"), QStringLiteral("bad"));
        r.input = bad.fileName();
        QVERIFY(runs.start(r));
        const auto outcome = waitForOutcome(runs);
        QVERIFY(outcome.end == RunEnd::Failed);
        QCOMPARE(outcome.title, QStringLiteral("Cannot read the picture"));
        QVERIFY2(outcome.message.contains(QLatin1String("broken.png")), qPrintable(outcome.message));
    }

    void destroyingTheControllerCancelsAndJoins() {
        const QStringList threadsBefore = threads();
        {
            RunController runs;
            QVERIFY(runs.start(request(QStringLiteral("knight_alpha.png"), QStringLiteral("dropped"))));
            QTest::qWait(100);
        }
        QVERIFY2(noRunThreadLeft(threadsBefore), qPrintable(threads().join(',') + QStringLiteral(" / before: ") + threadsBefore.join(',')));
    }
};

}  // namespace test_generate_job

STAGELOAD_GUILESS_SUITE(test_generate_job, test_generate_job::TestGenerateJob)
#include "test_generate_job.moc"
