#pragma once
// Writes a JSON Lines trace, compatible with the Python stageload's:
//
//   {"type":"start","utc":"2026-10-05T03:14:39+00:00","interval":0.5,...meta}
//   {"type":"sample","t":1.517,"footprint":423610096,"swap_used":12312248320,"level":88.0,...}
//   {"type":"event","kind":"release","name":"rembg_model","stage":"camera","nbytes":884791968,"t":3.853}
//   {"type":"error","t":0.5,"error":"cannot read /proc/meminfo: ..."}
//   {"type":"end"}
//
//   stageload::TraceWriter w("run.trace.jsonl");      // throws FileError naming the file
//   w.start(0.5, {{"pipeline", "character"}});
//   w.sample(readers.read(0.0));
//   w.event(e, 1.25);
//   w.end();                                          // also done by the destructor
//
// Compact JSON, `t` rounded to 3 decimals, every line flushed as it is written, so a killed run
// leaves a readable trace. All members are thread-safe (one mutex); writes after end() are
// ignored. Write failures after opening are swallowed (a trace must never stop a run) and
// counted in writeFailures().

#include <cstdio>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <set>
#include <string>

#include "guard/base/event.h"
#include "guard/memory/readers.h"

namespace stageload {

class TraceWriter {
public:
    /// Creates (truncates) the file. Throws FileError naming it when it cannot be opened.
    explicit TraceWriter(const std::string& path);
    ~TraceWriter();
    TraceWriter(const TraceWriter&) = delete;
    TraceWriter& operator=(const TraceWriter&) = delete;

    /// The start line; `meta` must be a JSON object (its keys follow utc and interval).
    void start(double interval, const nlohmann::json& meta = nlohmann::json::object(),
               const std::string& utc = {});
    void sample(const MemorySample& s);
    /// An event line at meter time `t` (the event's own t is ignored).
    void event(const Event& e, double t);
    /// An error line, once per distinct message. Returns true when it was written now.
    bool error(const std::string& message, double t);
    /// The next error() with `message` is written again (the failure ended, then came back).
    void forgetError(const std::string& message);
    /// The end line; idempotent.
    void end();

    const std::string& path() const { return path_; }
    int writeFailures() const;
    /// "" while every line was written, else "12 line(s) of the trace could not be written to
    /// PATH (No space left on device); it is incomplete".
    std::string problem() const;

private:
    void writeLine(const std::string& line);

    std::string path_;
    struct FileCloser {
        void operator()(std::FILE* f) const { std::fclose(f); }
    };
    std::unique_ptr<std::FILE, FileCloser> file_;
    mutable std::mutex mutex_;
    std::set<std::string> errorsSeen_;
    bool ended_ = false;
    int failures_ = 0;
    int firstErrno_ = 0;
};

/// The JSON of one event line (exposed for tests and for tools that write their own traces).
nlohmann::ordered_json eventLine(const Event& e, double t);

/// `t` rounded to 3 decimals, as trace lines carry it.
double traceTime(double t);

}  // namespace stageload
