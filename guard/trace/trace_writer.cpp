#include "guard/trace/trace_writer.h"

#include <cerrno>
#include <cmath>
#include <cstring>

#include "guard/base/error.h"
#include "guard/base/utc.h"

namespace stageload {
namespace {

using ojson = nlohmann::ordered_json;

/// Integral values as JSON integers (bytes stay exact), others as doubles.
ojson number(double v) {
    if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9.0e15)
        return static_cast<std::int64_t>(v);
    return v;
}

/// Compact; invalid UTF-8 in names is replaced instead of throwing.
std::string dumpLine(const ojson& j) {
    return j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

}  // namespace

double traceTime(double t) {
    return std::round(t * 1000.0) / 1000.0;
}

ojson eventLine(const Event& e, double t) {
    ojson j;
    j["type"] = "event";
    j["kind"] = std::string(toString(e.kind));
    switch (e.kind) {
        case EventKind::Stage:
            j["stage"] = e.name;
            break;
        case EventKind::Load:
        case EventKind::Reload:
            j["name"] = e.name;
            if (!e.stage.empty()) j["stage"] = e.stage;
            j["nbytes"] = e.nbytes;
            j["seconds"] = traceTime(e.seconds);
            break;
        case EventKind::Release:
            j["name"] = e.name;
            if (!e.stage.empty()) j["stage"] = e.stage;
            j["nbytes"] = e.nbytes;
            break;
        case EventKind::Mark:
            if (!e.name.empty()) j["name"] = e.name;
            if (!e.stage.empty()) j["stage"] = e.stage;
            if (e.nbytes != 0) j["nbytes"] = e.nbytes;  // a prebuilt module, a stage's peak
            if (e.seconds != 0.0) j["seconds"] = traceTime(e.seconds);
            break;
    }
    if (!e.note.empty()) j["note"] = e.note;
    j["t"] = traceTime(t);
    return j;
}

TraceWriter::TraceWriter(const std::string& path) : path_(path) {
    file_.reset(std::fopen(path.c_str(), "we"));
    if (!file_) throw FileError("cannot write trace '" + path + "': " + std::strerror(errno));
}

TraceWriter::~TraceWriter() {
    end();
}

void TraceWriter::writeLine(const std::string& line) {
    if (std::fputs(line.c_str(), file_.get()) < 0 || std::fputc('\n', file_.get()) == EOF ||
        std::fflush(file_.get()) != 0) {
        if (failures_++ == 0) firstErrno_ = errno;
        std::clearerr(file_.get());
    }
}

void TraceWriter::start(double interval, const nlohmann::json& meta, const std::string& utc) {
    ojson j;
    j["type"] = "start";
    j["utc"] = utc.empty() ? utcTimestamp() : utc;
    j["interval"] = interval;
    if (meta.is_object())
        for (const auto& [key, value] : meta.items())
            if (key != "type" && key != "utc" && key != "interval") j[key] = value;
    std::lock_guard lock(mutex_);
    if (!ended_) writeLine(dumpLine(j));
}

void TraceWriter::sample(const MemorySample& s) {
    ojson j;
    j["type"] = "sample";
    j["t"] = traceTime(s.t);
    j["footprint"] = s.footprint;
    j["swap_used"] = s.swapUsed;
    j["level"] = std::round(s.level * 10.0) / 10.0;
    if (s.available > 0) j["available"] = s.available;
    for (const auto& [key, value] : s.extra) j[key] = number(value);
    const std::string line = dumpLine(j);
    std::lock_guard lock(mutex_);
    if (!ended_) writeLine(line);
}

void TraceWriter::event(const Event& e, double t) {
    const std::string line = dumpLine(eventLine(e, t));
    std::lock_guard lock(mutex_);
    if (!ended_) writeLine(line);
}

bool TraceWriter::error(const std::string& message, double t) {
    ojson j;
    j["type"] = "error";
    j["t"] = traceTime(t);
    j["error"] = message;
    const std::string line = dumpLine(j);
    std::lock_guard lock(mutex_);
    if (ended_ || !errorsSeen_.insert(message).second) return false;
    writeLine(line);
    return true;
}

void TraceWriter::forgetError(const std::string& message) {
    std::lock_guard lock(mutex_);
    errorsSeen_.erase(message);
}

void TraceWriter::end() {
    std::lock_guard lock(mutex_);
    if (ended_ || !file_) return;
    ended_ = true;
    writeLine(R"({"type":"end"})");
}

int TraceWriter::writeFailures() const {
    std::lock_guard lock(mutex_);
    return failures_;
}

std::string TraceWriter::problem() const {
    std::lock_guard lock(mutex_);
    if (failures_ == 0) return {};
    return std::to_string(failures_) + " line(s) of the trace could not be written to " + path_ +
           " (" + std::strerror(firstErrno_) + "); it is incomplete";
}

}  // namespace stageload
