#include "guard/forecast/verdict.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "guard/base/error.h"
#include "guard/base/units.h"
#include "guard/memory/process_memory.h"

namespace stageload {
namespace {

// "a (1.00 GiB)", "a (1.00 GiB) and b (…)", "a (…), b (…) and c (…)".
std::string listPrograms(const std::vector<ProgramMemory>& programs, ByteUnits units) {
    std::string out;
    for (std::size_t i = 0; i < programs.size(); ++i) {
        if (i > 0) out += i + 1 == programs.size() ? " and " : ", ";
        out += programs[i].name + " (" + formatBytes(programs[i].bytes, units) + ")";
    }
    return out;
}

// The fewest of `others` (largest first, at most three) that free `shortfall`; empty when even
// three do not.
std::vector<ProgramMemory> enoughToClose(const std::vector<ProgramMemory>& others,
                                         std::int64_t shortfall) {
    std::vector<ProgramMemory> chosen;
    std::int64_t freed = 0;
    for (const auto& p : others) {
        if (chosen.size() == 3) break;
        chosen.push_back(p);
        freed += p.bytes;
        if (freed >= shortfall) return chosen;
    }
    return {};
}

// How a size key is offered to the user, and the smaller values tried for it.
struct Knob {
    std::string phrase;           ///< "choose texture", "set steps to"
    std::vector<double> smaller;  ///< largest first
};

std::optional<Knob> knobOf(const std::string& size, double current) {
    const auto halves = [current](double floor, bool whole) {
        std::vector<double> v;
        for (double x = current / 2; x >= floor && v.size() < 3; x /= 2)
            v.push_back(whole ? std::floor(x) : x);
        return v;
    };
    if (size == "texture_size") {
        std::vector<double> v;
        for (double t : {2048.0, 1024.0})
            if (t < current) v.push_back(t);
        return Knob{"choose texture", v};
    }
    if (size == "triangles") return Knob{"choose triangles", halves(1000, true)};
    if (size == "scale_gib") return Knob{"choose scale", halves(0.01, false)};
    if (size.rfind("param:", 0) == 0) {
        const bool whole = current == std::floor(current);
        return Knob{"set " + size.substr(6) + " to", halves(whole ? 1 : 1e-9, whole)};
    }
    return std::nullopt;  // picture_pixels: the picture is what it is
}

}  // namespace

std::int64_t needWithMargin(std::int64_t peak) {
    return static_cast<std::int64_t>(std::llround(static_cast<double>(peak) * (1.0 + kForecastMargin)));
}

std::vector<ProgramMemory> largestPrograms(const std::vector<ProcessInfo>& processes,
                                           const std::set<pid_t>& exclude, std::size_t n,
                                           std::int64_t minBytes) {
    std::map<std::string, ProgramMemory> byName;
    for (const auto& p : processes) {
        if (exclude.count(p.pid) || p.state == 'Z') continue;
        std::int64_t rss = 0;
        try {
            rss = readProcessMemory(p.pid).rss;
        } catch (const Error&) {
            continue;  // gone, or not ours to read
        }
        if (rss <= 0) continue;  // kernel threads
        auto& m = byName[p.comm];
        m.name = p.comm;
        m.bytes += rss;
        ++m.processes;
    }
    std::vector<ProgramMemory> out;
    for (auto& [name, m] : byName)
        if (m.bytes >= minBytes) out.push_back(std::move(m));
    std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
    if (out.size() > n) out.resize(n);
    return out;
}

const char* fitName(Fit fit) {
    switch (fit) {
        case Fit::Fits: return "fits";
        case Fit::Tight: return "tight";
        case Fit::WillNotFit: return "will not fit";
        case Fit::GuardStops: return "the guard will stop it";
        case Fit::Unknown: break;
    }
    return "unknown";
}

FitVerdict judgeFit(const Forecast& f, std::int64_t available,
                    const std::vector<ProgramMemory>& others, std::int64_t held,
                    const std::string& smaller, ByteUnits units) {
    FitVerdict v;
    v.available = available;
    if (!f.peak()) {
        v.text = "unknown: no earlier run with these choices to forecast from; this run will be "
                 "the first the next forecast learns from";
        return v;
    }
    v.peak = *f.peak();
    v.stage = f.peakStage();
    v.need = std::max<std::int64_t>(0, v.peak - held);
    const std::int64_t wanted = std::max<std::int64_t>(0, needWithMargin(v.peak) - held);
    v.fit = available >= wanted ? Fit::Fits : available >= v.need ? Fit::Tight : Fit::WillNotFit;
    v.text = std::string(fitName(v.fit)) + (f.partial() ? ": needs at least " : ": needs about ") +
             formatBytes(v.peak, units) + " in " + v.stage +
             (held > 0 ? " (" + formatBytes(std::min(held, v.peak), units) + " of it held already)" : std::string()) +
             (f.partial() ? " (the weights of stages no earlier run shows; the rest is not known yet)"
                          : std::string()) +
             ", " + formatBytes(available, units) + " available";
    if (v.fit == Fit::Fits) return v;
    if (v.fit == Fit::Tight) v.text += ", less than the " + formatNumber(kForecastMargin * 100) + " % margin";
    const auto close = enoughToClose(others, wanted - available);
    std::string advice;
    if (!close.empty()) advice = "close " + listPrograms(close, units);
    if (!smaller.empty()) advice += (advice.empty() ? "" : ", or ") + smaller;
    if (advice.empty())
        advice = "free about " + formatBytes(wanted - available, units) +
                 (others.empty() ? std::string() : " (the largest other programs: " + listPrograms(others, units) + ")");
    v.text += ": " + advice;
    return v;
}

FitVerdict judgeAgainstGuard(FitVerdict v, std::int64_t total, double killFree,
                             const std::vector<ProgramMemory>& others, ByteUnits units) {
    if ((v.fit != Fit::Fits && v.fit != Fit::Tight) || total <= 0 || !(killFree > 0.0)) return v;
    const std::int64_t left = v.available - v.need;  // available at the peak
    const double leftPercent = 100.0 * static_cast<double>(left) / static_cast<double>(total);
    if (leftPercent >= killFree) return v;
    const auto level = static_cast<std::int64_t>(std::ceil(killFree / 100.0 * static_cast<double>(total)));
    const std::int64_t shortfall = level - left;
    v.fit = Fit::GuardStops;
    // The level that lets it through, a tenth of a percent under what the peak leaves.
    const double lower = std::floor(leftPercent * 10.0 - 1e-9) / 10.0;
    std::string advice = lower >= 0.1 ? "set --kill-free to " + formatPercent(lower) + " or lower" : std::string();
    const auto close = enoughToClose(others, shortfall);
    advice += (advice.empty() ? "" : ", or ") +
              (close.empty() ? "free about " + formatBytes(shortfall, units) : "close " + listPrograms(close, units));
    v.text = std::string(fitName(v.fit)) + " in " + v.stage + ": about " + formatBytes(v.need, units) +
             " there would leave available " + formatPercent(leftPercent) + " < --kill-free " +
             formatPercent(killFree) + ": " + advice;
    return v;
}

std::string smallerSettingThatFits(const std::vector<RunPoint>& history, const RunKey& key,
                                   std::int64_t available, std::int64_t held, ByteUnits units) {
    for (const auto& [size, current] : key.sizes) {
        const auto knob = knobOf(size, current);
        if (!knob) continue;
        for (const double value : knob->smaller) {
            RunKey smaller = key;
            smaller.sizes[size] = value;
            const Forecast f = forecastRun(history, smaller, held);
            // A mean of runs at one other setting says nothing about this one.
            const bool fitted = !f.stages.empty() &&
                                std::none_of(f.stages.begin(), f.stages.end(),
                                             [](const StageForecast& s) { return s.rough || !s.peak; });
            if (!fitted || needWithMargin(*f.peak()) - held > available) continue;
            return knob->phrase + " " + formatNumber(value) + " (about " +
                   formatBytes(std::max<std::int64_t>(0, *f.peak() - held), units) + ")";
        }
    }
    return {};
}

}  // namespace stageload
