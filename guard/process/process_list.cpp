#include "guard/process/process_list.h"

#include <algorithm>
#include <charconv>
#include <map>

#include <unistd.h>

#if !defined(__APPLE__)
#include <cerrno>
#include <cstring>
#include <ctime>

#include <dirent.h>

#include "guard/base/error.h"
#include "guard/base/small_file.h"
#endif

namespace stageload {
namespace {

bool readInt(std::string_view& s, long& out) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    const auto res = std::from_chars(s.data(), s.data() + s.size(), out);
    if (res.ec != std::errc()) return false;
    s.remove_prefix(static_cast<std::size_t>(res.ptr - s.data()));
    return true;
}

}  // namespace

std::optional<ProcessInfo> parseProcStat(std::string_view text) {
    const auto open = text.find('(');
    const auto close = text.rfind(')');
    if (open == std::string_view::npos || close == std::string_view::npos || close < open)
        return std::nullopt;
    ProcessInfo p;
    std::string_view head = text.substr(0, open);
    long pid = 0;
    if (!readInt(head, pid)) return std::nullopt;
    p.pid = static_cast<pid_t>(pid);
    p.comm = std::string(text.substr(open + 1, close - open - 1));
    std::string_view rest = text.substr(close + 1);
    while (!rest.empty() && rest.front() == ' ') rest.remove_prefix(1);
    if (rest.empty()) return std::nullopt;
    p.state = rest.front();
    rest.remove_prefix(1);
    long ppid = 0, pgid = 0;
    if (!readInt(rest, ppid) || !readInt(rest, pgid)) return std::nullopt;
    p.ppid = static_cast<pid_t>(ppid);
    p.pgid = static_cast<pid_t>(pgid);
    // Fields 6 to 21 (session ... itrealvalue; 14 to 17: utime, stime, cutime, cstime), then 22:
    // starttime.
    long field = 0, cpu = 0;
    int n = 6;
    while (n <= 21 && readInt(rest, field)) {
        if (n >= 14 && n <= 17) cpu += field;
        ++n;
    }
    if (n > 17) p.cpuTicks = cpu;
    long start = 0;
    if (n == 22 && readInt(rest, start)) p.startTicks = start;
    return p;
}

std::string joinCmdline(std::string_view raw) {
    while (!raw.empty() && raw.back() == '\0') raw.remove_suffix(1);
    std::string out(raw);
    for (auto& c : out)
        if (c == '\0') c = ' ';
    return out;
}

#if !defined(__APPLE__)
std::optional<double> processAgeSeconds() {
    std::string text;
    if (!readSmallFile("/proc/self/stat", text)) return std::nullopt;
    const auto self = parseProcStat(text);
    const long ticks = ::sysconf(_SC_CLK_TCK);
    timespec now{};
    if (!self || self->startTicks < 0 || ticks <= 0 || ::clock_gettime(CLOCK_BOOTTIME, &now) != 0)
        return std::nullopt;
    return static_cast<double>(now.tv_sec) + static_cast<double>(now.tv_nsec) / 1e9 -
           static_cast<double>(self->startTicks) / static_cast<double>(ticks);
}

std::optional<ProcessInfo> readProcess(pid_t pid) {
    std::string text;
    if (pid <= 0 || !readSmallFile(("/proc/" + std::to_string(pid) + "/stat").c_str(), text)) return std::nullopt;
    return parseProcStat(text);
}

std::vector<ProcessInfo> listProcesses(bool withCmdline) {
    DIR* dir = ::opendir("/proc");
    if (!dir) throw FileError(std::string("cannot list /proc: ") + std::strerror(errno));
    std::vector<ProcessInfo> out;
    std::string text;
    std::string path;
    while (const dirent* entry = ::readdir(dir)) {
        const char* name = entry->d_name;
        if (name[0] < '1' || name[0] > '9') continue;
        path.assign("/proc/").append(name).append("/stat");
        if (!readSmallFile(path.c_str(), text)) continue;  // gone meanwhile
        auto info = parseProcStat(text);
        if (!info) continue;
        if (withCmdline) {
            path.assign("/proc/").append(name).append("/cmdline");
            if (readSmallFile(path.c_str(), text, 64 * 1024) && !text.empty())
                info->cmdline = joinCmdline(text);
            else
                info->cmdline = "[" + info->comm + "]";
        }
        out.push_back(std::move(*info));
    }
    ::closedir(dir);
    return out;
}
#endif

bool processRuns(pid_t pid, long long startTicks) {
    const auto p = readProcess(pid);
    return p && p->startTicks == startTicks && p->state != 'Z' && p->state != 'X';
}

std::set<pid_t> selfAndAncestors(const std::vector<ProcessInfo>& processes) {
    std::map<pid_t, pid_t> parent;
    for (const auto& p : processes) parent[p.pid] = p.ppid;
    std::set<pid_t> out;
    pid_t pid = ::getpid();
    while (pid > 0 && out.insert(pid).second) {
        const auto it = parent.find(pid);
        if (it == parent.end()) break;
        pid = it->second;
    }
    if (out.find(::getppid()) == out.end() && ::getppid() > 0) out.insert(::getppid());
    return out;
}

std::vector<pid_t> liveGroupMembers(const std::vector<ProcessInfo>& processes, pid_t pgid) {
    std::vector<pid_t> out;
    for (const auto& p : processes)
        if (p.pgid == pgid && p.state != 'Z' && p.state != 'X') out.push_back(p.pid);
    return out;
}

std::optional<double> groupCpuSeconds(const std::vector<ProcessInfo>& processes, pid_t pgid,
                                      const std::vector<pid_t>& others) {
    long long ticks = 0;
    bool known = false;
    for (const auto& p : processes) {
        if (p.pgid != pgid && std::find(others.begin(), others.end(), p.pid) == others.end()) continue;
        if (p.cpuTicks < 0) continue;
        ticks += p.cpuTicks;
        known = true;
    }
    if (!known) return std::nullopt;
    static const long perSecond = sysconf(_SC_CLK_TCK);
    return static_cast<double>(ticks) / static_cast<double>(perSecond > 0 ? perSecond : 100);
}

}  // namespace stageload
