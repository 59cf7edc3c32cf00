#include "guard/memory/readers.h"

#include <cmath>

#include "guard/core/error.h"
#include "guard/memory/process_memory.h"
#include "guard/process/process_list.h"

namespace stageload {

MemorySample MemoryReaders::read(double t) const {
    MemorySample s;
    s.t = t;
    s.footprint = footprint();
    const SystemMemory m = system();
    s.swapUsed = m.swapUsed();
    s.level = m.availablePercent();
    s.available = m.available;
    s.extra.reserve(extra.size());
    for (const auto& [key, fn] : extra) s.extra.emplace_back(key, fn());
    return s;
}

MemoryReaders processReaders(pid_t pid) {
    MemoryReaders r;
    r.footprint = [pid] { return readFootprint(pid); };
    r.system = [] { return readSystemMemory(); };
#if !defined(__APPLE__)
    r.extra.emplace_back("process_swap",
                         [pid] { return static_cast<double>(readProcessMemory(pid).swap); });
#endif
    return r;
}

std::int64_t readGroupFootprint(pid_t pgid) {
    std::int64_t total = 0;
    for (pid_t pid : liveGroupMembers(listProcesses(false), pgid)) {
        try {
            total += readFootprint(pid);
        } catch (const FileError&) {
            // exited between the listing and the read
        }
    }
    return total;
}

MemoryReaders groupReaders(pid_t pgid) {
    MemoryReaders r;
    r.footprint = [pgid] { return readGroupFootprint(pgid); };
    r.system = [] { return readSystemMemory(); };
    r.extra.emplace_back("processes", [pgid] {
        return static_cast<double>(liveGroupMembers(listProcesses(false), pgid).size());
    });
    return r;
}

}  // namespace stageload
