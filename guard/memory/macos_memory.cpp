#include "guard/memory/macos_memory.h"

#if defined(__APPLE__)
#include <cerrno>
#include <cstring>
#include <string>

#include <libproc.h>
#include <sys/resource.h>
#include <sys/sysctl.h>
#include <unistd.h>

#include "guard/base/error.h"

namespace stageload::macos {

std::int64_t readFootprint(pid_t pid) {
    rusage_info_v4 info{};
    const pid_t target = pid == 0 ? getpid() : pid;
    if (proc_pid_rusage(target, RUSAGE_INFO_V4, reinterpret_cast<rusage_info_t*>(&info)) != 0)
        throw FileError("proc_pid_rusage(" + std::to_string(target) +
                        ") failed: " + std::strerror(errno));
    return static_cast<std::int64_t>(info.ri_phys_footprint);
}

SystemMemory readSystemMemory() {
    SystemMemory m;
    std::uint64_t memsize = 0;
    std::size_t len = sizeof memsize;
    if (sysctlbyname("hw.memsize", &memsize, &len, nullptr, 0) != 0)
        throw FileError(std::string("sysctl hw.memsize failed: ") + std::strerror(errno));
    int level = 0;
    len = sizeof level;
    if (sysctlbyname("kern.memorystatus_level", &level, &len, nullptr, 0) != 0)
        throw FileError(std::string("sysctl kern.memorystatus_level failed: ") +
                        std::strerror(errno));
    xsw_usage swap{};
    len = sizeof swap;
    if (sysctlbyname("vm.swapusage", &swap, &len, nullptr, 0) != 0)
        throw FileError(std::string("sysctl vm.swapusage failed: ") + std::strerror(errno));
    m.total = static_cast<std::int64_t>(memsize);
    m.available = static_cast<std::int64_t>(memsize / 100 * static_cast<std::uint64_t>(level));
    m.swapTotal = static_cast<std::int64_t>(swap.xsu_total);
    m.swapFree = static_cast<std::int64_t>(swap.xsu_avail);
    return m;
}

}  // namespace stageload::macos
#endif
