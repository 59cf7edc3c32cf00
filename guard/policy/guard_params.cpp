#include "guard/policy/guard_params.h"

#include <limits>

#include <cmath>

#include "guard/base/error.h"
#include "guard/base/units.h"
#include "guard/policy/busy_patterns.h"

namespace stageload {
namespace {

void percent(double v, const char* key, const char* flag) {
    if (!(v >= 0.0 && v <= 100.0))
        throw SettingError(key, std::string(flag) + " " + formatNumber(v),
                           "out of range, expected 0 to 100");
}

void nonNegative(double v, const char* key, const char* flag) {
    if (!(v >= 0.0) || !std::isfinite(v))
        throw SettingError(key, flag, "out of range, must not be negative");
}

}  // namespace

void validate(const GuardParams& p) {
    percent(p.waitFree, "waitFree", "--wait-free");
    percent(p.killFree, "killFree", "--kill-free");
    if (p.swapBudget < 0)
        throw SettingError("swapBudget", "--swap-budget", "out of range, must not be negative");
    if (p.swapLimit && *p.swapLimit < 0)
        throw SettingError("swapLimit", "--swap-limit", "out of range, must not be negative");
    if (p.need && *p.need < 0) throw SettingError("need", "--need", "out of range, must not be negative");
    if (p.pressureWait) percent(*p.pressureWait, "pressureWait", "--pressure-wait");
    if (p.pressureKill) {
        percent(p.pressureKill->percent, "pressureKill", "--pressure-kill");
        if (!(p.pressureKill->seconds > 0.0) || !std::isfinite(p.pressureKill->seconds))
            throw SettingError("pressureKill", "--pressure-kill",
                               "needs how long the pressure must last, e.g. 60/10s");
    }
    if (p.stallKill && (!(*p.stallKill > 0.0) || !std::isfinite(*p.stallKill)))
        throw SettingError("stallKill", "--stall-kill", "a zero stall time is refused, use e.g. 10m");
    nonNegative(p.quietFor, "quietFor", "--quiet-for");
    nonNegative(p.startTimeout, "startTimeout", "--start-timeout");
    nonNegative(p.stopGrace, "stopGrace", "stop grace");
    if (!(p.poll > 0.0) || !std::isfinite(p.poll))
        throw SettingError("poll", "--poll", "a zero poll is refused, use e.g. 5s or 250ms");
    if (!p.tracePath.empty() && !(p.traceInterval >= 0.02))
        throw SettingError("traceInterval", "--trace-interval", "out of range, at least 20ms");
    try {
        BusyPatterns check(p.busy);
    } catch (const UsageError& e) {
        throw SettingError("busy", "--busy", e.what());
    }
}

std::string guardWarning(const GuardParams& p) {
    if (p.waitFree > 0 && p.killFree >= p.waitFree)
        return "the stop level (" + formatNumber(p.killFree) + " % free) is at or above the start level (" +
               formatNumber(p.waitFree) + " %): a run that starts with less than " + formatNumber(p.killFree) +
               " % free is stopped at once; keep it below the start level";
    return {};
}

GuardParams guardOff(GuardParams p) {
    p.waitFree = 0;
    p.killFree = 0;
    p.swapBudget = std::numeric_limits<std::int64_t>::max() / 2;
    p.swapLimit.reset();
    p.need.reset();
    p.needForecast = false;
    p.pressureWait.reset();
    p.pressureKill.reset();
    p.stallKill.reset();
    p.busy.clear();
    return p;
}

}  // namespace stageload
