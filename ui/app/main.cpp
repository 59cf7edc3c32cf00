// `stageload-studio [FILE]`: the desktop app (FILE: a picture, a mesh or a trace; the desktop
// entry passes the file manager's). Scripted mode (tests, docs, benchmarks):
//   stageload-studio IMAGE [--generator FILE.json] --generate --screenshot OUT.png
//                    --quit-when-done [--benchmark]
// Exit codes there: 0 the run made a mesh, 3 the guard stopped it, 1 otherwise, 2 bad flags.
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <QApplication>
#include <QCommandLineParser>
#include <QElapsedTimer>
#include <QFileInfo>
#include <cstdio>

#include "guard/base/huge_page_malloc.h"
#include "ui/app/main_window.h"
#include "ui/app/scripted_session.h"
#include "ui/app/studio_application.h"
#include "ui/app/studio_cli.h"
#include "ui/app/termination_signals.h"
#include "ui/worker/run_controller.h"

int main(int argc, char** argv) {
    if (const auto code = stageload::app::answerHelpOrVersion(argc, argv)) return *code;  // no display needed
    stageload::relaunchWithHugePageMalloc(argv);  // runs models: heap on huge pages (re-exec)
    QElapsedTimer launch;
    launch.start();
    stageload::app::StudioApplication app(argc, argv);
    stageload::worker::registerRunMetaTypes();
    // Messages go to stderr (and the log pane); stdout is for what scripted mode prints.
    spdlog::set_default_logger(spdlog::stderr_color_mt("stageload-studio"));

    QCommandLineParser cli;
    const stageload::app::StudioCli flags(cli);
    cli.process(app);

    const QStringList positional = cli.positionalArguments();
    if (positional.size() > 1) {
        std::fprintf(stderr, "stageload-studio: one file at a time (got %lld)\n",
                     static_cast<long long>(positional.size()));
        return 2;
    }
    stageload::app::ScriptOptions options;
    options.generate = cli.isSet(flags.generate);
    options.screenshot = cli.value(flags.screenshot);
    options.quitWhenDone = cli.isSet(flags.quit);
    options.benchmark = cli.isSet(flags.benchmark);
    if (options.generate && positional.isEmpty()) {
        std::fprintf(stderr, "stageload-studio: --generate needs a picture\n");
        return 2;
    }
    if (!options.screenshot.isEmpty() && QFileInfo(options.screenshot).suffix().compare(QLatin1String("png"), Qt::CaseInsensitive) != 0) {
        std::fprintf(stderr, "stageload-studio: --screenshot %s: must end in .png\n", qPrintable(options.screenshot));
        return 2;
    }

    app.setScripted(options.any());
    stageload::app::MainWindow window;
    window.setScripted(options.any());
    window.show();
    if (!positional.isEmpty() && !window.openFile(positional.first()) && options.any()) return 1;
    if (cli.isSet(flags.generator) && !window.useGenerator(cli.value(flags.generator)) && options.any()) return 2;
    if (cli.isSet(flags.param)) {
        std::vector<std::string> assignments;
        for (const QString& kv : cli.values(flags.param)) assignments.push_back(kv.toStdString());
        try {
            window.setScriptParams(stageload::parseParamAssignments(assignments));
        } catch (const stageload::Error& e) {
            std::fprintf(stderr, "stageload-studio: %s\n", e.what());
            return 2;
        }
    }

    // A logout, Ctrl+C or a closed terminal stops the run (a generator's whole group) and keeps
    // it in the history before the app quits with 128+N, as `stageload` does.
    stageload::app::TerminationSignals termination;
    QObject::connect(&termination, &stageload::app::TerminationSignals::received, &window, [&window](int sig) {
        window.stopRunAndQuit(
            QStringLiteral("stageload-studio got %1").arg(stageload::app::TerminationSignals::describe(sig)), 128 + sig);
    });

    stageload::app::ScriptedSession session(window, options, launch);
    if (options.any()) session.begin();
    return app.exec();
}
