#pragma once
// Measures what the meter and the guard cost (`stageload bench guard`).
//
//   double pct = stageload::meterCpuPercent(0.02, 5.0);       // % of one core at 20 ms
//   auto r = stageload::guardReaction(0.5, false);            // breach -> group gone, seconds
//
// meterCpuPercent() runs a Meter with the real readers (writing a trace to a temporary file)
// for `seconds` while this thread sleeps, and divides the process's CPU time by the wall time.
// guardReaction() runs a real command (`sleep`, or a shell whose child ignores SIGTERM when
// `ignoreTerm`) under the guard with a simulated swap breach at a known instant and times it.
// Both block for their duration; not meant to run concurrently with other work in the process.
// Throw FileError when the temporary trace cannot be written.

namespace stageload {

double meterCpuPercent(double interval, double seconds);

struct ReactionTime {
    double detect = 0.0;  ///< breach -> stop decision (bounded by --poll)
    double gone = 0.0;    ///< breach -> whole group gone
    int exitCode = 0;     ///< the guard's exit code (3 expected)
};

ReactionTime guardReaction(double poll, bool ignoreTerm);

}  // namespace stageload
