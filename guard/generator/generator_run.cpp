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
#include <utility>

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
        if (!p.def.stagePattern.empty()) stageRes_.push_back({std::regex(p.def.stagePattern), {}});
        for (const auto& sp : p.def.stagePatterns) stageRes_.push_back({std::regex(sp.pattern), sp.stage});
        if (!p.def.progressPattern.empty()) progressRe_.emplace(p.def.progressPattern);
    }

    /// Whether the command printed anything (a tqdm redraw too) since the previous call.
    bool takePrinted() { return std::exchange(printed_, false); }

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
        if (e.what == "error" && out_ < 0 && r_.startError.empty()) r_.startError = e.message;  // before it started
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
            printed_ = true;
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
        const std::string full = text;
        if (text.size() > kMaxMatched) text.resize(kMaxMatched);
        // Stages from its output only until its trace names them: the two could disagree on
        // the order when one lags. The first pattern that matches names the stage. They only go
        // forward: stdout and stderr are two pipes read in turn, so a progress bar's last redraw
        // (stderr) can be read after the next stage's first line (stdout) and must not take the
        // run back to the stage it closes.
        if (!traceStages_) {
            for (const auto& [re, name] : stageRes_) {
                std::smatch m;
                if (!std::regex_search(text, m, re)) continue;
                const std::string stage = name.empty() ? (m.size() > 1 ? m[1].str() : std::string()) : name;
                if (stage.empty()) continue;
                if (stage != stage_ && std::find(r_.stages.begin(), r_.stages.end(), stage) == r_.stages.end())
                    write(Event{EventKind::Stage, stage, stage, 0, 0.0, "from its output", now()}, std::nullopt);
                break;
            }
        }
        const double percent = progressRe_ ? percentOf(text) : -1.0;
        if (percent >= 0) {
            ++r_.progressLines;
            r_.lastPercent = percent;
            if (p_.onProgress) p_.onProgress(stage_, percent);
        }
        if (p_.onOutput) p_.onOutput(full, isStderr, percent >= 0);
    }

    // The percent a progress line gives: group 1 itself, or with two groups 100 × N / M; -1 for
    // a line that is not one (or says nonsense: 13/12, 150 %).
    double percentOf(const std::string& text) const {
        std::smatch m;
        if (!std::regex_search(text, m, *progressRe_) || m.size() < 2 || m[1].length() == 0) return -1.0;
        const auto number = [](const std::string& s) {
            char* end = nullptr;
            const double v = std::strtod(s.c_str(), &end);
            return end != s.c_str() ? v : -1.0;
        };
        double percent = number(m[1].str());
        if (m.size() > 2 && m[2].matched) {
            const double total = number(m[2].str());
            if (percent < 0 || total <= 0 || percent > total) return -1.0;
            percent = 100.0 * percent / total;
        }
        return percent >= 0 && percent <= 100 ? percent : -1.0;
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
    std::vector<std::pair<std::regex, std::string>> stageRes_;  ///< with the stage each names
    std::optional<std::regex> progressRe_;
    int out_ = -1, err_ = -1;
    bool printed_ = false;  ///< output read since takePrinted()
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
    for (const auto& param : def.params) params[param.name] = param.value;
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
    r.result = cmd.result;
    r.log = p.values.runDir / "command.log";
    // A mesh or a trace an earlier run left in the folder is not this run's. A "result" outside
    // the run's folder is the user's file: kept, and its time noted to tell a new one from it.
    std::filesystem::remove(p.values.output, ec);
    const auto inRunDir = [&](const std::filesystem::path& f) {
        const auto rel = f.lexically_normal().lexically_relative(p.values.runDir.lexically_normal());
        return !rel.empty() && *rel.begin() != "..";
    };
    if (inRunDir(cmd.result)) std::filesystem::remove(cmd.result, ec);
    else if (std::filesystem::exists(cmd.result, ec)) r.resultBefore = std::filesystem::last_write_time(cmd.result, ec);
    if (!cmd.trace.empty()) std::filesystem::remove(cmd.trace, ec);
    GeneratorSession session(p, r, cmd);

    // What it needs, before anything starts: no waiting for room for a run that cannot work.
    r.missing = missingRequirements(p.def, p.values);
    if (!r.missing.empty()) {
        for (const auto& m : r.missing) {
            session.guardLog({"", 0.0, "error", m.message, ""});
            r.stderrTail.push_back(m.message);
        }
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
    guard.hooks.printed = [&] { return session.takePrinted(); };
    guard.hooks.meterStarted = [&](Meter& m) { session.meterStarted(m); };
    guard.hooks.onSample = p.onSample;
    guard.hooks.onMark = p.onEvent;
    guard.hooks.runningPoll = p.runningPoll;  // the stop mark reaches a live chart as the trace gets it
    if (!cmd.trace.empty())
        guard.hooks.extraReaders = {{kCommandFootprintKey, [&session] { return session.ownFootprint(); }}};
    guard.hooks.traceMeta = generatorTraceMeta(p.def, p.values);
    if (p.meta.is_object()) guard.hooks.traceMeta.update(p.meta);
    if (p.cancel) guard.hooks.cancelled = [c = p.cancel] { return c->load(); };
    guard.hooks.cancelReason = p.cancelReason;
    guard.hooks.hostHandlesTermination = p.hostHandlesTermination;
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
