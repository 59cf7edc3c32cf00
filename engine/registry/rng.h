#pragma once
// Saving and restoring the random generators a pipeline draws from.
//
//   {
//       stageload::PreserveRng keep(extraGenerators);   // snapshot now
//       model = buildModel();                           // random init draws from the generators
//   }                                                   // restored here, also on exceptions
//
// Covered: LibTorch's default CPU generator, each CUDA device's default generator where the build
// has CUDA, MPS's on Apple builds that have it, and any generators passed in.

#include <utility>
#include <vector>

#include <ATen/core/Generator.h>
#include "engine/core/torch_core.h"

namespace stageload {

/// The default CPU generator, plus every CUDA device's and MPS's where present.
std::vector<at::Generator> globalGenerators();

class RngState {
public:
    /// Snapshots globalGenerators() and `extra`.
    static RngState capture(const std::vector<at::Generator>& extra = {});
    /// Puts every captured generator back exactly as it was.
    void restore() const;

private:
    std::vector<std::pair<at::Generator, torch::Tensor>> states_;
};

/// Captures on construction, restores on destruction.
class PreserveRng {
public:
    explicit PreserveRng(const std::vector<at::Generator>& extra = {})
        : state_(RngState::capture(extra)) {}
    ~PreserveRng() { state_.restore(); }
    PreserveRng(const PreserveRng&) = delete;
    PreserveRng& operator=(const PreserveRng&) = delete;

private:
    RngState state_;
};

}  // namespace stageload
