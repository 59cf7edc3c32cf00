#include "ui/worker/run_controller.h"

namespace stageload::worker {

void registerRunMetaTypes() {
    qRegisterMetaType<stageload::MemorySample>();
    qRegisterMetaType<stageload::Event>();
    qRegisterMetaType<stageload::Image>();
    qRegisterMetaType<stageload::GuardState>();
    qRegisterMetaType<stageload::studio::GenerateOutcome>();
}

RunController::RunController(QObject* parent) : QObject(parent) { registerRunMetaTypes(); }

RunController::~RunController() {
    if (job_) job_->requestCancel();
    thread_.reset();  // joins
}

bool RunController::start(studio::GenerateRequest request) {
    if (isRunning()) return false;
    // The job keeps the GUI thread's affinity: it has no slots, and what it emits from the
    // worker (or the meter) thread reaches receivers here as queued calls.
    job_ = std::make_unique<GenerateJob>(std::move(request));
    connect(job_.get(), &GenerateJob::guardChanged, this, &RunController::guardChanged);
    connect(job_.get(), &GenerateJob::sampled, this, &RunController::sampled);
    connect(job_.get(), &GenerateJob::eventHappened, this, &RunController::eventHappened);
    connect(job_.get(), &GenerateJob::stageChanged, this, &RunController::stageChanged);
    connect(job_.get(), &GenerateJob::cutoutReady, this, &RunController::cutoutReady);
    connect(job_.get(), &GenerateJob::percentChanged, this, &RunController::percentChanged);

    GenerateJob* job = job_.get();
    thread_.reset(QThread::create([job] { job->run(); }));
    thread_->setObjectName(QStringLiteral("stageload-run"));
    connect(thread_.get(), &QThread::finished, this, &RunController::onThreadFinished,
            Qt::QueuedConnection);
    thread_->start();
    return true;
}

void RunController::cancel(const QString& reason) {
    if (job_) job_->requestCancel(reason.toStdString());
}

void RunController::onThreadFinished() {
    thread_.reset();  // joins: the worker thread is gone
    const studio::GenerateOutcome outcome = job_->outcome();
    job_.reset();
    emit finished(outcome);
}

}  // namespace stageload::worker
