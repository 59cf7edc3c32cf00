#pragma once
// What the generator files' parts share inside guard/generator: the built-in placeholders, the
// scanner of "{name}" placeholders, and "~" expansion. Not for use outside this folder.

#include <cstdlib>
#include <functional>
#include <set>
#include <string>

namespace stageload::generator_detail {

inline const std::set<std::string> kBuiltinPlaceholders{"input", "output",  "seed",      "texture_size",
                                                        "trace", "run_dir", "stageload", "wrappers"};

// Calls `onName` for every {placeholder} of `text`; throws `bad` for an unclosed brace.
template <typename OnName, typename OnText>
void scan(const std::string& text, OnName&& onName, OnText&& onText,
          const std::function<void(const std::string&)>& bad) {
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
            onText(std::string(1, c));
            i += 2;
        } else if (c == '{') {
            const auto end = text.find('}', i);
            if (end == std::string::npos) bad("an unclosed '{' in '" + text + "' (write {{ for a brace)");
            onName(text.substr(i + 1, end - i - 1));
            i = end + 1;
        } else if (c == '}') {
            bad("a '}' without '{' in '" + text + "' (write }} for a brace)");
        } else {
            onText(std::string(1, c));
            ++i;
        }
    }
}

/// `path` with a leading "~" replaced by $HOME.
inline std::string expandHome(const std::string& path) {
    if (path == "~" || path.rfind("~/", 0) == 0) {
        const char* home = std::getenv("HOME");
        if (home && *home) return std::string(home) + path.substr(1);
    }
    return path;
}

}  // namespace stageload::generator_detail
