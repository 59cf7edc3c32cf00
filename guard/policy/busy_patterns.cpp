#include "guard/policy/busy_patterns.h"

#include <regex.h>

#include "guard/base/error.h"

namespace stageload {

struct BusyPatterns::Compiled {
    regex_t re{};
    ~Compiled() { regfree(&re); }
};

BusyPatterns::BusyPatterns(const std::vector<std::string>& patterns) {
    for (const auto& text : patterns) {
        if (text.empty())
            throw UsageError("'': bad regex: an empty pattern matches everything");
        regex_t re{};
        const int rc = regcomp(&re, text.c_str(), REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char msg[256];
            regerror(rc, &re, msg, sizeof msg);
            throw UsageError("'" + text + "': bad regex: " + msg);
        }
        auto c = std::make_unique<Compiled>();
        c->re = re;
        patterns_.push_back(std::move(c));
        texts_.push_back(text);
    }
}

BusyPatterns::BusyPatterns() = default;
BusyPatterns::~BusyPatterns() = default;
BusyPatterns::BusyPatterns(BusyPatterns&&) noexcept = default;
BusyPatterns& BusyPatterns::operator=(BusyPatterns&&) noexcept = default;

std::optional<std::size_t> BusyPatterns::match(const std::string& commandLine) const {
    for (std::size_t i = 0; i < patterns_.size(); ++i)
        if (regexec(&patterns_[i]->re, commandLine.c_str(), 0, nullptr, 0) == 0) return i;
    return std::nullopt;
}

}  // namespace stageload
