#pragma once
// Small modules and helpers shared by the engine suites.
#include <atomic>
#include <memory>
#include <string>

#include "engine/core/torch_nn.h"

#include "engine/registry/staged_models.h"

namespace stageload::test {

/// A module with one weight of `numel` floats (random init from the global generator).
class Blob : public torch::nn::Module {
public:
    explicit Blob(std::int64_t numel = 16) {
        weight = register_parameter("weight", torch::randn({numel}));
    }
    torch::Tensor forward(torch::Tensor x) { return x * weight.sum(); }
    torch::Tensor weight;
};

/// A loader that counts how often it ran.
inline Loader countingLoader(std::shared_ptr<std::atomic<int>> count, std::int64_t numel = 16) {
    return [count, numel]() -> std::shared_ptr<torch::nn::Module> {
        ++*count;
        return std::make_shared<Blob>(numel);
    };
}

inline std::int64_t mib(std::int64_t n) { return n << 20; }

}  // namespace stageload::test
