#pragma once
// Internal: "Key:   123 kB" fields as /proc/<pid>/status and /proc/meminfo write them.
// Pure, thread-safe, never throws.

#include <cstdint>
#include <string_view>

namespace stageload::detail {

/// Bytes of a "   123456 kB" field value (the part after the colon); 0 if there is no number.
std::int64_t parseKbValue(std::string_view value);

/// Calls fn(key, value) for each "Key: value" line of `text`.
template <class Fn>
void forEachField(std::string_view text, Fn&& fn) {
    while (!text.empty()) {
        const auto eol = text.find('\n');
        const auto line = text.substr(0, eol);
        const auto colon = line.find(':');
        if (colon != std::string_view::npos) fn(line.substr(0, colon), line.substr(colon + 1));
        if (eol == std::string_view::npos) break;
        text.remove_prefix(eol + 1);
    }
}

}  // namespace stageload::detail
