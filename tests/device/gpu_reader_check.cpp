// Device check for the meter's "cuda" reader, run on a machine with an NVIDIA GPU by
// tests/device/run_gpu_check.sh. It allocates CUDA memory in steps through LibTorch and, after
// each step, compares what the guard's NVML reader says this process holds with what
// `nvidia-smi --query-compute-apps` says, and checks that the reader follows the allocations up
// and back down. Prints a table; exits 0 when every check holds, 1 when one fails, 2 when there
// is no GPU or no NVML to check against.

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <torch/torch.h>

#include "guard/memory/gpu_memory.h"
#include "guard/memory/readers.h"

namespace {

constexpr double kMiB = 1024.0 * 1024.0;

// This process's GPU memory as nvidia-smi reports it (MiB, summed over devices); -1 if absent.
double nvidiaSmiMiB(pid_t pid) {
    std::unique_ptr<FILE, decltype(&pclose)> p(
        ::popen("nvidia-smi --query-compute-apps=pid,used_memory --format=csv,noheader,nounits",
                "r"),
        &pclose);
    if (!p) return -1;
    double total = -1;
    char line[256];
    while (std::fgets(line, sizeof line, p.get())) {
        long linePid = 0;
        double mib = 0;
        if (std::sscanf(line, "%ld, %lf", &linePid, &mib) == 2 && linePid == pid)
            total = (total < 0 ? 0 : total) + mib;
    }
    return total;
}

}  // namespace

int main() {
    // Without LibTorch's caching allocator every free goes back to the driver at once, so the
    // reader can be seen following memory down as well as up (and no CUDA headers are needed).
    ::setenv("PYTORCH_NO_CUDA_MEMORY_CACHING", "1", 1);
    if (!torch::cuda::is_available()) {
        std::fprintf(stderr, "gpu_reader_check: LibTorch sees no CUDA device\n");
        return 2;
    }
    const auto gpu = stageload::GpuMemory::driver();
    if (!gpu) {
        std::fprintf(stderr, "gpu_reader_check: NVML (libnvidia-ml.so.1) did not start\n");
        return 2;
    }
    const auto readers = stageload::processReaders();
    std::function<double()> cudaExtra;
    for (const auto& [key, read] : readers.extra)
        if (key == "cuda") cudaExtra = read;

    const pid_t me = ::getpid();
    int failures = 0;
    auto check = [&failures](bool ok, const std::string& what) {
        if (!ok) ++failures;
        std::printf("  %s %s\n", ok ? "ok  " : "FAIL", what.c_str());
    };
    check(static_cast<bool>(cudaExtra), "processReaders() carries the \"cuda\" extra key");
    std::printf("devices: %u (NVML), %zu (LibTorch)\n", gpu->deviceCount(),
                static_cast<std::size_t>(torch::cuda::device_count()));

    std::vector<torch::Tensor> held;
    double allocatedMiB = 0, baseMiB = -1;
    std::printf("%-22s %12s %12s %12s %12s\n", "step", "allocated", "NVML MiB", "extra MiB",
                "smi MiB");
    auto row = [&](const std::string& step) {
        torch::cuda::synchronize();
        std::this_thread::sleep_for(std::chrono::milliseconds(300));  // let the driver settle
        const double nvml = static_cast<double>(gpu->usedBy([me](pid_t p) { return p == me; })) / kMiB;
        const double extra = cudaExtra ? cudaExtra() / kMiB : -1;
        const double smi = nvidiaSmiMiB(me);
        std::printf("%-22s %12.0f %12.1f %12.1f %12.1f\n", step.c_str(), allocatedMiB, nvml, extra,
                    smi);
        // nvidia-smi prints whole MiB; allow one per device for its rounding.
        check(smi >= 0 && std::abs(nvml - smi) <= gpu->deviceCount(),
              step + ": NVML reader matches nvidia-smi");
        check(cudaExtra && std::abs(extra - nvml) < 1.0, step + ": the meter's extra matches");
        return nvml;
    };

    torch::empty({1}, torch::kCUDA);  // the CUDA context alone
    baseMiB = row("context");
    for (int step = 1; step <= 4; ++step) {
        held.push_back(torch::empty({256ll << 20}, torch::TensorOptions().device(torch::kCUDA)));
        allocatedMiB += 1024;
        const double nvml = row("+1 GiB (" + std::to_string(step) + ")");
        check(nvml - baseMiB >= allocatedMiB, "grew by at least what was allocated");
    }
    held.clear();
    allocatedMiB = 0;
    const double after = row("freed");
    check(after - baseMiB < 64, "fell back to the context's size");

    std::printf("%s: %d failed check(s)\n", failures ? "FAILED" : "passed", failures);
    return failures ? 1 : 0;
}
