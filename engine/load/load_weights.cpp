#include <algorithm>
#include <set>

#include "engine/api/errors.h"
#include "engine/load/safetensors.h"

namespace stageload {

std::vector<std::pair<std::string, torch::Tensor>> namedWeights(const torch::nn::Module& module) {
    std::vector<std::pair<std::string, torch::Tensor>> out;
    for (const auto& item : module.named_parameters(/*recurse=*/true))
        out.emplace_back(item.key(), item.value());
    for (const auto& item : module.named_buffers(/*recurse=*/true))
        out.emplace_back(item.key(), item.value());
    return out;
}

LoadWeightsReport loadWeights(torch::nn::Module& module, const SafetensorsFile& file,
                              LoadWeightsOptions options) {
    torch::NoGradGuard noGrad;
    LoadWeightsReport report;
    std::set<std::string> wanted;
    for (auto& [name, tensor] : namedWeights(module)) {
        wanted.insert(name);
        if (!tensor.defined()) continue;
        file.readInto(name, tensor);
        ++report.tensors;
        report.bytes += tensor.numel() * static_cast<std::int64_t>(tensor.element_size());
    }
    if (options.strict) {
        std::vector<std::string> unexpected;
        for (const auto& t : file.tensors())
            if (!wanted.count(t.name)) unexpected.push_back(t.name);
        if (!unexpected.empty()) {
            std::sort(unexpected.begin(), unexpected.end());
            if (unexpected.size() > 8) unexpected.resize(8), unexpected.push_back("...");
            throw WeightFileError(file.path().string(), unexpected.front(),
                                  "the model has no such tensor (unexpected: " +
                                      quotedList(unexpected) + "); the weights do not match");
        }
    }
    return report;
}

}  // namespace stageload
