// `stageload summary TRACE.jsonl [--json]`: the per-stage table (seconds, peak GB) and totals of a
// trace written by the meter, `stageload guard --trace` or the Python stageload.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <memory>
#include <string>

#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

struct SummaryOptions {
    std::string trace;
    bool json = false;
};

int runSummary(const SummaryOptions& o) {
    const Trace trace = readTrace(o.trace);  // FileError / TraceFormatError: exit 1
    const Summary summary = summarize(trace);
    if (o.json) {
        std::printf("%s\n", toJson(summary).dump(2).c_str());
        return 0;
    }
    std::printf("trace:         %s\n", o.trace.c_str());
    if (!trace.utc().empty())
        std::printf("started:       %s, interval %.3g s, %d samples\n", trace.utc().c_str(),
                    trace.interval(), summary.samples);
    std::printf("\n%s", formatTable(summary).c_str());
    return 0;
}

}  // namespace

void addSummaryCommand(CLI::App& app, Selected& selected) {
    auto opts = std::make_shared<SummaryOptions>();
    auto* cmd = app.add_subcommand(
        "summary", "Summarise a memory trace: per stage seconds and peak footprint, with totals");
    cmd->add_option("trace", opts->trace, "The trace (.jsonl) to read")->required();
    cmd->add_flag("--json", opts->json, "Print the full summary as JSON");
    cmd->callback([opts, &selected] { selected = [opts] { return runSummary(*opts); }; });
}

}  // namespace stageload::cli
