// main() of a program of several Qt Test suites (suite_program.h).
#include "suite_program.h"

#include <QtTest>

#include <cstdio>
#include <cstring>
#include <map>
#include <string>
#include <vector>

namespace stageload::test {
namespace {

std::map<std::string, SuiteFactory>& suites() {
    static std::map<std::string, SuiteFactory> all;
    return all;
}

}  // namespace

bool registerSuite(const char* name, SuiteFactory make) {
    const bool added = suites().emplace(name, std::move(make)).second;
    if (!added) std::fprintf(stderr, "suite %s is registered twice\n", name);
    return added;
}

}  // namespace stageload::test

int main(int argc, char** argv) {
    const auto& suites = stageload::test::suites();
    const auto usage = [&](std::FILE* to) {
        std::fprintf(to, "usage: %s SUITE [Qt Test options and functions]\nsuites:", argv[0]);
        for (const auto& [name, make] : suites) std::fprintf(to, " %s", name.c_str());
        std::fprintf(to, "\n");
    };
    if (argc < 2 || std::strcmp(argv[1], "--help") == 0 || std::strcmp(argv[1], "--list") == 0) {
        usage(argc < 2 ? stderr : stdout);
        return argc < 2 ? 2 : 0;
    }
    const auto found = suites.find(argv[1]);
    if (found == suites.end()) {
        std::fprintf(stderr, "%s: no suite named %s\n", argv[0], argv[1]);
        usage(stderr);
        return 2;
    }
    // Qt Test sees the program's name and what follows the suite's, as if the suite were a
    // program of its own (QTEST_APPLESS_MAIN).
    std::vector<char*> args{argv[0]};
    args.insert(args.end(), argv + 2, argv + argc);
    const auto suite = found->second();
    return QTest::qExec(suite.get(), static_cast<int>(args.size()), args.data());
}
