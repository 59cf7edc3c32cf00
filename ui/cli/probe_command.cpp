// `stageload probe MODEL-FILE [--input SHAPE]`: resident memory of one model at each point of
// its life, with the peak inside each phase.
#include <cstdio>
#include <memory>
#include <sstream>

#include <CLI/CLI.hpp>

#include "guard/base/error.h"
#include "engine/pipelines/probe.h"
#include "ui/cli/commands.h"
#include "ui/cli/engine_commands.h"

namespace stageload::cli {
namespace {

struct ProbeOptions {
    std::string file;
    std::string input;
};

std::vector<std::int64_t> parseShape(const std::string& text) {
    std::vector<std::int64_t> shape;
    std::stringstream in(text);
    std::string part;
    while (std::getline(in, part, ',')) {
        try {
            std::size_t used = 0;
            const auto v = std::stoll(part, &used);
            if (used != part.size() || v <= 0) throw std::invalid_argument(part);
            shape.push_back(v);
        } catch (const std::exception&) {
            throw UsageError("--input '" + text + "': not a shape; use positive sizes separated by "
                             "commas, e.g. 1,3,320,320");
        }
    }
    return shape;
}

double mib(std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

int runProbe(const ProbeOptions& o) {
    const auto r = probeModel(o.file, o.input.empty() ? std::vector<std::int64_t>{} : parseShape(o.input));
    std::string shape;
    for (auto d : r.inputShape) shape += (shape.empty() ? "" : "×") + std::to_string(d);
    std::printf("%s: %s, %lld parameters, %.1f MiB of weights; input %s\n", o.file.c_str(),
                r.model.c_str(), static_cast<long long>(r.parameters), mib(r.weightBytes), shape.c_str());
    std::printf("\n%-10s %9s %11s %10s %10s\n", "phase", "seconds", "RSS MiB", "peak MiB", "+peak MiB");
    std::printf("%-10s %9s %11.1f %10s %10s\n", "before", "", mib(r.rssBefore), "", "");
    std::int64_t previous = r.rssBefore;
    for (const auto& p : r.phases) {
        std::printf("%-10s %9.3f %11.1f %10.1f %10.1f\n", p.name.c_str(), p.seconds, mib(p.rssAfter),
                    mib(p.peak), mib(p.peak - previous));
        previous = p.rssAfter;
    }
    std::printf("(+peak: the phase's peak above the resident memory it started from)\n");
    return 0;
}

}  // namespace

void addProbeCommand(CLI::App& app, Selected& selected) {
    auto o = std::make_shared<ProbeOptions>();
    auto* cmd = app.add_subcommand("probe", engineCommandDescription("", "probe"));
    cmd->add_option("model", o->file, "A TorchScript file, or a safetensors file of a known "
                                      "architecture (U²-Netp)")
        ->required();
    cmd->add_option("--input", o->input, "Input shape, e.g. 1,3,320,320 (required for TorchScript)");
    cmd->callback([o, &selected] { selected = [o] { return runProbe(*o); }; });
}

}  // namespace stageload::cli
