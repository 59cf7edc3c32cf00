#pragma once
// Every named choice of a run, written once: its values, the words users type for them and a
// line of help. The CLI builds its flags from these tables, the app its menus and stored
// settings, the engine its checks.
//
//   auto mode = stageload::parseChoice<stageload::LoadMode>("eager");   // LoadMode::Eager
//   std::string_view word = stageload::choiceName(mode);                // "eager"
//   for (const auto& c : stageload::choices<stageload::RemoverChoice>()) menu.add(c.name, c.help);
//
// A new choice is one line in a table below. parseChoice() throws SettingError naming the
// setting and listing what is accepted; everything else is noexcept. Pure and thread-safe.
// No Torch and no Qt here.

#include <array>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "guard/base/error.h"
#include "guard/base/text.h"

namespace stageload {

/// Staged: each model is built when a stage first needs it and freed when a stage that does not
/// list it begins. Eager: every model is built up front and kept until the run ends.
enum class LoadMode { Staged, Eager };

/// Which background remover preprocess uses when the picture has no meaningful alpha. Auto:
/// the classical cut-out on a background of one even colour; else U²-Netp when installed,
/// else ISNet when installed (either completed by the classical cut-out on a gradient or
/// blurred blobs), else the classical cut-out with a notice.
/// Asking for a learned one that is not installed is an error.
enum class RemoverChoice { Auto, U2NetP, ISNet, Classical };

template <typename E>
struct Choice {
    E value;
    std::string_view name;  ///< what users type and what is stored
    std::string_view help;  ///< one line for menus and --help
};

/// What a table is about, for messages: {setting key, CLI flag}.
struct ChoiceSetting {
    std::string_view key;   ///< "load", the SettingError's field
    std::string_view flag;  ///< "--load"
};

template <typename E>
struct ChoiceTable;

template <>
struct ChoiceTable<LoadMode> {
    static constexpr ChoiceSetting setting{"load", "--load"};
    static constexpr std::array<Choice<LoadMode>, 2> all{{
        {LoadMode::Staged, "staged", "each model only while a stage needs it"},
        {LoadMode::Eager, "eager", "every model up front, kept to the end (the baseline)"},
    }};
};

template <>
struct ChoiceTable<RemoverChoice> {
    static constexpr ChoiceSetting setting{"remover", "--remover"};
    static constexpr std::array<Choice<RemoverChoice>, 4> all{{
        {RemoverChoice::Auto, "auto", "classical on one even colour, else U²-Netp or ISNet, whichever is installed (on a gradient or blurred blobs, completed by classical)"},
        {RemoverChoice::U2NetP, "u2netp", "U²-Netp (small, fast)"},
        {RemoverChoice::ISNet, "isnet", "ISNet (sharper edges, slower)"},
        {RemoverChoice::Classical, "classical", "the border-colour cut-out, no weights"},
    }};
};

template <typename E>
constexpr std::span<const Choice<E>> choices() {
    return ChoiceTable<E>::all;
}

template <typename E>
constexpr std::string_view choiceName(E value) {
    for (const auto& c : ChoiceTable<E>::all)
        if (c.value == value) return c.name;
    return "?";
}

/// The value whose name is `text` (exact, lower case), or nullopt.
template <typename E>
constexpr std::optional<E> findChoice(std::string_view text) {
    for (const auto& c : ChoiceTable<E>::all)
        if (c.name == text) return c.value;
    return std::nullopt;
}

/// Every name, in table order.
template <typename E>
std::vector<std::string> choiceNames() {
    std::vector<std::string> names;
    for (const auto& c : ChoiceTable<E>::all) names.emplace_back(c.name);
    return names;
}

/// The value whose name is `text`; SettingError "--load fast: not a choice; use staged or
/// eager" otherwise.
template <typename E>
E parseChoice(std::string_view text) {
    if (auto v = findChoice<E>(text)) return *v;
    constexpr auto s = ChoiceTable<E>::setting;
    throw SettingError(std::string(s.key), std::string(s.flag) + " " + std::string(text),
                       "not a choice; use " + joinAlternatives(choiceNames<E>()));
}

}  // namespace stageload
