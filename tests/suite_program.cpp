// main() of a program of several Qt Test suites (suite_program.h).
#include "suite_program.h"

#include <QtTest>
#if defined(QT_WIDGETS_LIB)
#include <QApplication>
#elif defined(QT_GUI_LIB)
#include <QGuiApplication>
#endif

#if defined(__linux__)
#include <sys/prctl.h>
#endif

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace stageload::test {
namespace {

std::map<std::string, SuiteEntry>& suites() {
    static std::map<std::string, SuiteEntry> all;
    return all;
}

// The application QTEST_MAIN would make in this program: it depends on the Qt modules the
// program links, as in Qt's macro.
std::unique_ptr<QCoreApplication> mainApplication(int& argc, char** argv) {
#if defined(QT_WIDGETS_LIB)
    return std::make_unique<QApplication>(argc, argv);
#elif defined(QT_GUI_LIB)
    return std::make_unique<QGuiApplication>(argc, argv);
#else
    return std::make_unique<QCoreApplication>(argc, argv);
#endif
}

QString& running() {
    static QString name;
    return name;
}

}  // namespace

QString runningSuite() { return running(); }

bool registerSuite(const char* name, SuiteEntry entry) {
    const bool added = suites().emplace(name, std::move(entry)).second;
    if (!added) std::fprintf(stderr, "suite %s is registered twice\n", name);
    return added;
}

}  // namespace stageload::test

int main(int argc, char** argv) {
    using stageload::test::SuiteApp;
    const auto& suites = stageload::test::suites();
    const auto usage = [&](std::FILE* to) {
        std::fprintf(to, "usage: %s SUITE [Qt Test options and functions]\nsuites:", argv[0]);
        for (const auto& [name, entry] : suites) std::fprintf(to, " %s", name.c_str());
        std::fprintf(to, "\n");
    };
    if (argc < 2) {
        usage(stderr);
        return 2;
    }
    if (std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "--list") == 0) {
        usage(stdout);
        return 0;
    }
    const auto found = suites.find(argv[1]);
    if (found == suites.end()) {
        std::fprintf(stderr, "%s: no suite named %s\n", argv[0], argv[1]);
        usage(stderr);
        return 2;
    }
    const auto& suite = found->second;
    stageload::test::running() = QString::fromUtf8(argv[1]);
#if defined(__linux__)
    // The suite's name as the process's (its first 15 characters), as when each suite was its own
    // program: suites of one program run side by side under CTest, and the guard tells programs
    // apart by that name (largestPrograms, which test_forecast checks against this process).
    prctl(PR_SET_NAME, argv[1]);
#endif
    // Qt Test and the application see the program's name and what follows the suite's, as if
    // the suite were a program of its own. QCoreApplication keeps a reference to the count.
    std::vector<char*> args{argv[0]};
    args.insert(args.end(), argv + 2, argv + argc);
    int count = static_cast<int>(args.size());
    suite.initMain();
    std::unique_ptr<QCoreApplication> app;
    if (suite.app == SuiteApp::Core) app = std::make_unique<QCoreApplication>(count, args.data());
    if (suite.app == SuiteApp::Main) app = stageload::test::mainApplication(count, args.data());
    if (app) QCoreApplication::setAttribute(Qt::AA_Use96Dpi, true);
    const auto object = suite.make();
    return QTest::qExec(object.get(), count, args.data());
}
