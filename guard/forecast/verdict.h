#pragma once
// Will a run fit? A forecast's peak against the memory available now, in words an artist reads,
// with the largest other programs to close and a smaller setting that fits.
//
//   const auto others = stageload::largestPrograms(stageload::listProcesses(false), mine, 5);
//   const auto v = stageload::judgeFit(forecast, readSystemMemory().available, others, 0,
//                                      stageload::smallerSettingThatFits(history, key, available));
//   std::puts(v.text.c_str());
//   // will not fit: needs about 31.0 GiB in texture, 22.0 GiB available: close chrome
//   // (6.10 GiB) and blender (3.20 GiB), or choose texture 1024 (about 19.5 GiB)
//
// A run fits when the forecast peak and a margin (kForecastMargin, as `--need forecast` asks)
// are available; it is tight when the peak itself is; it will not fit otherwise. Pure
// functions except largestPrograms(), which reads /proc; thread-safe.

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>

#include "guard/base/units.h"
#include "guard/forecast/forecast.h"
#include "guard/process/process_list.h"

namespace stageload {

/// What `--need forecast` and a fit ask on top of the forecast peak: a tenth.
inline constexpr double kForecastMargin = 0.10;

/// The forecast peak with the margin: what must be available for a run to fit.
std::int64_t needWithMargin(std::int64_t peak);

/// One program's resident memory, summed over its processes (a browser's tabs). Shared pages
/// are counted in each process, so a many-process program reads somewhat high.
struct ProgramMemory {
    std::string name;  ///< the processes' short name (comm)
    std::int64_t bytes = 0;
    int processes = 0;
};

/// The programs of `processes` by resident memory, largest first, at most `n`, leaving out the
/// pids in `exclude` (this process and its ancestors: the app, its terminal) and programs under
/// `minBytes`. Processes that vanish while being read are skipped.
std::vector<ProgramMemory> largestPrograms(const std::vector<ProcessInfo>& processes,
                                           const std::set<pid_t>& exclude, std::size_t n,
                                           std::int64_t minBytes = std::int64_t(100) << 20);

/// GuardStops: there is the memory, but the peak takes available memory under the guard's stop
/// level (judgeAgainstGuard()), so the guard will stop the run.
enum class Fit { Unknown, Fits, Tight, WillNotFit, GuardStops };

/// "fits", "tight", "will not fit", "the guard will stop it", "unknown".
const char* fitName(Fit fit);

struct FitVerdict {
    Fit fit = Fit::Unknown;
    std::int64_t peak = 0;       ///< the forecast peak (0: unknown)
    std::int64_t need = 0;       ///< what the run still needs: peak − held (held: judgeFit())
    std::int64_t available = 0;  ///< available now
    std::string stage;           ///< the stage of the peak
    std::string text;            ///< one sentence, starting with fitName()
};

/// The verdict for a run forecast `f` with `available` bytes available now. `held`: what the
/// process that will run already holds (the app, for a built-in run in it; 0 for a new
/// process). `others`: largestPrograms(), named when closing them would make room. `smaller`:
/// a change of settings that fits (smallerSettingThatFits()), offered when the run does not.
/// `units`: the family the text writes sizes in (the app's choice; the CLI's is binary).
FitVerdict judgeFit(const Forecast& f, std::int64_t available,
                    const std::vector<ProgramMemory>& others, std::int64_t held = 0,
                    const std::string& smaller = "", ByteUnits units = ByteUnits::Binary);

/// `v` (judgeFit()'s) against the guard's stop level `killFree` (% of `total`, --kill-free): a run
/// that fits or is tight but whose peak would leave less than that available is one the guard
/// will stop. It becomes Fit::GuardStops, and its text says where, with what the peak leaves,
/// and what lets it through: a --kill-free under that, or programs to close (`others`,
/// largestPrograms()) or memory to free up to the level:
///   the guard will stop it in texture: about 2.42 GiB there would leave available 86.3% <
///   --kill-free 89.0%: set --kill-free to 86.2% or lower, or free about 620.0 MiB
/// Any other verdict, or no stop level (`killFree` 0, `total` unknown), is returned as it was.
FitVerdict judgeAgainstGuard(FitVerdict v, std::int64_t total, double killFree,
                             const std::vector<ProgramMemory>& others = {},
                             ByteUnits units = ByteUnits::Binary);

/// A smaller setting of the run `key` whose forecast fits in `available` (with the margin and
/// `held` as judgeFit() counts them): "choose texture 1024 (about 19.5 GiB)", "choose scale 4
/// (…)", "choose triangles 20000 (…)", "set steps to 25 (…)"; "" when no smaller setting that
/// the history can forecast fits. Only settings fitted from runs at other values are tried.
std::string smallerSettingThatFits(const std::vector<RunPoint>& history, const RunKey& key,
                                   std::int64_t available, std::int64_t held = 0,
                                   ByteUnits units = ByteUnits::Binary);

}  // namespace stageload
