#pragma once
// Freeing a module's weights for real, even while other code still holds the module.
//
//   auto stats = stageload::releaseModule(unet);            // every parameter and buffer
//   spdlog::info("freed {} bytes", stats.nbytes);
//   stageload::releaseModule(extractorA, {extractorB});     // keeps storage B still uses
//
// LibTorch 1.13 as Debian ships it refuses to move weights to the meta device, so each tensor's
// data is swapped for an empty one (same dtype and device) under NoGradGuard; where the build
// accepts meta tensors, a meta tensor of the same shape is used instead. Either way the storage is
// dropped at once, which frees it unless another tensor (e.g. a live weight.detach()) still
// shares it. Functions here are thread-safe for distinct modules.

#include <cstdint>
#include <memory>
#include <vector>

#include "engine/core/torch_nn.h"

namespace stageload {

using ModulePtr = std::shared_ptr<torch::nn::Module>;

/// Every parameter and buffer of `module` and its submodules, TorchScript modules wrapped in
/// ScriptModel included. Undefined tensors are skipped.
std::vector<torch::Tensor> moduleTensors(const torch::nn::Module& module);

/// Bytes of the distinct storages behind moduleTensors(); released (empty or meta) tensors
/// count 0. Shared storage is counted once.
std::int64_t moduleBytes(const torch::nn::Module& module);

struct ReleaseStats {
    std::int64_t nbytes = 0;    ///< bytes of the distinct storages dropped
    std::int64_t storages = 0;  ///< distinct storages dropped
    std::int64_t tensors = 0;   ///< tensors emptied
    std::int64_t kept = 0;      ///< tensors left alone because a module in `keep` shares them
};

/// Drops the storage of every parameter and buffer of `module` (recursively), except tensors
/// whose storage a module in `keep` also uses. Marks the module released. Releasing an already
/// released module frees 0 bytes. When `returnMemory` is set, also returns freed memory to the
/// device or the OS (see returnFreedMemory()).
ReleaseStats releaseModule(const ModulePtr& module, const std::vector<ModulePtr>& keep = {},
                           bool returnMemory = true);

/// releaseModule() for several modules leaving together: storage they share is dropped from all
/// of them and counted once, in the stats of the first that held it. One ReleaseStats per
/// module, in order.
std::vector<ReleaseStats> releaseModules(const std::vector<ModulePtr>& modules,
                                         const std::vector<ModulePtr>& keep = {},
                                         bool returnMemory = true);

/// True once releaseModule() ran on this module.
bool isReleased(const ModulePtr& module);

/// Empties the CUDA (and, on Apple, MPS) caching allocators where the build has them, and asks
/// glibc to hand free heap pages back to the OS.
void returnFreedMemory();

/// Whether this LibTorch accepts meta tensors as replacement data (probed once).
bool metaReleaseSupported();

}  // namespace stageload
