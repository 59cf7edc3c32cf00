#include "guard/memory/readers.h"

#include <atomic>
#include <cmath>
#include <limits>
#include <memory>
#include <string>

#include <unistd.h>

#include "guard/base/error.h"
#include "guard/base/small_file.h"
#include "guard/memory/gpu_memory.h"
#include "guard/memory/pressure.h"
#include "guard/memory/process_memory.h"

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
    for (const auto& [key, fn] : extra)
        if (const double v = fn(); std::isfinite(v)) s.extra.emplace_back(key, v);  // NaN: none now
    return s;
}

namespace {

/// "cuda": the GPU memory of the processes `member` accepts, where an NVIDIA driver is.
void addGpuReader(MemoryReaders& r, std::function<bool(pid_t)> member) {
    if (auto gpu = GpuMemory::driver())
        r.extra.emplace_back("cuda", [gpu, member = std::move(member)] {
            return static_cast<double>(gpu->usedBy(member));
        });
}

}  // namespace

#if !defined(__APPLE__)
namespace {

/// The machine's memory from /proc/meminfo held open (a read, not an open, a read and a close).
SystemMemory systemFrom(const KeptFile& meminfo) {
    thread_local std::string text;
    if (!meminfo.read(text)) return readSystemMemory();  // throws a FileError with errno
    return parseMeminfo(text);
}

/// /proc/<pid>/status and /proc/meminfo kept open, read once per sample: the footprint reader
/// reads status and keeps VmSwap for the "process_swap" extra, which read() calls right after.
struct LinuxSampler {
    explicit LinuxSampler(pid_t pid)
        : path(pid == 0 ? std::string("/proc/self/status")
                        : "/proc/" + std::to_string(pid) + "/status")
        , status(path.c_str())
        , meminfo("/proc/meminfo") {}

    std::int64_t footprint() {
        thread_local std::string text;
        if (!status.read(text) || text.empty())
            throw FileError("cannot read " + path + ": no such process");
        const ProcessMemory m = parseProcStatus(text);
        swap.store(m.swap);
        return m.rss;
    }

    SystemMemory system() const { return systemFrom(meminfo); }

    std::string path;
    KeptFile status;
    KeptFile meminfo;
    std::atomic<std::int64_t> swap{0};
};

}  // namespace
#endif

namespace {

// The machine's memory pressure (PSI full avg10, %) where the kernel reports it.
void addPressureReader(MemoryReaders& r) {
    if (!readMemoryPressure()) return;
    r.extra.emplace_back(kMemoryPressureKey, [] {
        const auto p = readMemoryPressure();
        return p ? p->fullAvg10 : std::numeric_limits<double>::quiet_NaN();
    });
}

}  // namespace

MemoryReaders processReaders(pid_t pid) {
    MemoryReaders r;
#if defined(__APPLE__)
    r.footprint = [pid] { return readFootprint(pid); };
    r.system = [] { return readSystemMemory(); };
#else
    auto sampler = std::make_shared<LinuxSampler>(pid);
    r.footprint = [sampler] { return sampler->footprint(); };
    r.system = [sampler] { return sampler->system(); };
    r.extra.emplace_back("process_swap",
                         [sampler] { return static_cast<double>(sampler->swap.load()); });
#endif
    const pid_t target = pid == 0 ? ::getpid() : pid;
    addGpuReader(r, [target](pid_t p) { return p == target; });
    addPressureReader(r);
    return r;
}

std::int64_t readGroupFootprint(pid_t pgid) { return GroupMeter(pgid).footprint(); }

MemoryReaders groupReaders(pid_t pgid) { return groupReaders(std::make_shared<GroupMeter>(pgid)); }

MemoryReaders groupReaders(std::shared_ptr<GroupMeter> group) {
    const pid_t pgid = group->pgid();
    MemoryReaders r;
    // One meter for both readers: read() calls the footprint first, so "processes" is the count
    // of the same sample.
    r.footprint = [group] { return group->footprint(); };
#if defined(__APPLE__)
    r.system = [] { return readSystemMemory(); };
#else
    auto meminfo = std::make_shared<KeptFile>("/proc/meminfo");
    r.system = [meminfo] { return systemFrom(*meminfo); };
#endif
    r.extra.emplace_back("processes", [group] { return static_cast<double>(group->processes()); });
    addGpuReader(r, [pgid](pid_t p) { return ::getpgid(p) == pgid; });
    addPressureReader(r);
    return r;
}

}  // namespace stageload
