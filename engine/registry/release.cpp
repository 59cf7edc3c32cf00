#include "engine/registry/release.h"

#include <algorithm>
#include <mutex>
#include <set>
#include <unordered_set>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

#if defined(STAGELOAD_WITH_CUDA)
#include <ATen/detail/CUDAHooksInterface.h>
#include <c10/cuda/CUDACachingAllocator.h>
#endif
#if defined(__APPLE__) && __has_include(<ATen/detail/MPSHooksInterface.h>)
#include <ATen/detail/MPSHooksInterface.h>
#define STAGELOAD_HAS_MPS_HOOKS 1
#endif

#include "engine/load/torchscript.h"

namespace stageload {
namespace {

// Modules released so far, by identity; expired entries are pruned as new ones arrive.
class ReleasedSet {
public:
    void add(const ModulePtr& m) {
        std::lock_guard lock(mutex_);
        std::erase_if(set_, [](const auto& w) { return w.expired(); });
        set_.insert(m);
    }
    bool contains(const ModulePtr& m) const {
        std::lock_guard lock(mutex_);
        return set_.count(m) != 0;
    }

private:
    mutable std::mutex mutex_;
    std::set<std::weak_ptr<torch::nn::Module>, std::owner_less<>> set_;
};

ReleasedSet& releasedSet() {
    static ReleasedSet set;
    return set;
}

const c10::StorageImpl* storageOf(const torch::Tensor& t) {
    if (!t.defined() || !t.has_storage() || t.device().is_meta()) return nullptr;
    return t.storage().unsafeGetStorageImpl();
}

torch::Tensor placeholderFor(const torch::Tensor& t) {
    if (metaReleaseSupported()) return torch::empty(t.sizes(), t.options().device(torch::kMeta));
    return torch::empty({0}, t.options());
}

}  // namespace

bool metaReleaseSupported() {
    static const bool supported = [] {
        try {
            torch::NoGradGuard noGrad;
            auto probe = torch::zeros({1});
            probe.set_data(torch::empty({1}, probe.options().device(torch::kMeta)));
            return true;
        } catch (const std::exception&) {
            return false;  // Debian's LibTorch 1.13: "incompatible tensor type"
        }
    }();
    return supported;
}

std::vector<torch::Tensor> moduleTensors(const torch::nn::Module& module) {
    std::vector<torch::Tensor> out;
    auto take = [&out](const torch::Tensor& t) {
        if (t.defined()) out.push_back(t);
    };
    for (const auto& p : module.parameters(/*recurse=*/true)) take(p);
    for (const auto& b : module.buffers(/*recurse=*/true)) take(b);
    // TorchScript modules keep their tensors inside the script object.
    auto collectScript = [&take](const torch::nn::Module& m) {
        if (const auto* script = dynamic_cast<const ScriptModel*>(&m)) {
            for (const auto& p : script->script().parameters(true)) take(p);
            for (const auto& b : script->script().buffers(true)) take(b);
        }
    };
    collectScript(module);
    for (const auto& child : module.modules(/*include_self=*/false)) collectScript(*child);
    return out;
}

std::int64_t moduleBytes(const torch::nn::Module& module) {
    std::unordered_set<const c10::StorageImpl*> seen;
    std::int64_t bytes = 0;
    for (const auto& t : moduleTensors(module)) {
        const auto* s = storageOf(t);
        if (s && seen.insert(s).second) bytes += static_cast<std::int64_t>(s->nbytes());
    }
    return bytes;
}

std::vector<ReleaseStats> releaseModules(const std::vector<ModulePtr>& modules,
                                         const std::vector<ModulePtr>& keep, bool returnMemory) {
    std::vector<ReleaseStats> all(modules.size());
    std::unordered_set<const c10::StorageImpl*> kept;
    for (const auto& k : keep) {
        if (!k || std::find(modules.begin(), modules.end(), k) != modules.end()) continue;
        for (const auto& t : moduleTensors(*k))
            if (const auto* s = storageOf(t)) kept.insert(s);
    }

    torch::NoGradGuard noGrad;
    // Storages dropped so far, across the modules: a storage two leaving modules share stays
    // alive (nbytes() > 0) until the second lets go, but it is freed only once.
    std::unordered_set<const c10::StorageImpl*> dropped;
    for (std::size_t i = 0; i < modules.size(); ++i) {
        const auto& module = modules[i];
        if (!module) continue;
        auto& stats = all[i];
        for (auto& t : moduleTensors(*module)) {
            const auto* s = storageOf(t);
            if (!s || s->nbytes() == 0) continue;  // already released
            if (kept.count(s)) {
                ++stats.kept;
                continue;
            }
            if (dropped.insert(s).second) {
                stats.nbytes += static_cast<std::int64_t>(s->nbytes());
                ++stats.storages;
            }
            t.set_data(placeholderFor(t));
            ++stats.tensors;
        }
        releasedSet().add(module);
    }
    if (returnMemory) returnFreedMemory();
    return all;
}

ReleaseStats releaseModule(const ModulePtr& module, const std::vector<ModulePtr>& keep,
                           bool returnMemory) {
    return releaseModules({module}, keep, returnMemory).front();
}

bool isReleased(const ModulePtr& module) { return module && releasedSet().contains(module); }

void returnFreedMemory() {
#if defined(STAGELOAD_WITH_CUDA)
    if (at::detail::getCUDAHooks().hasCUDA()) c10::cuda::CUDACachingAllocator::emptyCache();
#endif
#if defined(STAGELOAD_HAS_MPS_HOOKS)
    if (at::detail::getMPSHooks().hasMPS()) at::detail::getMPSHooks().emptyCache();
#endif
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

}  // namespace stageload
