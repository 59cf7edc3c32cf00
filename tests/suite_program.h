#pragma once
// Several Qt Test suites in one program: each suite's file ends with
//
//   STAGELOAD_SUITE(test_rng, TestRng)
//
// instead of QTEST_APPLESS_MAIN(TestRng), and the program runs one of them by name:
//
//   engine_suites test_rng -v2 someFunction     # the rest as Qt Test's own arguments
//   engine_suites --list                        # the suites it has
//
// CTest registers each suite as its own test (stageload_add_test ... PROGRAM in
// tests/CMakeLists.txt), so labels, timeouts and fixtures stay per suite. Why: the suites of a
// program compile as one unity source, so they pay once for what each would pay alone (the
// LibTorch header's template instantiations, 8 s a file).

#include <QObject>

#include <functional>
#include <memory>

namespace stageload::test {

using SuiteFactory = std::function<std::unique_ptr<QObject>()>;

/// Adds a suite to the program; returns true so that a static initializer can call it.
bool registerSuite(const char* name, SuiteFactory make);

}  // namespace stageload::test

#define STAGELOAD_SUITE(name, Class)                                                     \
    static const bool stageload_suite_##name = stageload::test::registerSuite(           \
        #name, [] { return std::unique_ptr<QObject>(std::make_unique<Class>()); });
