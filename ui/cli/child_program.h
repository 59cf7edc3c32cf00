#pragma once
// Runs a program to its end, for the benchmarks that start `stageload` itself again and again
// (`bench forecast`, `bench start`): no shell, stdout and stderr appended to one file.
//
//   const int code = stageload::cli::runToEnd({"/usr/bin/stageload", "--help"}, "/dev/null");

#include <filesystem>
#include <string>
#include <vector>

namespace stageload::cli {

/// Runs argv[0] (a path) with `argv`, its stdout and stderr appended to `output` (created when
/// missing); waits for it. Its exit code, 128+N when signal N ended it; -1 when it could not
/// start (errno says why).
int runToEnd(const std::vector<std::string>& argv, const std::filesystem::path& output);

}  // namespace stageload::cli
