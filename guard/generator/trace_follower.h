#pragma once
// Follows a trace another program is writing: the file may appear late, grow line by line, end
// with a half-written line, or hold garbage. Each poll() hands out the lines completed since the
// last one, parsed; bad lines are counted (with the first one kept for the message) and skipped.
//
//   stageload::TraceFollower follow("run/command.trace.jsonl");
//   for (;;) {
//       for (const auto& line : follow.poll()) use(line);      // never throws
//       ...
//   }
//   follow.finish();                                          // the last line, even unfinished
//
// Reads at most 4 MiB a poll, so a huge file is caught up over several polls. Not thread-safe:
// one owner.

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "guard/trace/trace_reader.h"

namespace stageload {

class TraceFollower {
public:
    explicit TraceFollower(std::filesystem::path path);

    /// The lines completed since the last call (blank lines left out).
    std::vector<TraceLine> poll();
    /// Reads what is left; a last line without its newline is parsed too (and counted as
    /// half-written when it does not parse).
    std::vector<TraceLine> finish();

    const std::filesystem::path& path() const { return path_; }
    bool found() const { return found_; }         ///< the file has appeared
    int lines() const { return lines_; }          ///< good lines so far
    int badLines() const { return badLines_; }    ///< lines that were not trace lines
    bool halfWritten() const { return halfWritten_; }  ///< finish() found an unfinished last line
    /// "line 17: not a JSON line: '...'" for the first bad line, "" when none.
    const std::string& firstProblem() const { return firstProblem_; }

private:
    void take(std::string line, std::vector<TraceLine>& out);

    std::filesystem::path path_;
    std::uint64_t offset_ = 0;
    std::string pending_;  ///< bytes after the last newline
    bool found_ = false;
    int lineNo_ = 0;
    int lines_ = 0;
    int badLines_ = 0;
    bool halfWritten_ = false;
    std::string firstProblem_;
};

}  // namespace stageload
