#pragma once
// Waiting for room to start, written once: `stageload guard` (Guard::run) and the built-in
// character job both admit their run through here, so they wait, give up, cancel and stop on a
// signal the same way.
//
//   stageload::AdmissionLoop loop;
//   loop.read = [&] { return readingsNow(); };                 // throws Error: ends ReadError
//   loop.sleep = [&](double s) { return signals.wait(s); };   // a signal number, or 0
//   loop.cancelled = [&] { return cancel.load(); };          // optional
//   loop.onDecision = [](const GuardDecision& d, const GuardReadings&) { if (d.changed) log(d); };
//   auto a = stageload::awaitAdmission(policy, loop);           // Start: policy.started() done
//
// Polls every policy.params().poll seconds (at most), cut into `tick`s while `cancelled` is set
// so a cancel is seen within one. Runs on the caller's thread; throws nothing itself.

#include <functional>
#include <string>

#include "guard/policy/guard_policy.h"

namespace stageload {

struct AdmissionLoop {
    std::function<GuardReadings()> read;
    /// Waits up to `seconds`; returns the number of a signal that ended the wait early, else 0.
    std::function<int(double seconds)> sleep;
    std::function<bool()> cancelled;  ///< empty: cannot be cancelled
    double tick = 0.05;               ///< the longest single sleep while `cancelled` is set
    /// Every decision, as it is made (a Wait each poll, then Start or GiveUp).
    std::function<void(const GuardDecision&, const GuardReadings&)> onDecision;
};

enum class Admission {
    Start,      ///< room: policy.started() was called with `readings`
    GiveUp,     ///< no room within --start-timeout
    Cancelled,  ///< `cancelled` said so while waiting
    Signal,     ///< `sleep` returned a termination signal (SIGTERM, SIGINT, SIGHUP, SIGQUIT)
    ReadError,  ///< `read` threw; `error` says what
};

struct AdmissionResult {
    Admission end = Admission::Start;
    GuardDecision decision;  ///< the last decision (Start or GiveUp carry the readings)
    GuardReadings readings;  ///< the readings behind it
    int signal = 0;          ///< Signal: its number
    std::string error;       ///< ReadError: the reader's message
};

AdmissionResult awaitAdmission(GuardPolicy& policy, const AdmissionLoop& loop);

}  // namespace stageload
