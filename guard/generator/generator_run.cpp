#include "guard/generator/generator_run.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <deque>
#include <fstream>
#include <limits>
#include <optional>
#include <regex>

#include "guard/generator/trace_follower.h"
#include "guard/meter/meter.h"
#include "guard/process/group_command.h"

namespace stageload {
namespace {

constexpr std::size_t kTailLines = 12;
constexpr std::size_t kMaxLine = 64 * 1024;  // a longer line (a progress bar without \n) is cut
// The patterns see at most this much of a line. libstdc++'s std::regex recurses once per
// character a repetition takes, so "(\d+)%" over a 64 KiB line of digits overflows the stack;
// 2 KiB stays far from any thread's stack and holds any progress or stage line.
constexpr std::size_t kMaxMatched = 2048;

// Splits what a pipe delivers into lines; a \r (progress bars redraw with it) ends a line too.
class LineSplitter {
public:
    template <typename OnLine>
    void feed(const char* data, std::size_t n, OnLine&& onLine) {
        for (std::size_t i = 0; i < n; ++i) {
            const char c = data[i];
            if (c == '\n' || c == '\r') {
                if (!partial_.empty()) onLine(std::exchange(partial_, {}));
            } else if (partial_.size() < kMaxLine) {
                partial_ += c;
            }
        }
    }
    template <typename OnLine>
    void flush(OnLine&& onLine) {
        if (!partial_.empty()) onLine(std::exchange(partial_, {}));
    }

private:
    std::string partial_;
};

// Everything a running generator needs between ticks, in one place.
class GeneratorSession {
public:
    GeneratorSession(const GeneratorRunParams& p, GeneratorRunResult& r, const GeneratorCommand& cmd)
        : p_(p), r_(r), log_(r.log, std::ios::trunc) {
        if (!log_) throw FileError(r.log.string() + ": cannot be written; check the run folder");
        if (!cmd.trace.empty()) follower_.emplace(cmd.trace);
        if (!p.def.stagePattern.empty()) stageRe_.emplace(p.def.stagePattern);
        if (!p.def.progressPattern.empty()) progressRe_.emplace(p.def.progressPattern);
    }

    void started(const GroupCommand& cmd) {
        out_ = cmd.stdoutFd();
        err_ = cmd.stderrFd();
    }
    void meterStarted(Meter& meter) { meter_ = &meter; }
    /// The command's own footprint as its trace last said, NaN before its first sample.
    double ownFootprint() const {
        const auto v = ownFootprint_.load();
        return v < 0 ? std::numeric_limits<double>::quiet_NaN() : static_cast<double>(v);
    }
    void guardLog(const GuardLogEntry& e) {
        log_ << e.line() << '\n' << std::flush;
        if (e.what == "stop") {
            r_.guardStop = e.message;
            stopT_ = e.t;
        }
        if (e.what == "exit" && stopT_ >= 0) r_.stopSeconds = e.t - stopT_;
        if (p_.onGuardLog) p_.onGuardLog(e);
    }

    void tick() {
        drain(out_, outLines_, false);
        drain(err_, errLines_, true);
        if (follower_)
            for (auto& line : follower_->poll()) merge(line);
    }

    void end() {
        outLines_.flush([&](std::string l) { line(std::move(l), false); });
        errLines_.flush([&](std::string l) { line(std::move(l), true); });
        if (follower_) {
            follower_->finish();
            r_.commandTrace = follower_->path();
            r_.commandTraceFound = follower_->found();
            r_.badTraceLines = follower_->badLines();
            r_.firstBadTraceLine = follower_->firstProblem();
        }
        r_.stderrTail.assign(tail_.begin(), tail_.end());
        for (const auto& [seen, written] : arrivals_) r_.traceLags.push_back(seen - written - offset_);
    }

private:
    double now() const { return meter_ ? meter_->now() : 0.0; }

    void drain(int fd, LineSplitter& lines, bool isStderr) {
        if (fd < 0) return;
        char buf[16384];
        for (;;) {
            const ssize_t n = ::read(fd, buf, sizeof buf);
            if (n <= 0) return;  // EAGAIN, EOF or an error: next tick
            lines.feed(buf, static_cast<std::size_t>(n),
                       [&](std::string l) { line(std::move(l), isStderr); });
        }
    }

    void line(std::string text, bool isStderr) {
        log_ << (isStderr ? "[err] " : "[out] ") << text << '\n' << std::flush;
        if (isStderr) {
            tail_.push_back(text);
            if (tail_.size() > kTailLines) tail_.pop_front();
        }
        if (p_.onOutput) p_.onOutput(text, isStderr);
        if (text.size() > kMaxMatched) text.resize(kMaxMatched);
        std::smatch m;
        // Stages from its output only until its trace names them: the two could disagree on
        // the order when one lags.
        if (stageRe_ && !traceStages_ && std::regex_search(text, m, *stageRe_) && m.size() > 1 &&
            m[1].length() > 0) {
            const std::string stage = m[1].str();
            Event e{EventKind::Stage, stage, stage, 0, 0.0, "from its output", now()};
            write(e, std::nullopt);
        }
        if (progressRe_ && std::regex_search(text, m, *progressRe_) && m.size() > 1) {
            char* end = nullptr;
            const std::string number = m[1].str();
            const double percent = std::strtod(number.c_str(), &end);
            if (end != number.c_str() && percent >= 0 && percent <= 100 && p_.onProgress)
                p_.onProgress(stage_, percent);
        }
    }

