#include "guard/runner/leftover_group.h"

#include <chrono>
#include <fstream>
#include <limits>
#include <thread>

#include "guard/base/units.h"
#include "guard/memory/readers.h"
#include "guard/process/group_command.h"
#include "guard/process/process_list.h"
#include "guard/trace/trace_reader.h"

namespace stageload {

std::string LeftoverGroup::describe() const {
    std::string text = "group " + std::to_string(pgid);
    if (!command.empty()) text += " (" + (command.size() > 60 ? command.substr(0, 59) + "…" : command) + ")";
    text += ": " + std::to_string(members.size()) + (members.size() == 1 ? " process" : " processes");
    if (footprint > 0) text += " holding " + formatBytes(footprint);
    return text;
}

std::optional<LeftoverGroup> findLeftoverGroup(const nlohmann::json& start) {
    if (!start.is_object()) return std::nullopt;
    const auto group = start.find(kGroupKey);
    const auto since = start.find(kGroupStartKey);
    if (group == start.end() || since == start.end() || !group->is_number_integer() || !since->is_number_integer())
        return std::nullopt;
    const auto pgid = group->get<long long>();
    const auto leaderStart = since->get<long long>();
    if (pgid <= 1 || pgid > std::numeric_limits<pid_t>::max() || leaderStart < 0) return std::nullopt;

    LeftoverGroup left;
    left.pgid = static_cast<pid_t>(pgid);
    try {
        for (const auto& p : listProcesses(false)) {
            if (p.pgid != left.pgid || p.state == 'Z') continue;
            if (p.pid == left.pgid && p.startTicks != leaderStart) return std::nullopt;  // a later group
            if (p.startTicks >= 0 && p.startTicks < leaderStart) continue;  // older: not of it
            left.members.push_back(p.pid);
        }
    } catch (const Error&) {
        return std::nullopt;
    }
    if (left.members.empty()) return std::nullopt;
    try {
        left.footprint = readGroupFootprint(left.pgid);
    } catch (const Error&) {  // a process table that cannot be read: the members are enough
    }
    if (const auto cmd = start.find("command"); cmd != start.end() && cmd->is_array())
        for (const auto& arg : *cmd)
            if (arg.is_string()) left.command += (left.command.empty() ? "" : " ") + arg.get<std::string>();
    return left;
}

std::optional<LeftoverGroup> findLeftoverGroup(const std::string& tracePath) {
    std::ifstream in(tracePath);
    std::string first;
    if (!in || !std::getline(in, first)) return std::nullopt;
    try {
        const TraceLine line = parseTraceLine(first);
        if (line.kind != TraceLine::Kind::Start) return std::nullopt;
        return findLeftoverGroup(line.start);
    } catch (const Error&) {
        return std::nullopt;
    }
}

bool stopLeftoverGroup(const LeftoverGroup& group, double grace) {
    GroupCommand adopted(GroupCommand::Adopt{}, group.pgid);
    return adopted.stop(grace, [](double s) { std::this_thread::sleep_for(std::chrono::duration<double>(s)); });
}

}  // namespace stageload
