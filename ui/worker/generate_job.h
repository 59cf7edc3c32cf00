#pragma once
// One Generate, start to end, on whatever thread calls run(): wait for room under the guard,
// then run the character pipeline with the meter sampling memory, the guard checking its budget
// at every poll, and everything the UI shows (samples, events, stages, the cut-out, the guard's
// state) handed out by signals. With a generator in the request, the same signals come from a
// guarded child process instead (runGeneratorJob(): its group's memory, its merged events). The RunController runs it on a worker thread, so those signals
// reach the GUI thread queued.
//
//   GenerateJob job(request);
//   connect(&job, &GenerateJob::sampled, chart, &MemoryChart::appendSample);
//   std::thread worker([&] { job.run(); });
//   job.requestCancel();                         // any thread; stops at the next step
//
// run() never throws: every failure becomes an outcome (title + message naming the picture,
// stage, file or threshold). requestCancel() is thread-safe; everything else belongs to the
// thread that runs the job.

#include <QObject>
#include <atomic>
#include <condition_variable>
#include <mutex>

#include "guard/policy/guard_policy.h"
#include "ui/worker/generate_request.h"

namespace stageload::studio {

class GenerateJob : public QObject {
    Q_OBJECT

public:
    explicit GenerateJob(GenerateRequest request, QObject* parent = nullptr);

    /// Runs the whole job; returns (and emits finished) when it is over.
    void run();
    /// Stops the job at its next step: while waiting for room, at once; while running, before
    /// the next stage. The memory is freed before finished() is emitted.
    void requestCancel();

    const GenerateOutcome& outcome() const { return outcome_; }

signals:
    /// The guard's state changed or was re-checked (waiting: every poll).
    void guardChanged(stageload::GuardState state, const QString& reason, double secondsInState);
    void sampled(const stageload::MemorySample& sample);  ///< t on the trace's clock
    void eventHappened(const stageload::Event& event);    ///< t on the trace's clock
    /// A stage begins (`begins`) or ends; index counts from 0 of `count` stages.
    void stageChanged(const QString& stage, int index, int count, bool begins);
    void cutoutReady(const stageload::Image& cutout);
    /// A generator's progress: the percent its output shows in the current stage (0..100).
    void percentChanged(double percent);
    void finished(const stageload::studio::GenerateOutcome& outcome);

private:
    bool waitForRoom(GuardPolicy& policy);
    void runPipeline(GuardPolicy* policy);
    void runExternal();
    void checkBudget(GuardPolicy& policy, double t);
    bool sleepUnlessCancelled(double seconds);
    double elapsed() const;

    GenerateRequest request_;
    GenerateOutcome outcome_;
    std::atomic<bool> cancel_{false};
    std::mutex mutex_;  ///< guards the policy (meter thread) and guardStop_
    std::condition_variable wake_;
    QString guardStop_;  ///< why the guard stopped the run, with its readings; empty if it did not
    std::string guardReason_;  ///< the same reason without readings, for the trace's mark
    double lastCheck_ = 0.0;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace stageload::studio

Q_DECLARE_METATYPE(stageload::GuardState)
