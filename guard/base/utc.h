#pragma once
// UTC timestamps as traces and guard logs write them.
//
//   stageload::utcTimestamp();                 // "2026-10-05T03:14:39+00:00" (trace start line)
//   stageload::utcTimestamp(now, true);        // "2026-10-05T03:14:39.123Z"  (guard log lines)
//
// Pure and thread-safe (uses gmtime_r); throws nothing.

#include <chrono>
#include <string>

namespace stageload {

/// Seconds precision with "+00:00" (the Python stageload form), or milliseconds with "Z".
std::string utcTimestamp(
    std::chrono::system_clock::time_point when = std::chrono::system_clock::now(),
    bool millis = false);

}  // namespace stageload
