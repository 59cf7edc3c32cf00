#include "engine/load/torchscript.h"

#include <system_error>

#include "engine/api/errors.h"

namespace stageload {

ScriptModel::ScriptModel(torch::jit::Module script) : script_(std::move(script)) {}

torch::jit::IValue ScriptModel::forward(std::vector<torch::jit::IValue> inputs) {
    return script_.forward(std::move(inputs));
}

torch::Tensor ScriptModel::forward(torch::Tensor input) {
    auto out = script_.forward({std::move(input)});
    if (!out.isTensor())
        throw Error("TorchScript model returned " + out.tagKind() +
                    ", not a tensor; call forward(std::vector<IValue>) instead");
    return out.toTensor();
}

std::shared_ptr<ScriptModel> loadTorchScript(const std::filesystem::path& file,
                                             torch::Device device) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw WeightFileError(file.string(), "", "no such file; check the path");
    try {
        auto script = torch::jit::load(file.string(), device);
        script.eval();
        return std::make_shared<ScriptModel>(std::move(script));
    } catch (const c10::Error& e) {
        throw WeightFileError(file.string(), "",
                              std::string("not a readable TorchScript archive (") + e.what_without_backtrace() +
                                  "); export it again with torch.jit.save");
    }
}

}  // namespace stageload
