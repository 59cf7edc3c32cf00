#include "guard/memory/gpu_memory.h"

#include <string>

#include "guard/base/error.h"

#if defined(__linux__)
#include <dlfcn.h>
#endif

namespace stageload {

GpuMemory::GpuMemory(NvmlDevices devices) : devices_(std::move(devices)) {}

unsigned GpuMemory::deviceCount() const { return devices_.count(); }

std::int64_t GpuMemory::usedBy(const std::function<bool(pid_t)>& member) const {
    std::int64_t total = 0;
    const unsigned n = devices_.count();
    for (unsigned d = 0; d < n; ++d)
        for (const GpuProcess& p : devices_.computeProcesses(d))
            if (p.bytes > 0 && member(p.pid)) total += p.bytes;
    return total;
}

#if defined(__linux__)
namespace {

// The few pieces of NVML's C interface used here (nvml.h, stable since driver 450).
using NvmlReturn = int;
using NvmlDevice = void*;
constexpr NvmlReturn kSuccess = 0;
constexpr NvmlReturn kInsufficientSize = 7;
constexpr unsigned long long kValueNotAvailable = ~0ULL;

struct ProcessInfoV1 {  // nvmlProcessInfo_v1_t, for nvmlDeviceGetComputeRunningProcesses
    unsigned int pid;
    unsigned long long usedGpuMemory;
};
struct ProcessInfoV2 {  // nvmlProcessInfo_v2_t, for the _v2 and _v3 entry points
    unsigned int pid;
    unsigned long long usedGpuMemory;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
};

/// libnvidia-ml.so.1, opened once and never closed (NVML stays initialised for the process).
class DriverNvml {
public:
    static DriverNvml* open() {
        void* lib = ::dlopen("libnvidia-ml.so.1", RTLD_NOW | RTLD_LOCAL);
        if (!lib) return nullptr;
        auto* nvml = new DriverNvml(lib);
        if (nvml->start()) return nvml;
        delete nvml;
        ::dlclose(lib);
        return nullptr;
    }

    unsigned count() const { return static_cast<unsigned>(devices_.size()); }

    std::vector<GpuProcess> computeProcesses(unsigned device) const {
        if (device >= devices_.size()) return {};
        return v2_ ? list<ProcessInfoV2>(v2_, device) : list<ProcessInfoV1>(v1_, device);
    }

private:
    using InitFn = NvmlReturn (*)();
    using CountFn = NvmlReturn (*)(unsigned*);
    using HandleFn = NvmlReturn (*)(unsigned, NvmlDevice*);
    using ErrorFn = const char* (*)(NvmlReturn);
    template <class Info>
    using ProcessesFn = NvmlReturn (*)(NvmlDevice, unsigned*, Info*);

    explicit DriverNvml(void* lib) : lib_(lib) {}

    template <class Fn>
    Fn symbol(const char* name) const {
        return reinterpret_cast<Fn>(::dlsym(lib_, name));
    }

    bool start() {
        auto init = symbol<InitFn>("nvmlInit_v2");
        auto getCount = symbol<CountFn>("nvmlDeviceGetCount_v2");
        auto handle = symbol<HandleFn>("nvmlDeviceGetHandleByIndex_v2");
        error_ = symbol<ErrorFn>("nvmlErrorString");
        v2_ = symbol<ProcessesFn<ProcessInfoV2>>("nvmlDeviceGetComputeRunningProcesses_v3");
        if (!v2_) v2_ = symbol<ProcessesFn<ProcessInfoV2>>("nvmlDeviceGetComputeRunningProcesses_v2");
        if (!v2_) v1_ = symbol<ProcessesFn<ProcessInfoV1>>("nvmlDeviceGetComputeRunningProcesses");
        if (!init || !getCount || !handle || (!v2_ && !v1_) || init() != kSuccess) return false;
        unsigned n = 0;
        if (getCount(&n) != kSuccess || n == 0) return false;
        for (unsigned i = 0; i < n; ++i) {
            NvmlDevice d = nullptr;
            if (handle(i, &d) == kSuccess) devices_.push_back(d);
        }
        return !devices_.empty();
    }

    template <class Info>
    std::vector<GpuProcess> list(ProcessesFn<Info> fn, unsigned device) const {
        // The list can grow between asking its size and reading it: retry a few times.
        std::vector<Info> infos(16);
        for (int attempt = 0; attempt < 4; ++attempt) {
            unsigned n = static_cast<unsigned>(infos.size());
            const NvmlReturn rc = fn(devices_[device], &n, infos.data());
            if (rc == kInsufficientSize) {
                infos.resize(n + 16);
                continue;
            }
            if (rc != kSuccess)
                throw Error("NVML cannot list the processes on GPU " + std::to_string(device) +
                            ": " + (error_ ? error_(rc) : "error " + std::to_string(rc)));
            std::vector<GpuProcess> out;
            out.reserve(n);
            for (unsigned i = 0; i < n && i < infos.size(); ++i) {
                const auto bytes = infos[i].usedGpuMemory;
                out.push_back({static_cast<pid_t>(infos[i].pid),
                               bytes == kValueNotAvailable ? -1 : static_cast<std::int64_t>(bytes)});
            }
            return out;
        }
        throw Error("NVML keeps changing the process list of GPU " + std::to_string(device));
    }

    void* lib_;
    ErrorFn error_ = nullptr;
    ProcessesFn<ProcessInfoV2> v2_ = nullptr;
    ProcessesFn<ProcessInfoV1> v1_ = nullptr;
    std::vector<NvmlDevice> devices_;
};

}  // namespace
#endif

std::shared_ptr<GpuMemory> GpuMemory::driver() {
#if defined(__linux__)
    static const std::shared_ptr<GpuMemory> gpu = []() -> std::shared_ptr<GpuMemory> {
        const DriverNvml* nvml = DriverNvml::open();  // lives as long as the process
        if (!nvml) return nullptr;
        return std::make_shared<GpuMemory>(NvmlDevices{
            [nvml] { return nvml->count(); },
            [nvml](unsigned d) { return nvml->computeProcesses(d); }});
    }();
    return gpu;
#else
    return nullptr;  // macOS: unified memory, already in the process footprint
#endif
}

}  // namespace stageload
