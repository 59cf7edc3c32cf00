#include "guard/memory/proc_fields.h"

#include <charconv>

namespace stageload::detail {

std::int64_t parseKbValue(std::string_view value) {
    const auto pos = value.find_first_of("0123456789");
    if (pos == std::string_view::npos) return 0;
    std::int64_t n = 0;
    const auto res = std::from_chars(value.data() + pos, value.data() + value.size(), n);
    if (res.ec != std::errc()) return 0;
    const std::string_view rest(res.ptr, value.data() + value.size() - res.ptr);
    const bool kb = rest.find("kB") != std::string_view::npos;
    return kb ? n * 1024 : n;
}

}  // namespace stageload::detail
