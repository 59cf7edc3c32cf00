#pragma once
// The command line of `stageload-studio`: its options, and the answer to --help and --version
// before any window, so both work without a display (over ssh, in a container, in a packaging
// check), as a command-line program's do.
//
//   if (const auto code = stageload::app::answerHelpOrVersion(argc, argv)) return *code;
//   StudioApplication app(argc, argv);
//   QCommandLineParser parser;
//   const StudioCli cli(parser);
//   parser.process(app);
//   if (parser.isSet(cli.generate)) ...

#include <optional>

#include <QCommandLineOption>
#include <QCommandLineParser>

namespace stageload::app {

struct StudioCli {
    QCommandLineOption generate;
    QCommandLineOption screenshot;
    QCommandLineOption quit;
    QCommandLineOption benchmark;
    QCommandLineOption generator;
    QCommandLineOption param;

    /// Adds the description, --help, --version, the positional FILE and every option to `parser`.
    explicit StudioCli(QCommandLineParser& parser);
};

/// The app's organisation, name and version (QCoreApplication's, which QSettings and --version
/// read), whatever application object is made.
void nameApplication();

/// With -h, --help, --help-all, -v or --version among the arguments: prints the answer (no GUI,
/// no display needed) and returns the exit code; else nullopt and nothing is done.
std::optional<int> answerHelpOrVersion(int argc, char** argv);

}  // namespace stageload::app
