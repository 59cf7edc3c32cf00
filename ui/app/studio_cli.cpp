#include "ui/app/studio_cli.h"

#include <cstring>

#include <QCoreApplication>

namespace stageload::app {

StudioCli::StudioCli(QCommandLineParser& parser)
    : generate(QStringLiteral("generate"), QStringLiteral("Generate the picture at once")),
      screenshot(QStringLiteral("screenshot"), QStringLiteral("After the mesh appears, save the window as PNG here"),
                 QStringLiteral("file")),
      quit(QStringLiteral("quit-when-done"), QStringLiteral("Quit after the run (exit 0 when it made a mesh)")),
      benchmark(QStringLiteral("benchmark"), QStringLiteral("Print launch time and GUI latency during the run")),
      generator(QStringLiteral("generator"), QStringLiteral("Use this generator definition (JSON) as the pipeline"),
                QStringLiteral("file")),
      param(QStringLiteral("param"),
            QStringLiteral("KEY=VALUE: a parameter of the generator (repeatable), over the ones saved with Set up"),
            QStringLiteral("KEY=VALUE")) {
    parser.setApplicationDescription(QStringLiteral(
        "Turn one picture of a character into a textured 3D mesh, stage by stage, with memory "
        "charted live and every run guarded."));
    parser.addHelpOption();
    parser.addVersionOption();
    parser.addPositionalArgument(QStringLiteral("file"),
                                 QStringLiteral("A picture to open (or a .glb/.obj mesh, or a run's trace .jsonl)"),
                                 QStringLiteral("[FILE]"));
    parser.addOptions({generate, screenshot, quit, benchmark, generator, param});
}

void nameApplication() {
    QCoreApplication::setOrganizationName(QStringLiteral("Stageload"));
    QCoreApplication::setApplicationName(QStringLiteral("Stageload Studio"));
    QCoreApplication::setApplicationVersion(QStringLiteral(STAGELOAD_VERSION));
}

std::optional<int> answerHelpOrVersion(int argc, char** argv) {
    bool asks = false;
    for (int i = 1; i < argc && !asks; ++i) {
        if (std::strcmp(argv[i], "--") == 0) break;  // what follows is a file name
        for (const char* flag : {"-h", "--help", "-?", "--help-all", "-v", "--version"})
            asks = asks || std::strcmp(argv[i], flag) == 0;
    }
    if (!asks) return std::nullopt;
    nameApplication();
    QCoreApplication core(argc, argv);
    QCommandLineParser parser;
    const StudioCli cli(parser);
    parser.process(core);  // prints the help or version (or what is wrong) and exits
    return 0;
}

}  // namespace stageload::app
