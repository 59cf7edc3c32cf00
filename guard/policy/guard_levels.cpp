#include "guard/policy/guard_levels.h"

namespace stageload {
namespace {

std::optional<double> percentAt(const nlohmann::json& levels, const char* key) {
    const auto it = levels.find(key);
    if (it == levels.end()) return 0.0;
    if (!it->is_number()) return std::nullopt;
    const double v = it->get<double>();
    if (!(v >= 0.0 && v <= 100.0)) return std::nullopt;  // NaN too
    return v;
}

}  // namespace

GuardLevels guardLevels(const GuardParams& p) {
    return {p.waitFree, p.killFree};
}

nlohmann::json guardLevelsMeta(const GuardParams& p) {
    const GuardLevels levels = guardLevels(p);
    return {{"start_free", levels.startFree}, {"stop_free", levels.stopFree}};
}

std::optional<GuardLevels> guardLevelsOf(const nlohmann::json& start) {
    if (!start.is_object()) return std::nullopt;
    const auto it = start.find(kGuardLevelsKey);
    if (it == start.end() || !it->is_object()) return std::nullopt;
    const auto startFree = percentAt(*it, "start_free");
    const auto stopFree = percentAt(*it, "stop_free");
    if (!startFree || !stopFree) return std::nullopt;
    const GuardLevels levels{*startFree, *stopFree};
    if (!levels.any()) return std::nullopt;
    return levels;
}

}  // namespace stageload
