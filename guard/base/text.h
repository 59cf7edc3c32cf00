#pragma once
// Small text helpers shared by the parsers (sizes, durations, OBJ lines) and by the file-type
// checks that compare extensions case-insensitively.
//
//   if (stageload::asciiLower(path.extension().string()) == ".obj") ...
//   auto word = stageload::trim("  8G ");                  // "8G"
//
// ASCII only (file extensions, units, keywords); pure, thread-safe, throw nothing.

#include <string>
#include <string_view>
#include <vector>

namespace stageload {

/// `s` with A-Z turned into a-z.
std::string asciiLower(std::string_view s);

/// `s` without leading and trailing whitespace (a view into `s`).
std::string_view trim(std::string_view s);

/// "a", "a or b", "a, b or c" (an empty list gives "").
std::string joinAlternatives(const std::vector<std::string>& words);
/// "a", "a and b", "a, b and c" (an empty list gives "").
std::string joinWords(const std::vector<std::string>& words);

}  // namespace stageload
