#pragma once
// GPU memory held by processes, read from NVIDIA's management library (NVML), which the driver
// installs as libnvidia-ml.so.1: the same numbers `nvidia-smi` shows per process (the CUDA
// context plus everything the process's allocator holds). The library is loaded at run time, so
// the build needs no CUDA and a machine without an NVIDIA driver simply has no GPU reader. The
// readers of readers.h add it as the "cuda" extra key where it exists.
//
//   if (auto gpu = stageload::GpuMemory::driver()) {            // nullptr: no NVIDIA GPU here
//       std::int64_t mine = gpu->usedBy([](pid_t p) { return p == ::getpid(); });
//   }
//
//   stageload::NvmlDevices fake{[] { return 2u; }, [](unsigned d) { return ...; }};
//   stageload::GpuMemory gpu(fake);                            // tests
//
// NVML reports process ids as the host sees them: inside a container with its own pid namespace
// no process matches and the reader gives 0. usedBy() is thread-safe (NVML is) and costs about a
// millisecond a device, fine for the meter's 20 Hz and up.

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <sys/types.h>

namespace stageload {

/// One process on one device, as NVML lists it.
struct GpuProcess {
    pid_t pid = 0;
    std::int64_t bytes = -1;  ///< -1: NVML cannot tell (e.g. Windows WDDM, some vGPUs)
};

/// What GpuMemory needs from NVML; the driver's or a fake. Both throw stageload::Error with
/// NVML's message when a call fails.
struct NvmlDevices {
    std::function<unsigned()> count;
    std::function<std::vector<GpuProcess>(unsigned device)> computeProcesses;
};

class GpuMemory {
public:
    /// The driver's NVML, opened once for the whole process (later calls return the same one);
    /// nullptr when there is no library, no device or NVML does not start.
    static std::shared_ptr<GpuMemory> driver();

    explicit GpuMemory(NvmlDevices devices);

    /// Bytes of GPU memory, over every device, held by the processes `member` accepts.
    /// Throws stageload::Error when NVML fails (e.g. the GPU fell off the bus).
    std::int64_t usedBy(const std::function<bool(pid_t)>& member) const;

    unsigned deviceCount() const;

private:
    NvmlDevices devices_;
};

}  // namespace stageload
