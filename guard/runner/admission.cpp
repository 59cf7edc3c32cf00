#include "guard/runner/admission.h"

#include <algorithm>

#include "guard/base/error.h"
#include "guard/process/signal_block.h"

namespace stageload {

AdmissionResult awaitAdmission(GuardPolicy& policy, const AdmissionLoop& loop) {
    AdmissionResult a;
    const auto cancelled = [&] { return loop.cancelled && loop.cancelled(); };
    for (;;) {
        try {
            a.readings = loop.read();
        } catch (const Error& e) {
            a.end = Admission::ReadError;
            a.error = e.what();
            return a;
        }
        a.decision = policy.admit(a.readings);
        if (loop.onDecision) loop.onDecision(a.decision, a.readings);
        if (a.decision.action == GuardAction::Start) {
            policy.started(a.readings);
            a.end = Admission::Start;
            return a;
        }
        if (a.decision.action == GuardAction::GiveUp) {
            a.end = Admission::GiveUp;
            return a;
        }
        // Until the next poll, or the start timeout when that comes first (the policy then gives
        // up at the next reading).
        const double remaining = policy.params().startTimeout - a.readings.t;
        const double wait = std::min(policy.params().poll, std::max(remaining, 0.0));
        double waited = 0.0;
        do {
            if (cancelled()) {
                a.end = Admission::Cancelled;
                return a;
            }
            const double s = loop.cancelled ? std::min(wait - waited, std::max(loop.tick, 0.01)) : wait - waited;
            const int sig = loop.sleep(s);
            waited += s;
            if (SignalBlock::isTermination(sig)) {
                a.end = Admission::Signal;
                a.signal = sig;
                return a;
            }
        } while (waited < wait);
    }
}

}  // namespace stageload
