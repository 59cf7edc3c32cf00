#pragma once
// Several Qt Test suites in one program: each suite's file ends with one of
//
//   STAGELOAD_APPLESS_SUITE(test_rng, TestRng)       // as QTEST_APPLESS_MAIN(TestRng)
//   STAGELOAD_GUILESS_SUITE(test_jobs, TestJobs)     // as QTEST_GUILESS_MAIN: a QCoreApplication
//   STAGELOAD_SUITE(test_panel, TestPanel)           // as QTEST_MAIN: a QApplication where the
//                                                    // program links Qt Widgets
//
// instead of Qt's macro, and the program runs one of them by name:
//
//   engine_suites test_rng -v2 someFunction     # the rest as Qt Test's own arguments
//   engine_suites --list                        # the suites it has
//
// The suite's class is made after its application, and its static initMain(), where it has
// one, is called before, as Qt's macros do. CTest registers each suite as its own test
// (stageload_add_test ... PROGRAM in tests/CMakeLists.txt), so labels, timeouts and fixtures
// stay per suite. Why: the suites of a program compile as one unity source, so they pay once
// for what each would pay alone (LibTorch's or QtWidgets' headers, 8 s a file and more).

#include <QObject>
#include <QString>
#include <QtTest/qtest.h>

#include <functional>
#include <memory>

namespace stageload::test {

/// The application a suite runs in, as Qt's three main macros make it.
enum class SuiteApp { None, Core, Main };

struct SuiteEntry {
    SuiteApp app = SuiteApp::None;
    void (*initMain)() = nullptr;  ///< before the application, as QTEST_MAIN calls it
    std::function<std::unique_ptr<QObject>()> make;
};

/// Adds a suite to the program; returns true so that a static initializer can call it.
bool registerSuite(const char* name, SuiteEntry entry);

/// The name of the suite this process runs: what a suite that runs itself again in a child
/// process passes first (QCoreApplication::applicationFilePath() is the program's).
QString runningSuite();

}  // namespace stageload::test

#define STAGELOAD_SUITE_IN(name, Class, application)                                               \
    static const bool stageload_suite_##name = stageload::test::registerSuite(                     \
        #name, {application, &QTest::Internal::callInitMain<Class>,                                \
                [] { return std::unique_ptr<QObject>(std::make_unique<Class>()); }});
#define STAGELOAD_APPLESS_SUITE(name, Class) STAGELOAD_SUITE_IN(name, Class, stageload::test::SuiteApp::None)
#define STAGELOAD_GUILESS_SUITE(name, Class) STAGELOAD_SUITE_IN(name, Class, stageload::test::SuiteApp::Core)
#define STAGELOAD_SUITE(name, Class) STAGELOAD_SUITE_IN(name, Class, stageload::test::SuiteApp::Main)
