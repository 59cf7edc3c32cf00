#include "engine/registry/rng.h"

#include <mutex>

#include <ATen/Context.h>
#include <ATen/detail/CUDAHooksInterface.h>
#if defined(__APPLE__) && __has_include(<ATen/detail/MPSHooksInterface.h>)
#include <ATen/detail/MPSHooksInterface.h>
#define STAGELOAD_HAS_MPS_HOOKS 1
#endif

namespace stageload {

std::vector<at::Generator> globalGenerators() {
    std::vector<at::Generator> gens;
    gens.push_back(at::globalContext().defaultGenerator(torch::kCPU));
    const auto& cuda = at::detail::getCUDAHooks();
    if (cuda.hasCUDA()) {
        for (int i = 0; i < cuda.getNumGPUs(); ++i)
            gens.push_back(cuda.getDefaultCUDAGenerator(static_cast<c10::DeviceIndex>(i)));
    }
#if defined(STAGELOAD_HAS_MPS_HOOKS)
    if (at::detail::getMPSHooks().hasMPS())
        gens.push_back(at::detail::getMPSHooks().getDefaultMPSGenerator());
#endif
    return gens;
}

RngState RngState::capture(const std::vector<at::Generator>& extra) {
    RngState s;
    auto add = [&s](at::Generator g) {  // a shared handle: the copy is the same generator
        if (!g.defined()) return;
        std::lock_guard lock(g.mutex());
        s.states_.emplace_back(g, g.get_state());
    };
    for (const auto& g : globalGenerators()) add(g);
    for (const auto& g : extra) add(g);
    return s;
}

void RngState::restore() const {
    for (const auto& [gen, state] : states_) {
        auto g = gen;  // at::Generator is a shared handle; the copy refers to the same generator
        std::lock_guard lock(g.mutex());
        g.set_state(state);
    }
}

}  // namespace stageload
