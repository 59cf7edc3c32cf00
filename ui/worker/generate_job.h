#pragma once
// One Generate, start to end, on whatever thread calls run(): the engine's character job
// (runCharacterJob(): admission under the guard, the meter, the budget, the stop mark) or, with
// a generator in the request, the generator job (runGeneratorJob(): a guarded child process, its
// group's memory, its merged events), with everything the UI shows (samples, events, stages, the
// cut-out, the guard's state) forwarded as signals and the end made an outcome. The
// RunController runs it on a worker thread, so those signals reach the GUI thread queued.
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
#include <mutex>
#include <string>
#include <chrono>

#include "guard/policy/guard_policy.h"
#include "ui/studio/generate_request.h"

namespace stageload::worker {

class GenerateJob : public QObject {
    Q_OBJECT

public:
    explicit GenerateJob(studio::GenerateRequest request, QObject* parent = nullptr);

    /// Runs the whole job; returns (and emits finished) when it is over.
    void run();
    /// Stops the job at its next step: while waiting for room, within 50 ms; while running, before
    /// the next stage. The memory is freed before finished() is emitted.
    /// `reason`: "" for the user's cancel, else why the app stops the run (an
    /// interruptedReason(): the app got SIGTERM, its window closed); the first request's stands.
    void requestCancel(const std::string& reason = {});

    const studio::GenerateOutcome& outcome() const { return outcome_; }

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
    void runPipeline();
    void runExternal();
    double elapsed() const;
    /// A guard's warning (a threshold that cannot work here, no keeper, a trace that could not
    /// be written whole) as a note of the outcome, in the panel's words.
    void addGuardNote(const std::string& notice);

    studio::GenerateRequest request_;
    studio::GenerateOutcome outcome_;
    std::string cancelReason() const;

    std::atomic<bool> cancel_{false};
    mutable std::mutex reasonMutex_;
    std::string cancelReason_;
    std::chrono::steady_clock::time_point started_;
};

}  // namespace stageload::worker

Q_DECLARE_METATYPE(stageload::GuardState)
