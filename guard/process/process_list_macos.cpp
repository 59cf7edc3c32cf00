// macOS process table (compiled only under __APPLE__; not run on this project's Linux CI).
#include "guard/process/process_list.h"

#if defined(__APPLE__)
#include <cerrno>
#include <cstring>
#include <string>

#include <sys/sysctl.h>

#include "guard/base/error.h"

namespace stageload {
namespace {

/// KERN_PROCARGS2: argc, exec path, NULs, then argv[0..argc) NUL-separated.
std::string commandLine(pid_t pid) {
    int mib[3] = {CTL_KERN, KERN_PROCARGS2, static_cast<int>(pid)};
    int argmax = 0;
    std::size_t len = sizeof argmax;
    int maxmib[2] = {CTL_KERN, KERN_ARGMAX};
    if (sysctl(maxmib, 2, &argmax, &len, nullptr, 0) != 0 || argmax <= 0) return {};
    std::string buf(static_cast<std::size_t>(argmax), '\0');
    len = buf.size();
    if (sysctl(mib, 3, buf.data(), &len, nullptr, 0) != 0 || len < sizeof(int)) return {};
    int argc = 0;
    std::memcpy(&argc, buf.data(), sizeof argc);
    std::size_t pos = sizeof argc;
    while (pos < len && buf[pos] != '\0') ++pos;  // exec path
    while (pos < len && buf[pos] == '\0') ++pos;  // padding
    std::string out;
    for (int i = 0; i < argc && pos < len; ++i) {
        const std::size_t end = buf.find('\0', pos);
        if (!out.empty()) out += ' ';
        out.append(buf, pos, (end == std::string::npos ? len : end) - pos);
        pos = end == std::string::npos ? len : end + 1;
    }
    return out;
}

}  // namespace

std::optional<double> processAgeSeconds() {
    return std::nullopt;  // callers fall back to their own clock (start of main)
}

std::optional<ProcessInfo> readProcess(pid_t pid) {
    for (auto& p : listProcesses(false))
        if (p.pid == pid) return std::move(p);
    return std::nullopt;
}

std::vector<ProcessInfo> listProcesses(bool withCmdline) {
    int mib[4] = {CTL_KERN, KERN_PROC, KERN_PROC_ALL, 0};
    std::size_t len = 0;
    if (sysctl(mib, 3, nullptr, &len, nullptr, 0) != 0)
        throw FileError(std::string("sysctl KERN_PROC_ALL failed: ") + std::strerror(errno));
    std::vector<kinfo_proc> procs(len / sizeof(kinfo_proc) + 16);
    len = procs.size() * sizeof(kinfo_proc);
    if (sysctl(mib, 3, procs.data(), &len, nullptr, 0) != 0)
        throw FileError(std::string("sysctl KERN_PROC_ALL failed: ") + std::strerror(errno));
    procs.resize(len / sizeof(kinfo_proc));
    std::vector<ProcessInfo> out;
    out.reserve(procs.size());
    for (const auto& kp : procs) {
        ProcessInfo p;
        p.pid = kp.kp_proc.p_pid;
        p.ppid = kp.kp_eproc.e_ppid;
        p.pgid = kp.kp_eproc.e_pgid;
        p.state = kp.kp_proc.p_stat == SZOMB ? 'Z' : 'R';
        p.comm = kp.kp_proc.p_comm;
        if (withCmdline) {
            p.cmdline = commandLine(p.pid);
            if (p.cmdline.empty()) p.cmdline = "[" + p.comm + "]";
        }
        out.push_back(std::move(p));
    }
    return out;
}

}  // namespace stageload
#endif
