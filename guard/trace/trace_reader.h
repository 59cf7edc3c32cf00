#pragma once
// Reads a JSON Lines trace written by this meter, the guard's --trace or the Python
// stageload.
//
//   stageload::Trace trace = stageload::readTrace("staged-1.trace.jsonl");
//   for (const auto& s : trace.samples) plot(s.t, s.footprint);
//   if (trace.truncated) warn("the run was killed while writing its last line");
//
// A half-written last line (a killed run) is dropped and reported in `truncated`; a broken line
// anywhere else is an error. Unknown line types, unknown event kinds and extra keys are skipped
// (each tool reads the other's traces). Sample and event lines need a numeric "t".
// Throws FileError when the file cannot be read and TraceFormatError ("x.jsonl: line 17: ...")
// naming the file and line. Pure functions, thread-safe.

#include <cstdint>
#include <istream>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "guard/base/error.h"
#include "guard/base/event.h"
#include "guard/memory/readers.h"

namespace stageload {

/// A line of a trace is not a trace line. The message names file and line number.
class TraceFormatError : public Error {
public:
    using Error::Error;
};

struct TraceErrorLine {
    double t = 0.0;
    std::string error;
};

struct Trace {
    nlohmann::json start = nlohmann::json::object();  ///< the start line (meta), {} if none
    std::vector<MemorySample> samples;                ///< in file order; extra keys kept as numbers
    std::vector<Event> events;                        ///< stage events: name = the stage's name
    std::vector<TraceErrorLine> errors;
    bool ended = false;      ///< the end line was seen
    bool truncated = false;  ///< a half-written last line was dropped
    int skippedLines = 0;    ///< lines of unknown type or event kind

    double interval() const;  ///< from the start line, 0 if absent
    std::string utc() const;  ///< from the start line, "" if absent
};

/// One line of a trace, parsed (parseTraceLine()).
struct TraceLine {
    enum class Kind { Blank, Start, Sample, Event, Error, End, Unknown };
    Kind kind = Kind::Blank;
    nlohmann::json start;   ///< Start
    MemorySample sample;    ///< Sample
    Event event;            ///< Event
    TraceErrorLine error;   ///< Error
};

/// A line that is not a valid trace line; what() says why (no file or line number).
class TraceLineError : public Error {
public:
    TraceLineError(const std::string& what, bool notJson) : Error(what), notJson_(notJson) {}
    /// The line is not JSON at all (as a half-written last line is not).
    bool notJson() const { return notJson_; }

private:
    bool notJson_;
};

/// Parses one line (a trailing '\r' is ignored). Unknown types and event kinds are Unknown;
/// TraceLineError for a line that is not JSON, not an object, or has a bad or out-of-range
/// number. Pure and thread-safe; what live followers of a growing trace use line by line.
TraceLine parseTraceLine(std::string_view line);

/// Reads and parses a trace file.
Trace readTrace(const std::string& path);

/// Parses trace text; `name` is used in error messages.
Trace parseTrace(std::istream& in, const std::string& name);

}  // namespace stageload
