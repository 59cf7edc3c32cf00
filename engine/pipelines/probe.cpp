#include "engine/pipelines/probe.h"

#include <algorithm>
#include <chrono>
#include <functional>

#include "engine/api/errors.h"
#include "guard/base/text.h"
#include "engine/load/safetensors.h"
#include "engine/load/torchscript.h"
#include "engine/models/u2netp.h"
#include "engine/registry/release.h"
#include "guard/memory/process_memory.h"

namespace stageload {
namespace {

using Clock = std::chrono::steady_clock;

}  // namespace

ProbeResult probeModel(const std::filesystem::path& file, std::vector<std::int64_t> inputShape) {
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec))
        throw WeightFileError(file.string(), "", "no such file");
    ProbeResult r;
    const auto ext = asciiLower(file.extension().string());
    const bool safetensors = ext == ".safetensors";
    if (safetensors) {
        const auto f = SafetensorsFile::open(file);
        if (!f.find("stage1.rebnconvin.conv_s1.weight") && !f.find("side1.weight"))
            throw WeightFileError(file.string(), "",
                                  "not an architecture the probe knows (U²-Netp); for other "
                                  "models use a TorchScript file with --input");
        r.model = "U²-Netp (safetensors)";
        if (inputShape.empty()) inputShape = {1, 3, U2NetPImpl::kResolution, U2NetPImpl::kResolution};
    } else {
        r.model = "TorchScript";
        if (inputShape.empty())
            throw UsageError(file.string() + ": a TorchScript model needs its input shape, e.g. "
                             "--input 1,3,320,320");
    }
    r.inputShape = inputShape;

    torch::NoGradGuard noGrad;
    auto phase = [&](const std::string& name, auto&& work) {
        resetPeakRss();
        const auto start = Clock::now();
        work();
        ProbePhase p;
        p.name = name;
        p.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        const auto m = readProcessMemory();
        p.rssAfter = m.rss;
        p.peak = m.peakRss;
        r.phases.push_back(p);
    };
    torch::manual_seed(0);
    const auto input = torch::rand(inputShape);
    r.rssBefore = readProcessMemory().rss;

    std::shared_ptr<torch::nn::Module> model;
    std::function<void()> forward;
    phase("load", [&] {
        if (safetensors) {
            auto net = loadU2NetP(file);
            model = net.ptr();
            forward = [net, &input]() mutable { net->forward(input); };
        } else {
            auto script = loadTorchScript(file);
            model = script;
            forward = [script, &input]() mutable { script->forward(std::vector<torch::jit::IValue>{input}); };
        }
    });
    r.weightBytes = moduleBytes(*model);
    for (const auto& t : moduleTensors(*model)) r.parameters += t.numel();
    phase("warm-up", forward);
    phase("inference", forward);
    phase("release", [&] { releaseModule(model); });
    return r;
}

}  // namespace stageload