    // One line of the command's own trace: samples give the clock offset and the second series,
    // events go into the run's trace.
    void merge(TraceLine& line) {
        const double t = now();
        if (line.kind == TraceLine::Kind::Sample) arrivals_.emplace_back(t, line.sample.t);
        if (line.kind == TraceLine::Kind::Event) arrivals_.emplace_back(t, line.event.t);
        if (line.kind == TraceLine::Kind::Sample) {
            offset_ = std::min(offset_, t - line.sample.t);
            ownFootprint_.store(line.sample.footprint);
            if (p_.onCommandSample) {
                MemorySample s = line.sample;
                s.t += offset_;
                p_.onCommandSample(s);
            }
        } else if (line.kind == TraceLine::Kind::Event) {
            offset_ = std::min(offset_, t - line.event.t);
            traceStages_ = traceStages_ || line.event.kind == EventKind::Stage;
            write(line.event, line.event.t + offset_);
        }
    }

    // Writes `e` into the run's trace at `t` (nullopt: now) and tells the caller.
    void write(Event e, std::optional<double> t) {
        e.t = std::max(0.0, t.value_or(now()));
        if (e.kind == EventKind::Stage) {
            if (e.name == stage_) return;  // the trace and the pattern may both say it
            stage_ = e.name;
            r_.stages.push_back(e.name);
            if (p_.onProgress) p_.onProgress(stage_, -1.0);
        }
        if (meter_) meter_->eventSink(meter_->epoch())(e);  // at e.t on the meter's clock
        if (p_.onEvent) p_.onEvent(e);
    }

    const GeneratorRunParams& p_;
    GeneratorRunResult& r_;
    std::ofstream log_;
    std::optional<TraceFollower> follower_;
    std::optional<std::regex> stageRe_, progressRe_;
    int out_ = -1, err_ = -1;
    LineSplitter outLines_, errLines_;
    std::deque<std::string> tail_;
    Meter* meter_ = nullptr;
    std::string stage_;
    double offset_ = std::numeric_limits<double>::infinity();
    std::atomic<std::int64_t> ownFootprint_{-1};  ///< read by the meter's thread
    std::vector<std::pair<double, double>> arrivals_;  ///< (seen, its own t) of each trace line
    double stopT_ = -1.0;
    bool traceStages_ = false;  ///< its trace has named a stage
};

}  // namespace

nlohmann::json generatorTraceMeta(const GeneratorDef& def, const GeneratorValues& values) {
    nlohmann::json params = nlohmann::json::object();
    for (const auto& [name, value] : def.params) params[name] = value;
    for (const auto& [name, value] : values.params) params[name] = value;
    return {{"generator", def.name},
            {"generator_file", def.source.string()},
            {"input", values.input.string()},
            {"seed", values.seed},
            {"texture_size", values.textureSize},
            {"params", params}};
}

GeneratorRunResult runGenerator(const GeneratorRunParams& p) {
    const auto started = std::chrono::steady_clock::now();
    GeneratorRunResult r;
    std::error_code ec;
    std::filesystem::create_directories(p.values.runDir, ec);
    if (!std::filesystem::is_directory(p.values.runDir))
        throw FileError(p.values.runDir.string() + ": the run folder cannot be created (" +
                        ec.message() + ")");
    const GeneratorCommand cmd = expandGenerator(p.def, p.values);
    r.argv = cmd.argv;
    r.log = p.values.runDir / "command.log";
    // A mesh or a trace an earlier run left in the folder is not this run's.
    std::filesystem::remove(p.values.output, ec);
    if (!cmd.trace.empty()) std::filesystem::remove(cmd.trace, ec);
    GeneratorSession session(p, r, cmd);

    if (!cmd.workdir.empty() && !std::filesystem::is_directory(cmd.workdir, ec)) {
        const std::string why = p.def.name + ": its folder " + cmd.workdir +
                                " does not exist; fix \"workdir\" in " + p.def.source.string();
        session.guardLog({"", 0.0, "error", why, ""});
        r.stderrTail = {why};
        r.exitCode = kExitCannotStart;
        return r;
    }

    GuardParams gp = p.guard;
    gp.tracePath = p.trace.string();
    gp.traceInterval = p.sampleInterval;
    Guard guard(gp);
    guard.onLog = [&](const GuardLogEntry& e) { session.guardLog(e); };
    guard.hooks.spawn = {cmd.workdir, cmd.env, true};
    guard.hooks.tick = [&] { session.tick(); };
    guard.hooks.started = [&](const GroupCommand& c) { session.started(c); };
    guard.hooks.meterStarted = [&](Meter& m) { session.meterStarted(m); };
    guard.hooks.onSample = p.onSample;
    if (!cmd.trace.empty())
        guard.hooks.extraReaders = {{kCommandFootprintKey, [&session] { return session.ownFootprint(); }}};
    guard.hooks.traceMeta = generatorTraceMeta(p.def, p.values);
    if (p.meta.is_object()) guard.hooks.traceMeta.update(p.meta);
    if (p.cancel) guard.hooks.cancelled = [c = p.cancel] { return c->load(); };
    r.exitCode = guard.run(cmd.argv);
    r.traceProblem = guard.traceProblem();
    session.end();
    r.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
    return r;
}

std::filesystem::path stageloadCommandNear(const std::filesystem::path& program) {
    const auto dir = program.parent_path();
    for (const auto& candidate : {dir / "stageload", dir / ".." / "cli" / "stageload"}) {
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
            return std::filesystem::weakly_canonical(candidate, ec);
    }
    return "stageload";
}

}  // namespace stageload
