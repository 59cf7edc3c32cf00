#pragma once
// The guard's thresholds as one table: the key stored settings and forms use, the CLI flag, a
// label, help text, the kind of value and where it lives in GuardParams. `stageload guard`,
// `stageload run --generator`, the app's guard panel and its stored settings are all built from
// it, so a new threshold is a member of GuardParams, a row here and a rule in validate().
//
//   stageload::GuardParams p;
//   for (const auto& o : stageload::guardOptions())
//       std::printf("%s  %s (default %s)\n", o.flag.data(), o.help.data(),
//                   stageload::guardValueText(p, o).c_str());
//   stageload::setGuardValue(p, *stageload::findGuardOption("swapBudget"), "4G");
//   stageload::validate(p);      // SettingError: field() is the key of the bad threshold
//
// Texts round-trip: setGuardValue(p, o, guardValueText(p, o)) leaves p as it was. Pure and
// thread-safe; setGuardValue() throws SettingError naming the flag, the rest throws nothing.

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "guard/policy/guard_params.h"

namespace stageload {

enum class GuardValueKind {
    Percent,       ///< "40" or "40%"
    Size,          ///< "8G", "512M"
    OptionalSize,  ///< a size, or "" for unset
    Duration,      ///< "30m", "90s", "250ms"
    Patterns,      ///< regexes, one per line (the CLI's flag repeats)
    OptionalPercent,   ///< a percentage, or "" for unset
    OptionalDuration,  ///< a duration, or "" for unset
    PercentFor,        ///< "60/10s": a percentage held for a duration, or "" for unset
};

struct GuardOption {
    std::string_view key;          ///< "waitFree": settings key, widget name, SettingError field
    std::string_view flag;         ///< "--wait-free"
    std::string_view label;        ///< "Start when free ≥": the panel's words
    std::string_view help;         ///< one line for --help; the default is added by whoever shows it
    std::string_view panelHelp;    ///< the panel's tooltip: the same, in an artist's words
    std::string_view placeholder;  ///< an example for an empty field: "e.g. 8G"
    GuardValueKind kind;
    bool inPanel = true;           ///< false: CLI only (the trace interval)
    // Where the value lives: the one member pointer that fits `kind` is set.
    double GuardParams::*real = nullptr;                        ///< Percent, Duration
    std::int64_t GuardParams::*size = nullptr;                  ///< Size
    std::optional<std::int64_t> GuardParams::*limit = nullptr;  ///< OptionalSize
    std::vector<std::string> GuardParams::*patterns = nullptr;  ///< Patterns
    /// OptionalSize: a word it takes besides a size ("forecast"), and the flag that word sets.
    std::string_view word = {};
    bool GuardParams::*wordFlag = nullptr;
    std::optional<double> GuardParams::*optional = nullptr;               ///< OptionalPercent, OptionalDuration
    std::optional<PressureLimit> GuardParams::*percentFor = nullptr;      ///< PercentFor
    /// Needs the kernel's memory pressure (PSI): said at start where there is none.
    bool needsPressure = false;
};

/// Every threshold a user sets, in the order the CLI's help and the panel show them.
std::span<const GuardOption> guardOptions();
/// The row whose key is `key`, or nullptr.
const GuardOption* findGuardOption(std::string_view key);

/// The value as text that setGuardValue() takes back exactly: "40", "8G", "3584M", "1m",
/// "250ms", "60/10s", "" for an unset limit, the row's word when its flag is set, patterns one
/// per line.
std::string guardValueText(const GuardParams& params, const GuardOption& option);
/// Parses `text` into `params` (ranges are validate()'s). SettingError("--swap-budget: not a
/// size: '8X' ...") for text that is not a value of the option's kind; for patterns, blank lines
/// are skipped, each line is trimmed, and a bad regex names its line.
void setGuardValue(GuardParams& params, const GuardOption& option, std::string_view text);

/// What the thresholds set in `params` cannot do on this machine, said when a run starts:
/// "--pressure-kill cannot work here: this machine reports no memory pressure (...)" where
/// `havePressure` is false and an option that needs PSI differs from its default; "" when every
/// threshold set works. Flags as the CLI names them (guardReasonInWords() gives the panel's).
std::string unsupportedOptionsNotice(const GuardParams& params, bool havePressure);

/// A guard's reason (GuardPolicy's, which names thresholds by their flags for the CLI) in the
/// panel's words: "available 32.0% < --wait-free 40.0%" becomes "available 32.0% < 40.0% (Start
/// when free)"; a flag without a value becomes its label. Other text is left as it is.
std::string guardReasonInWords(std::string_view reason);

}  // namespace stageload
