#include "guard/base/text.h"

#include <cctype>

namespace stageload {

std::string asciiLower(std::string_view s) {
    std::string out(s);
    for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view trim(std::string_view s) {
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
    while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
    return s;
}

namespace {

std::string joinList(const std::vector<std::string>& words, const char* last) {
    std::string out;
    for (std::size_t i = 0; i < words.size(); ++i) {
        if (i > 0) out += i + 1 == words.size() ? last : ", ";
        out += words[i];
    }
    return out;
}

}  // namespace

std::string joinAlternatives(const std::vector<std::string>& words) {
    return joinList(words, " or ");
}

std::string joinWords(const std::vector<std::string>& words) {
    return joinList(words, " and ");
}

}  // namespace stageload
