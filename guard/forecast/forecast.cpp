#include "guard/forecast/forecast.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include "guard/base/error.h"
#include "guard/base/units.h"
#include "guard/trace/summary.h"

namespace stageload {
namespace {

std::optional<double> numberIn(const nlohmann::json& meta, const char* key) {
    const auto it = meta.find(key);
    if (it == meta.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::string textIn(const nlohmann::json& meta, const char* key) {
    const auto it = meta.find(key);
    return it != meta.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// "25" → 25; "fast" → nullopt. Params arrive as text from the command line.
std::optional<double> parseNumber(const std::string& text) {
    if (text.empty()) return std::nullopt;
    char* end = nullptr;
    const double v = std::strtod(text.c_str(), &end);
    if (end != text.c_str() + text.size() || !std::isfinite(v)) return std::nullopt;
    return v;
}

struct Line {
    double a = 0, b = 0, residual = 0;
};

// Least squares peak = a + b·x over (x, peak) pairs with at least two distinct x.
Line fitLine(const std::vector<std::pair<double, double>>& xy) {
    double mx = 0, my = 0;
    for (const auto& [x, y] : xy) {
        mx += x;
        my += y;
    }
    mx /= double(xy.size());
    my /= double(xy.size());
    double sxx = 0, sxy = 0;
    for (const auto& [x, y] : xy) {
        sxx += (x - mx) * (x - mx);
        sxy += (x - mx) * (y - my);
    }
    Line l;
    l.b = sxx > 0 ? sxy / sxx : 0.0;
    l.a = my - l.b * mx;
    for (const auto& [x, y] : xy) l.residual += std::pow(y - (l.a + l.b * x), 2);
    return l;
}

std::string runsText(int n) {
    return std::to_string(n) + (n == 1 ? " run" : " runs");
}

}  // namespace

RunKey runKeyOf(const nlohmann::json& meta) {
    RunKey key;
    if (!meta.is_object()) return key;
    if (const auto generator = textIn(meta, "generator"); !generator.empty()) {
        key.pipeline = "generator:" + generator;
        if (const auto params = meta.find("params"); params != meta.end() && params->is_object()) {
            for (const auto& [name, value] : params->items()) {
                const std::string text = value.is_string() ? value.get<std::string>() : value.dump();
                if (const auto n = parseNumber(text)) key.sizes["param:" + name] = *n;
                else key.choices["param:" + name] = text;
            }
        }
    } else {
        key.pipeline = textIn(meta, "pipeline");
        if (key.pipeline.empty()) return key;
        // The Python stageload says "mode" where ours says "load".
        const auto load = textIn(meta, "load");
        key.choices["load"] = load.empty() ? textIn(meta, "mode") : load;
        for (const char* choice : {"remover", "device"})
            if (const auto v = textIn(meta, choice); !v.empty()) key.choices[choice] = v;
        for (const char* size : {"triangles", "scale_gib"})
            if (const auto v = numberIn(meta, size)) key.sizes[size] = *v;
        const auto w = numberIn(meta, "picture_width"), h = numberIn(meta, "picture_height");
        if (w && h) key.sizes["picture_pixels"] = *w * *h;
    }
    if (const auto v = numberIn(meta, "texture_size")) key.sizes["texture_size"] = *v;
    if (const auto weights = meta.find("stage_weights"); weights != meta.end() && weights->is_object())
        for (const auto& [stage, bytes] : weights->items())
            if (bytes.is_number() && bytes.get<double>() >= 0 && bytes.get<double>() < 9e18)
                key.weights[stage] = static_cast<std::int64_t>(bytes.get<double>());
    return key;
}

std::optional<RunPoint> runPointOf(const Trace& trace, const std::string& source) {
    RunPoint point;
    point.source = source;
    point.key = runKeyOf(trace.start);
    if (point.key.pipeline.empty()) return std::nullopt;
    const Summary s = summarize(trace);
    // Stages that ran to their end: not the one a stop or a cut-off trace ended in, nor later.
    std::size_t complete = s.stages.size();
    if (!s.stoppedAt.empty()) {
        for (std::size_t i = 0; i < s.stages.size(); ++i)
            if (s.stages[i].name == s.stoppedAt) complete = std::min(complete, i);
    } else if (!s.ended && complete > 0) {
        --complete;
    }
    for (std::size_t i = 0; i < complete; ++i)
        if (const auto peak = s.stages[i].peak()) point.stagePeaks.emplace_back(s.stages[i].name, *peak);
    if (point.stagePeaks.empty()) return std::nullopt;
    if (!trace.samples.empty()) point.baseline = trace.samples.front().footprint;
    return point;
}

std::vector<RunPoint> readRunPoints(const std::vector<std::filesystem::path>& paths, int* skipped) {
    namespace fs = std::filesystem;
    std::vector<fs::path> files;
    for (const auto& p : paths) {
        std::error_code ec;
        if (fs::is_directory(p, ec)) {
            for (auto it = fs::recursive_directory_iterator(p, fs::directory_options::skip_permission_denied, ec);
                 !ec && it != fs::recursive_directory_iterator(); it.increment(ec))
                if (it->is_regular_file(ec) && it->path().extension() == ".jsonl") files.push_back(it->path());
        } else {
            files.push_back(p);
        }
    }
    std::sort(files.begin(), files.end());
    std::vector<RunPoint> points;
    for (const auto& file : files) {
        std::optional<RunPoint> point;
        try {
            point = runPointOf(readTrace(file.string()), file.string());
        } catch (const Error&) {
        }
        if (point) points.push_back(std::move(*point));
        else if (skipped) ++*skipped;
    }
    return points;
}

std::filesystem::path defaultHistoryDir() {
    const char* data = std::getenv("XDG_DATA_HOME");
    const char* home = std::getenv("HOME");
    const std::filesystem::path base = data && *data ? std::filesystem::path(data)
                                       : std::filesystem::path(home ? home : "") / ".local/share";
    return base / "Stageload" / "Stageload Studio" / "runs";
}

std::optional<std::int64_t> Forecast::peak() const {
    std::optional<std::int64_t> best;
    for (const auto& s : stages)
        if (s.peak && (!best || *s.peak > *best)) best = s.peak;
    return best;
}

std::string Forecast::peakStage() const {
    const auto best = peak();
    for (const auto& s : stages)
        if (best && s.peak == best) return s.stage;
    return {};
}

bool Forecast::partial() const {
    return std::any_of(stages.begin(), stages.end(), [](const StageForecast& s) { return s.lowerBound; });
}

Forecast forecastRun(const std::vector<RunPoint>& history, const RunKey& key, std::int64_t held) {
    Forecast f;
    std::vector<const RunPoint*> same;
    for (const auto& p : history)
        if (p.key.pipeline == key.pipeline && p.key.choices == key.choices) same.push_back(&p);
    f.runs = static_cast<int>(same.size());

    std::vector<std::string> order;  // stages in run order, the longest run first
    std::vector<const RunPoint*> byLength = same;
    std::stable_sort(byLength.begin(), byLength.end(),
                     [](auto* a, auto* b) { return a->stagePeaks.size() > b->stagePeaks.size(); });
    for (const auto* p : byLength)
        for (const auto& [stage, peak] : p->stagePeaks)
            if (std::find(order.begin(), order.end(), stage) == order.end()) order.push_back(stage);

    // Stages whose weights are known but that no earlier run has: their weights are a floor.
    for (const auto& [stage, bytes] : key.weights)
        if (std::find(order.begin(), order.end(), stage) == order.end()) order.push_back(stage);

    for (const auto& stage : order) {
        const auto known = key.weights.find(stage);
        const std::optional<std::int64_t> weights =
            known == key.weights.end() ? std::nullopt : std::optional(known->second);
        // With the new run's weights known, the fit is of what each earlier run held besides
        // its own weights (its trace's, else the same files').
        std::vector<std::pair<const RunPoint*, double>> points;
        for (const auto* p : same)
            for (const auto& [name, peak] : p->stagePeaks) {
                if (name != stage) continue;
                // In a process that runs already, what the run added to what its process held.
                double besides = double(peak) - (held > 0 ? double(p->baseline) : 0.0);
                if (weights) {
                    const auto own = p->key.weights.find(stage);
                    besides -= double(own == p->key.weights.end() ? *weights : own->second);
                }
                points.emplace_back(p, besides);
            }
        StageForecast sf;
        sf.stage = stage;
        sf.weights = weights;
        sf.runs = static_cast<int>(points.size());
        if (points.empty()) {
            sf.peak = weights;
            sf.lowerBound = true;
            sf.basis = "its weights alone (no earlier run): at least this";
            f.stages.push_back(std::move(sf));
            continue;
        }
        // Sizes every point and the new run have; those that vary among the points can be fitted.
        std::vector<std::string> varying;
        bool differs = false;  // a size the fit cannot follow is not the new run's
        double beyond = 1.0;   // how many times the largest the runs had, the farthest size is
        std::string beyondName;
        std::set<std::string> names;
        for (const auto& [p, peak] : points)
            for (const auto& [name, v] : p->key.sizes) names.insert(name);
        for (const auto& [name, v] : key.sizes) names.insert(name);
        for (const auto& name : names) {
            const auto target = key.sizes.find(name);
            bool all = target != key.sizes.end();
            double lo = INFINITY, hi = -INFINITY;
            for (const auto& [p, peak] : points) {
                const auto it = p->key.sizes.find(name);
                if (it == p->key.sizes.end()) {
                    all = false;
                    continue;
                }
                lo = std::min(lo, it->second);
                hi = std::max(hi, it->second);
            }
            if (all && hi > lo) varying.push_back(name);
            else if (!all || target->second != lo) differs = true;
            if (target != key.sizes.end() && hi > 0 && target->second / hi > beyond) {
                beyond = target->second / hi;
                beyondName = name;
            }
        }
        double at = 0;
        if (varying.empty()) {
            double sum = 0;
            for (const auto& [p, peak] : points) sum += peak;
            at = sum / double(points.size());
            sf.rough = differs;
            sf.basis = (differs ? "other settings (" : "same settings (") + runsText(sf.runs) + ")";
            if (differs) {
                // A mean of other settings says little about this one: widened, the more the
                // farther a size lies past what the runs had (an 8000² picture after 1024² ones).
                sf.margin = kRoughMargin + (beyond > 1.0 ? std::log2(beyond) : 0.0);
                at *= 1.0 + sf.margin;
                sf.basis += " + " + formatNumber(std::round(sf.margin * 100.0)) + " % margin";
                if (beyond > 1.0)
                    sf.basis += ": " + beyondName + " " + formatNumber(std::round(beyond * 10.0) / 10.0) +
                                "× the largest run's";
            }
        } else {
            std::string best;
            Line bestLine;
            for (const auto& name : varying) {
                std::vector<std::pair<double, double>> xy;
                for (const auto& [p, peak] : points) xy.emplace_back(p->key.sizes.at(name), peak);
                const Line l = fitLine(xy);
                if (best.empty() || l.residual < bestLine.residual) {
                    best = name;
                    bestLine = l;
                }
            }
            // A run's stage peaks scatter from run to run around the line (by up to 11 % at
            // sizes between and beyond those fitted: `stageload bench forecast`): widened, so
            // that a forecast keeps out a run the guard would stop.
            sf.margin = kFitMargin;
            at = (bestLine.a + bestLine.b * key.sizes.at(best)) * (1.0 + sf.margin);
            sf.rough = differs || varying.size() > 1;
            sf.basis = "fit over " + best + " (" + runsText(sf.runs) + ")" +
                       (varying.size() > 1 ? "; other sizes differ too" : "") + " + " +
                       formatNumber(std::round(sf.margin * 100.0)) + " % margin";
        }
        if (weights) {
            at = std::max(0.0, at) + double(*weights);
            sf.basis += " + its weights";
        }
        if (held > 0) {
            at = std::max(0.0, at) + double(held);
            sf.basis += " + what the app holds now";
        }
        sf.peak = static_cast<std::int64_t>(std::llround(std::max(0.0, at)));
        f.stages.push_back(std::move(sf));
    }
    return f;
}

nlohmann::ordered_json toJson(const Forecast& f) {
    nlohmann::ordered_json j;
    j["runs"] = f.runs;
    j["peak"] = f.peak() ? nlohmann::ordered_json(*f.peak()) : nlohmann::ordered_json(nullptr);
    j["peak_gb"] = f.peak() ? nlohmann::ordered_json(roundedGb(*f.peak())) : nlohmann::ordered_json(nullptr);
    j["peak_stage"] = f.peakStage();
    auto stages = nlohmann::ordered_json::array();
    for (const auto& s : f.stages) {
        nlohmann::ordered_json stage{
            {"stage", s.stage},
            {"peak", s.peak ? nlohmann::ordered_json(*s.peak) : nlohmann::ordered_json(nullptr)},
            {"peak_gb", s.peak ? nlohmann::ordered_json(roundedGb(*s.peak)) : nlohmann::ordered_json(nullptr)},
            {"runs", s.runs},
            {"basis", s.basis},
            {"rough", s.rough}};
        if (s.margin > 0) stage["margin"] = s.margin;
        if (s.weights) {
            stage["weights"] = *s.weights;
            stage["weights_gb"] = roundedGb(*s.weights);
            stage["lower_bound"] = s.lowerBound;
        }
        stages.push_back(std::move(stage));
    }
    j["stages"] = stages;
    return j;
}

std::string formatForecast(const Forecast& f) {
    if (f.stages.empty())
        return "no earlier run of this pipeline with these choices, and no weights known ahead: nothing "
               "to forecast from yet\n";
    std::string out;
    char line[256];
    std::snprintf(line, sizeof line, "%-16s %14s %13s  %s\n", "stage", "forecast (GiB)", "weights (GiB)",
                  "basis");
    out += line;
    for (const auto& s : f.stages) {
        std::snprintf(line, sizeof line, "%-16s %14s %13s  %s%s\n", s.stage.c_str(),
                      ((s.lowerBound ? ">= " : "") + formatGb(s.peak)).c_str(), formatGb(s.weights).c_str(),
                      s.basis.c_str(), s.rough ? " (rough)" : "");
        out += line;
    }
    std::snprintf(line, sizeof line, "%-16s %14s %13s  in %s\n", "peak",
                  ((f.partial() ? ">= " : "") + formatGb(f.peak())).c_str(), "", f.peakStage().c_str());
    return out + line;
}

}  // namespace stageload
