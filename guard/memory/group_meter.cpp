#include "guard/memory/group_meter.h"

#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <string>

#include "guard/base/error.h"
#include "guard/base/small_file.h"
#include "guard/memory/process_memory.h"
#include "guard/process/process_list.h"

namespace stageload {

struct GroupMeter::Member {
    explicit Member(pid_t pid)
        : statm(("/proc/" + std::to_string(pid) + "/statm").c_str()),
          children(("/proc/" + std::to_string(pid) + "/task/" + std::to_string(pid) + "/children").c_str()) {}
    KeptFile statm;
    KeptFile children;
};

namespace {

double steadySeconds() {
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// "size resident shared ..." in pages: the resident bytes, or nullopt for a process without
// memory (a zombie: its address space is gone) or text that is not a statm line.
std::optional<std::int64_t> residentOf(const std::string& statm) {
    static const long page = ::sysconf(_SC_PAGESIZE);
    char* end = nullptr;
    const long long size = std::strtoll(statm.c_str(), &end, 10);
    if (end == statm.c_str() || size <= 0) return std::nullopt;
    const char* rest = end;
    const long long resident = std::strtoll(rest, &end, 10);
    if (end == rest || resident < 0) return std::nullopt;
    return static_cast<std::int64_t>(resident) * page;
}

}  // namespace

GroupMeter::GroupMeter(pid_t pgid, double fullScanEvery, std::function<double()> clock)
    : pgid_(pgid), fullScanEvery_(fullScanEvery), clock_(clock ? std::move(clock) : steadySeconds) {}

GroupMeter::~GroupMeter() = default;

int GroupMeter::processes() const {
    std::lock_guard lock(mutex_);
    return processes_;
}

int GroupMeter::fullScans() const {
    std::lock_guard lock(mutex_);
    return fullScans_;
}

std::map<pid_t, long long> GroupMeter::leavers() const {
    std::lock_guard lock(mutex_);
    return leavers_;
}

std::size_t GroupMeter::leaverCount() const {
    std::lock_guard lock(mutex_);
    return leavers_.size();
}

void GroupMeter::add(pid_t pid) {
    if (members_.size() >= kMaxKept) {
        overflow_ = true;
        return;
    }
    auto member = std::make_unique<Member>(pid);
    if (member->statm.isOpen())
        members_.emplace(pid, std::move(member));
    else if (errno == EMFILE || errno == ENFILE)
        overflow_ = true;  // no descriptor left: counted by scanning instead
}

std::int64_t GroupMeter::scannedFootprint() {
    ++fullScans_;
    std::int64_t total = 0;
    int counted = 0;
    try {
        for (pid_t pid : liveGroupMembers(listProcesses(false), pgid_)) {
            try {
                total += readFootprint(pid);
                ++counted;
            } catch (const FileError&) {
                // exited between the listing and the read
            }
        }
    } catch (const Error&) {
    }
    processes_ = counted;
    return total;
}

void GroupMeter::fullScan() {
    ++fullScans_;
    outsiders_.clear();
    std::vector<ProcessInfo> processes;
    try {
        processes = listProcesses(false);
    } catch (const Error&) {
        return;  // /proc unreadable: keep what is known
    }
    std::set<pid_t> live;
    for (pid_t pid : liveGroupMembers(processes, pgid_)) {
        live.insert(pid);
        if (!members_.count(pid)) add(pid);
    }
    for (auto it = members_.begin(); it != members_.end();)
        it = live.count(it->first) ? std::next(it) : members_.erase(it);
}

void GroupMeter::findChildren() {
    std::string text;
    std::vector<pid_t> found;
    for (const auto& [pid, member] : members_) {
        if (!member->children.isOpen() || !member->children.read(text)) continue;
        const char* p = text.c_str();
        for (;;) {
            char* end = nullptr;
            const long child = std::strtol(p, &end, 10);
            if (end == p) break;
            p = end;
            if (child > 0 && !members_.count(pid_t(child)) && !outsiders_.count(pid_t(child)))
                found.push_back(pid_t(child));
        }
    }
    for (pid_t child : found) {
        const auto info = readProcess(child);
        const bool running = info && info->state != 'Z' && info->state != 'X';
        if (running && info->pgid == pgid_) {
            add(child);
            continue;
        }
        outsiders_.insert(child);  // left the group (setsid, setpgid) or gone
        if (running && info->startTicks >= 0) leavers_.emplace(child, info->startTicks);
    }
}

std::int64_t GroupMeter::footprint() {
    std::lock_guard lock(mutex_);
#if defined(__linux__)
    if (overflow_) return scannedFootprint();  // too many members to keep open
    const double now = clock_();
    if (!scanned_ || now >= nextScan_) {
        fullScan();
        scanned_ = true;
        nextScan_ = now + fullScanEvery_;
        nextChildren_ = now + kChildrenEvery;
    } else if (now >= nextChildren_) {
        findChildren();
        nextChildren_ = now + kChildrenEvery;
    }
    if (overflow_) return scannedFootprint();
    std::int64_t total = 0;
    int counted = 0;
    std::string text;
    for (auto it = members_.begin(); it != members_.end();) {
        std::optional<std::int64_t> resident;
        if (it->second->statm.read(text)) resident = residentOf(text);
        if (!resident) {
            it = members_.erase(it);  // exited (a zombie, or reaped)
            continue;
        }
        total += *resident;
        ++counted;
        ++it;
    }
    processes_ = counted;
    return total;
#else
    return scannedFootprint();
#endif
}

}  // namespace stageload
