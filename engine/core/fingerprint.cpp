#include "engine/core/fingerprint.h"

#include <cstdio>

namespace stageload {
namespace {

constexpr std::uint64_t kOffset = 1469598103934665603ull;
constexpr std::uint64_t kPrime = 1099511628211ull;

void mix(std::uint64_t& h, const void* data, std::size_t n) {
    const auto* p = static_cast<const unsigned char*>(data);
    for (std::size_t i = 0; i < n; ++i) h = (h ^ p[i]) * kPrime;
}

}  // namespace

std::uint64_t fingerprint(const torch::Tensor& tensor) {
    std::uint64_t h = kOffset;
    if (!tensor.defined()) return h;
    const auto cpu = tensor.detach().to(torch::kCPU).contiguous();
    const auto dtype = static_cast<int>(cpu.scalar_type());
    mix(h, &dtype, sizeof dtype);
    for (const auto d : cpu.sizes()) mix(h, &d, sizeof d);
    mix(h, cpu.data_ptr(), static_cast<std::size_t>(cpu.numel()) * cpu.element_size());
    return h;
}

std::string fingerprintHex(const torch::Tensor& tensor) {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(fingerprint(tensor)));
    return buf;
}

}  // namespace stageload
