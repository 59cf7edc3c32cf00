// `stageload plot TRACE... -o chart.png [--width W --height H] [--title T]`: the memory chart of
// one or more traces as a PNG, SVG or PDF, without a window. The first trace is drawn with its
// stage bands and load/release ticks, the others overlaid dashed (staged vs eager).
#include <CLI/CLI.hpp>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <QApplication>
#include <QFileInfo>

#include "guard/base/error.h"
#include "guard/trace/trace_reader.h"
#include "ui/chart/chart_export.h"
#include "ui/chart/render_chart.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

struct PlotOptions {
    std::vector<std::string> traces;
    std::string out;
    int width = 1600;
    int height = 900;
    std::string title;
};

/// "staged-1" for "runs/staged-1.trace.jsonl", with the run's load mode when the name lacks it:
/// "run7 (staged)".
QString runLabel(const std::string& path, const Trace& trace) {
    QString name = QFileInfo(QString::fromStdString(path)).fileName();
    for (const char* suffix : {".jsonl", ".json", ".trace"})
        if (name.endsWith(QLatin1String(suffix))) name.chop(static_cast<int>(std::strlen(suffix)));
    for (const char* key : {"load", "mode"}) {
        const auto it = trace.start.find(key);
        if (it == trace.start.end() || !it->is_string()) continue;
        const QString mode = QString::fromStdString(it->get<std::string>());
        if (!mode.isEmpty() && !name.contains(mode, Qt::CaseInsensitive))
            name += QStringLiteral(" (%1)").arg(mode);
        break;
    }
    return name;
}

int runPlot(const PlotOptions& o) {
    const QString out = QString::fromStdString(o.out);
    const QString format = QFileInfo(out).suffix().toLower();
    if (!chart::exportFormats().contains(format))
        throw UsageError("-o " + o.out +
                         ": unknown picture type; use a name ending in .png, .svg "
                         "or .pdf, e.g. -o chart.png");

    std::vector<std::pair<Trace, QString>> runs;
    for (const auto& path : o.traces) {
        Trace trace = readTrace(path);  // FileError / TraceFormatError name the file: exit 1
        if (trace.truncated)
            std::fprintf(stderr,
                         "stageload: note: %s: the last line was half-written (the run was "
                         "killed?); plotted without it\n",
                         path.c_str());
        if (trace.samples.empty() && trace.events.empty())
            std::fprintf(stderr, "stageload: note: %s: no samples or events to plot\n",
                         path.c_str());
        QString label = runLabel(path, trace);
        runs.emplace_back(std::move(trace), std::move(label));
    }

    // It renders to a file: no display needed.
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    static int argc = 1;
    static char name[] = "stageload";
    static char* argv[] = {name, nullptr};
    QApplication app(argc, argv);
    chart::renderTraceChart(runs, out, QSize(o.width, o.height), QString::fromStdString(o.title));
    std::printf("wrote %s (%dx%d, %zu run%s)\n", o.out.c_str(), o.width, o.height, runs.size(),
                runs.size() == 1 ? "" : "s");
    return 0;
}

}  // namespace

void addPlotCommand(CLI::App& app, Selected& selected) {
    auto opts = std::make_shared<PlotOptions>();
    auto* cmd = app.add_subcommand(
        "plot",
        "Draw the memory chart of traces as PNG, SVG or PDF: the first with its stage bands and "
        "load/release ticks, the others overlaid dashed");
    cmd->add_option("traces", opts->traces, "Traces (.jsonl) to draw; the first is the primary run")
        ->required();
    cmd->add_option("-o,--output", opts->out, "Picture to write: .png, .svg or .pdf")->required();
    cmd->add_option("--width", opts->width, "Width in pixels (default 1600)")
        ->check(CLI::Range(200, 20000));
    cmd->add_option("--height", opts->height, "Height in pixels (default 900)")
        ->check(CLI::Range(150, 20000));
    cmd->add_option("--title", opts->title,
                    "Title above the chart (default: the runs' names, e.g. \"staged-1 (solid) vs "
                    "eager-1 (dashed)\")");
    cmd->callback([opts, &selected] { selected = [opts] { return runPlot(*opts); }; });
}

}  // namespace stageload::cli
