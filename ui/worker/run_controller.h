#pragma once
// Runs one GenerateJob at a time on a worker thread it owns, and forwards the job's signals to
// the GUI thread. finished() is emitted only after the worker thread has ended, so when the UI
// hears it no thread of the run is left and the run's memory has been freed.
//
//   RunController runs;
//   connect(&runs, &RunController::sampled, chart, &MemoryChart::appendSample);
//   connect(&runs, &RunController::finished, this, &MainWindow::onRunFinished);
//   runs.start(request);          // false while a run is going
//   runs.cancel();                // Esc
//
// Lives on the GUI thread; its members must be called from there. The destructor cancels a
// running job and waits for its thread.

#include <QObject>
#include <QThread>
#include <memory>

#include "ui/worker/generate_job.h"

namespace stageload::worker {

class RunController : public QObject {
    Q_OBJECT

public:
    explicit RunController(QObject* parent = nullptr);
    ~RunController() override;

    /// Starts `request` on a new worker thread. Returns false (and does nothing) while a run is
    /// going.
    bool start(studio::GenerateRequest request);
    /// Asks the running job to stop at its next step; finished() follows. `reason` as in
    /// GenerateJob::requestCancel().
    void cancel(const QString& reason = {});
    bool isRunning() const { return thread_ != nullptr; }

signals:
    void guardChanged(stageload::GuardState state, const QString& reason, double secondsInState);
    void sampled(const stageload::MemorySample& sample);
    void eventHappened(const stageload::Event& event);
    void stageChanged(const QString& stage, int index, int count, bool begins);
    void cutoutReady(const stageload::Image& cutout);
    void percentChanged(double percent);
    void finished(const stageload::studio::GenerateOutcome& outcome);

private:
    void onThreadFinished();

    // Joins the thread before it is destroyed (a QThread must not die running).
    struct ThreadJoiner {
        void operator()(QThread* t) const {
            t->wait();
            delete t;
        }
    };
    std::unique_ptr<GenerateJob> job_;
    std::unique_ptr<QThread, ThreadJoiner> thread_;
};

/// Registers the types the run's signals carry for queued connections. Call once in main().
void registerRunMetaTypes();

}  // namespace stageload::worker
