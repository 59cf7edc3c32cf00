#include "guard/meter/meter.h"

#include <exception>
#include <utility>

#include "guard/base/error.h"
#include "guard/trace/trace_writer.h"

namespace stageload {

Meter::Meter(MeterParams params) : params_(std::move(params)), epoch_(Clock::now()) {
    if (!(params_.interval >= 0.02 && params_.interval <= 3600.0))
        throw UsageError("meter interval " + std::to_string(params_.interval) +
                         " s: out of range, expected 0.02 s to 1 h");
    if (!params_.readers.footprint || !params_.readers.system)
        throw UsageError("meter readers: footprint and system readers are required");
    if (!params_.tracePath.empty()) {
        writer_ = std::make_unique<TraceWriter>(params_.tracePath);
        writer_->start(params_.interval, params_.meta);
    }
    epoch_ = Clock::now();
    takeSample();  // t = 0, before anything the caller does next
    thread_ = std::thread([this] { run(); });
}

Meter::~Meter() {
    stop();
}

double Meter::now() const {
    return std::chrono::duration<double>(Clock::now() - epoch_).count();
}

void Meter::takeSample() {
    const double t = now();
    MemorySample s;
    try {
        s = params_.readers.read(t);
    } catch (const std::exception& e) {
        if (writer_) writer_->error(e.what(), t);
        readFailures_.insert(e.what());
        return;
    } catch (...) {  // nothing may end the sampling thread (and with it the program)
        constexpr const char* kUnknown = "a memory reader failed with an unknown error";
        if (writer_) writer_->error(kUnknown, t);
        readFailures_.insert(kUnknown);
        return;
    }
    // The readers recovered: the same failure later is news again and is written again.
    if (writer_)
        for (const auto& message : readFailures_) writer_->forgetError(message);
    readFailures_.clear();
    if (writer_) writer_->sample(s);
    {
        std::lock_guard lock(mutex_);
        latest_ = s;
        ++samples_;
    }
    if (params_.onSample) {
        try {
            params_.onSample(s);
        } catch (const std::exception& e) {
            if (writer_) writer_->error(std::string("onSample: ") + e.what(), t);
        } catch (...) {
            if (writer_) writer_->error("onSample: unknown exception", t);
        }
    }
}

void Meter::run() {
    const auto step = std::chrono::duration_cast<Clock::duration>(
        std::chrono::duration<double>(params_.interval));
    auto next = epoch_;  // the constructor took the sample at t = 0
    for (;;) {
        next += step;
        const auto now = Clock::now();
        if (next < now) next = now + step - (now - next) % step;  // fell behind: skip ticks
        {
            std::unique_lock lock(mutex_);
            if (wake_.wait_until(lock, next, [this] { return stopping_; })) return;
        }
        takeSample();
    }
}

void Meter::stop() {
    {
        std::lock_guard lock(mutex_);
        if (stopped_) return;
        stopped_ = true;
        stopping_ = true;
    }
    wake_.notify_all();
    if (thread_.joinable()) thread_.join();
    takeSample();
    if (writer_) writer_->end();
}

std::string Meter::traceProblem() const {
    return writer_ ? writer_->problem() : std::string();
}

EventSink Meter::eventSink() {
    return [this](const Event& e) {
        try {
            if (writer_) writer_->event(e, now());
        } catch (...) {
        }
    };
}

EventSink Meter::eventSink(Clock::time_point emitterEpoch) {
    const double offset = std::chrono::duration<double>(emitterEpoch - epoch_).count();
    return [this, offset](const Event& e) {
        try {
            if (writer_) writer_->event(e, e.t + offset);
        } catch (...) {
        }
    };
}

void Meter::mark(const std::string& note, const std::string& stage) {
    Event e;
    e.kind = EventKind::Mark;
    e.note = note;
    e.stage = stage;
    e.t = now();
    if (writer_) writer_->event(e, e.t);
    if (params_.onMark) params_.onMark(e);
}

void Meter::error(const std::string& message) {
    if (writer_) writer_->error(message, now());
}

std::optional<MemorySample> Meter::latest() const {
    std::lock_guard lock(mutex_);
    return latest_;
}

std::size_t Meter::sampleCount() const {
    std::lock_guard lock(mutex_);
    return samples_;
}

}  // namespace stageload
