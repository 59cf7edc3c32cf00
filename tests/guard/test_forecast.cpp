// Forecasts from earlier traces: fitted across a size, matched on choices, stopped stages left
// out, what the keys are made of, reading a history folder; and the verdict on whether a run
// fits, with the programs to close and a smaller setting.
#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include <QTemporaryDir>
#include <QtTest>

#include "guard/base/event.h"
#include "guard/forecast/forecast.h"
#include "guard/forecast/verdict.h"
#include "guard/policy/guard_options.h"
#include "guard/trace/summary.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_forecast {

namespace {

constexpr std::int64_t MiB = 1 << 20;

// The peak an earlier run must have had for a line through such runs to forecast `bytes` once
// its margin is added: the verdict tests speak of round forecasts.
std::int64_t beforeFitMargin(std::int64_t bytes) {
    return std::llround(double(bytes) / (1.0 + stageload::kFitMargin));
}

// A trace of `stages` (name, peak) one second each, with `meta` as its start line.
std::string traceText(const nlohmann::json& meta, const std::vector<std::pair<std::string, std::int64_t>>& stages,
                      const std::string& tail = "{\"type\":\"end\"}\n") {
    nlohmann::json start = meta;
    start["type"] = "start";
    std::string out = start.dump() + "\n";
    double t = 0;
    for (const auto& [name, peak] : stages) {
        out += nlohmann::json{{"type", "event"}, {"kind", "stage"}, {"stage", name}, {"name", name}, {"t", t}}.dump() + "\n";
        out += nlohmann::json{{"type", "sample"}, {"t", t + 0.5}, {"footprint", peak}}.dump() + "\n";
        t += 1;
    }
    return out + tail;
}

Trace parse(const std::string& text) {
    std::istringstream in(text);
    return parseTrace(in, "t.jsonl");
}

RunPoint point(const nlohmann::json& meta, const std::vector<std::pair<std::string, std::int64_t>>& stages) {
    return *runPointOf(parse(traceText(meta, stages)), "t.jsonl");
}

nlohmann::json cascade(double scale, const char* load = "staged") {
    return {{"pipeline", "cascade"}, {"load", load}, {"scale_gib", scale}, {"seed", 7}};
}

}  // namespace

class TestForecast : public QObject {
    Q_OBJECT

private slots:
    void aSizeNeverRunIsFittedAlongALine() {
        // Peaks grow with the scale: 100 + 200·s MiB in texture, flat in decode.
        std::vector<RunPoint> history = {
            point(cascade(1), {{"structure", 300 * MiB}, {"texture", 300 * MiB}, {"decode", 50 * MiB}}),
            point(cascade(3), {{"structure", 700 * MiB}, {"texture", 700 * MiB}, {"decode", 50 * MiB}}),
            point(cascade(2, "eager"), {{"structure", 9000 * MiB}}),  // another mode: ignored
        };
        const Forecast f = forecastRun(history, runKeyOf(cascade(2)));
        QCOMPARE(f.runs, 2);
        QCOMPARE(f.stages.size(), std::size_t(3));
        QCOMPARE(f.stages[1].stage, std::string("texture"));
        // On the line, and the run-to-run scatter's margin above it.
        QCOMPARE(*f.stages[1].peak, std::llround(500 * MiB * (1 + kFitMargin)));
        QCOMPARE(f.stages[1].margin, kFitMargin);
        QCOMPARE(f.stages[1].basis, std::string("fit over scale_gib (2 runs) + 8 % margin"));
        QVERIFY(!f.stages[1].rough);
        QCOMPARE(*f.stages[2].peak, std::llround(50 * MiB * (1 + kFitMargin)));
        QCOMPARE(f.peakStage(), std::string("structure"));
        // Farther out the line goes on.
        QCOMPARE(*forecastRun(history, runKeyOf(cascade(6))).stages[1].peak, std::llround(1300 * MiB * (1 + kFitMargin)));
    }

    void theSameSettingsGiveTheMeanAndOtherOnesAreRough() {
        std::vector<RunPoint> history = {point(cascade(1), {{"texture", 100 * MiB}}),
                                         point(cascade(1), {{"texture", 120 * MiB}})};
        Forecast f = forecastRun(history, runKeyOf(cascade(1)));
        QCOMPARE(*f.stages[0].peak, 110 * MiB);
        QCOMPARE(f.stages[0].basis, std::string("same settings (2 runs)"));
        QVERIFY(!f.stages[0].rough);
        f = forecastRun(history, runKeyOf(cascade(4)));
        QVERIFY(f.stages[0].rough);
        QVERIFY(formatForecast(f).find("(rough)") != std::string::npos);
    }

    // A mean of other settings is widened, and says by how much: a quarter, and a whole more
    // for each doubling of a size past the largest the runs had.
    void aRoughForecastIsWidenedByAStatedMargin() {
        const auto character = [](double width, double height) {
            return nlohmann::json{{"pipeline", "character"}, {"load", "staged"}, {"picture_width", width},
                                  {"picture_height", height}};
        };
        const std::vector<RunPoint> history = {point(character(768, 1024), {{"preprocess", 375 * MiB}})};
        Forecast f = forecastRun(history, runKeyOf(character(768, 1024)));  // the same: bare
        QCOMPARE(*f.stages[0].peak, 375 * MiB);
        QCOMPARE(f.stages[0].margin, 0.0);
        f = forecastRun(history, runKeyOf(character(512, 512)));  // smaller: the quarter alone
        QVERIFY(f.stages[0].rough);
        QCOMPARE(f.stages[0].margin, kRoughMargin);
        QCOMPARE(*f.stages[0].peak, static_cast<std::int64_t>(std::llround(375.0 * MiB * (1 + kRoughMargin))));
        QCOMPARE(f.stages[0].basis, std::string("other settings (1 run) + 25 % margin"));
        // An 8000² picture after a 768×1024 one, which took 2.58 GiB where a bare mean said 375 MiB.
        f = forecastRun(history, runKeyOf(character(8000, 8000)));
        const double beyond = 8000.0 * 8000.0 / (768.0 * 1024.0);
        QVERIFY(qFuzzyCompare(f.stages[0].margin, kRoughMargin + std::log2(beyond)));
        QVERIFY2(*f.stages[0].peak > 2580 * MiB, std::to_string(*f.stages[0].peak).c_str());
        QVERIFY2(f.stages[0].basis.find("% margin: picture_pixels 81.4× the largest run's") != std::string::npos,
                 f.stages[0].basis.c_str());
        QCOMPARE(toJson(f)["stages"][0]["margin"].get<double>(), f.stages[0].margin);
    }

    // The app's own runs: what the app held grew run after run (192 → 393 → 463 MiB). Each run
    // counts from what its process held at its start; the forecast adds what the app holds now,
    // so a fourth identical run is forecast where it will go, not under it.
    void aRunInTheAppCountsFromWhatTheAppHoldsNow() {
        std::vector<RunPoint> history;
        for (const std::int64_t base : {192, 393, 463}) {
            RunPoint p = point(cascade(1), {{"texture", (base + 1000) * MiB}});
            QCOMPARE(p.baseline, (base + 1000) * MiB);  // the trace's first sample
            p.baseline = base * MiB;
            history.push_back(p);
        }
        Forecast f = forecastRun(history, runKeyOf(cascade(1)), 470 * MiB);
        QCOMPARE(*f.stages[0].peak, 1470 * MiB);
        QVERIFY2(f.stages[0].basis.find("what the app holds now") != std::string::npos, f.stages[0].basis.c_str());
        f = forecastRun(history, runKeyOf(cascade(1)));  // a new process: the peaks as they are
        QCOMPARE(*f.stages[0].peak, static_cast<std::int64_t>(std::llround((1192.0 + 1393.0 + 1463.0) / 3.0 * MiB)));
    }

    void stagesAStopOrACutEndedAreLeftOut() {
        const auto meta = cascade(1);
        const auto stages = std::vector<std::pair<std::string, std::int64_t>>{{"structure", 10}, {"texture", 20}};
        const auto stopped = runPointOf(
            parse(traceText(meta, stages, "{\"type\":\"event\",\"kind\":\"mark\",\"note\":\"" + stopMark("swap") +
                                              "\",\"t\":1.7}\n{\"type\":\"end\"}\n")),
            "s");
        QVERIFY(stopped);
        QCOMPARE(stopped->stagePeaks.size(), std::size_t(1));
        QCOMPARE(stopped->stagePeaks[0].first, std::string("structure"));
        const auto cut = runPointOf(parse(traceText(meta, stages, "")), "c");
        QCOMPARE(cut->stagePeaks.size(), std::size_t(1));
        // A trace that says nothing of its run cannot be used.
        QVERIFY(!runPointOf(parse(traceText(nlohmann::json::object(), stages)), "x"));
    }

    // The engine's high-water mark of a stage is its peak: exact where sampling misses a
    // stage shorter than the interval (preprocess here has no sample at all) or its top.
    void theEnginesHighWaterMarkIsTheStagesPeak() {
        nlohmann::json start = cascade(1);
        start["type"] = "start";
        const auto event = [](const char* kind, const char* name, const char* stage, std::int64_t nbytes, double t) {
            return nlohmann::json{{"type", "event"}, {"kind", kind}, {"name", name}, {"stage", stage},
                                  {"nbytes", nbytes}, {"t", t}}
                       .dump() +
                   "\n";
        };
        const std::string text = start.dump() + "\n" + event("stage", "preprocess", "preprocess", 0, 0.0) +
                                 event("mark", kStagePeakMark, "preprocess", 300 * MiB, 0.01) +
                                 event("stage", "texture", "texture", 0, 0.02) +
                                 R"({"type":"sample","t":0.5,"footprint":419430400})" "\n" +
                                 event("mark", kStagePeakMark, "texture", 450 * MiB, 0.9) + "{\"type\":\"end\"}\n";
        const auto p = runPointOf(parse(text), "hwm");
        QVERIFY(p);
        QCOMPARE(p->stagePeaks.size(), std::size_t(2));
        QCOMPARE(p->stagePeaks[0], (std::pair<std::string, std::int64_t>("preprocess", 300 * MiB)));
        QCOMPARE(p->stagePeaks[1], (std::pair<std::string, std::int64_t>("texture", 450 * MiB)));
    }

    void keysSayWhatMustMatchAndWhatIsFitted() {
        const auto character = runKeyOf({{"pipeline", "character"}, {"load", "staged"}, {"remover", "u2netp"},
                                         {"texture_size", 2048}, {"triangles", 100000}, {"picture_width", 640},
                                         {"picture_height", 480}, {"seed", 3}, {"thickness", 0.4}});
        QCOMPARE(character.choices.at("remover"), std::string("u2netp"));
        QCOMPARE(character.sizes.at("picture_pixels"), 640.0 * 480.0);
        QCOMPARE(character.sizes.count("seed"), std::size_t(0));  // the seed does not change memory
        const auto generator = runKeyOf({{"generator", "Pixal3D"}, {"texture_size", 1024},
                                         {"params", {{"steps", "25"}, {"load", "eager"}}}});
        QCOMPARE(generator.pipeline, std::string("generator:Pixal3D"));
        QCOMPARE(generator.sizes.at("param:steps"), 25.0);
        QCOMPARE(generator.choices.at("param:load"), std::string("eager"));
        // The Python stageload's start line says "mode".
        QCOMPARE(runKeyOf({{"pipeline", "1024_cascade"}, {"mode", "eager"}}).choices.at("load"), std::string("eager"));
    }

    // 1000 MiB per GiB of scale in texture: 2000 MiB forecast at scale 2.
    void theVerdictSaysFitsTightOrWillNotFit() {
        const std::vector<RunPoint> history = {point(cascade(1), {{"texture", beforeFitMargin(1000 * MiB)}}),
                                               point(cascade(3), {{"texture", beforeFitMargin(3000 * MiB)}})};
        const RunKey key = runKeyOf(cascade(2));
        const Forecast f = forecastRun(history, key);
        QCOMPARE(*f.peak(), 2000 * MiB);
        QCOMPARE(needWithMargin(2000 * MiB), 2200 * MiB);

        auto v = judgeFit(f, 3000 * MiB, {});
        QCOMPARE(v.fit, Fit::Fits);
        QCOMPARE(v.text, std::string("fits: needs about 1.95 GiB in texture, 2.93 GiB available"));
        // The peak is there, the margin is not.
        v = judgeFit(f, 2100 * MiB, {{"chrome", 900 * MiB, 12}});
        QCOMPARE(v.fit, Fit::Tight);
        QVERIFY2(v.text.find("less than the 10 % margin: close chrome (900.0 MiB)") != std::string::npos, v.text.c_str());
        // Short by 1200 MiB (with the margin): chrome alone is enough, so only chrome is named;
        // the smaller scale is offered beside it.
        const std::vector<ProgramMemory> others = {{"chrome", 1500 * MiB, 12}, {"blender", 500 * MiB, 1}};
        const auto smaller = smallerSettingThatFits(history, key, 1000 * MiB);
        QCOMPARE(smaller, std::string("choose scale 0.5 (about 500.0 MiB)"));  // scale 1 needs 1100
        v = judgeFit(f, 1000 * MiB, others, 0, smaller);
        QCOMPARE(v.fit, Fit::WillNotFit);
        QCOMPARE(v.text, std::string("will not fit: needs about 1.95 GiB in texture, 1000.0 MiB available: "
                                     "close chrome (1.46 GiB), or choose scale 0.5 (about 500.0 MiB)"));
        // Closing every program named would not be enough, and nothing smaller is known.
        v = judgeFit(f, 100 * MiB, others);
        QCOMPARE(v.fit, Fit::WillNotFit);
        QVERIFY2(v.text.find(": free about 2.05 GiB (the largest other programs: chrome (1.46 GiB) and "
                             "blender (500.0 MiB))") != std::string::npos, v.text.c_str());
        // What the running process already holds is not needed again.
        v = judgeFit(f, 1000 * MiB, {}, 1500 * MiB);
        QCOMPARE(v.fit, Fit::Fits);
        QCOMPARE(v.need, 500 * MiB);
        QCOMPARE(v.text, std::string("fits: needs about 1.95 GiB in texture (1.46 GiB of it held already), "
                                     "1000.0 MiB available"));
        // No earlier run: unknown, and said so.
        v = judgeFit(forecastRun(history, runKeyOf(cascade(2, "eager"))), 1000 * MiB, others);
        QCOMPARE(v.fit, Fit::Unknown);
        QVERIFY2(v.text.rfind("unknown: no earlier run", 0) == 0, v.text.c_str());
    }

    // A run that fits in memory but whose peak takes available memory under the guard's stop
    // level is one the guard will stop: the verdict says where, and what lets it through.
    void theVerdictKnowsTheGuardsStopLevel() {
        const std::vector<RunPoint> history = {point(cascade(1), {{"texture", beforeFitMargin(1000 * MiB)}}),
                                               point(cascade(3), {{"texture", beforeFitMargin(3000 * MiB)}})};
        const Forecast f = forecastRun(history, runKeyOf(cascade(2)));  // 2000 MiB in texture
        const std::int64_t total = 10000 * MiB;
        const auto fits = judgeFit(f, 9500 * MiB, {});
        QCOMPARE(fits.fit, Fit::Fits);
        // 7500 MiB left at the peak: 75 % of the machine, under a stop level of 80 %.
        auto v = judgeAgainstGuard(fits, total, 80.0);
        QCOMPARE(v.fit, Fit::GuardStops);
        QCOMPARE(v.text, std::string("the guard will stop it in texture: about 1.95 GiB there would leave available "
                                     "75.0% < --kill-free 80.0%: set --kill-free to 74.9% or lower, or free about 500.0 MiB"));
        // Programs that would make the room are named instead of a bare size.
        v = judgeAgainstGuard(fits, total, 80.0, {{"chrome", 600 * MiB, 9}});
        QVERIFY2(v.text.ends_with(": set --kill-free to 74.9% or lower, or close chrome (600.0 MiB)"), v.text.c_str());
        // In the panel's words.
        QVERIFY2(guardReasonInWords(v.text).find("< 80.0% (Stop when free): set Stop when free to 74.9% or lower") !=
                     std::string::npos,
                 guardReasonInWords(v.text).c_str());
        // Above the level, no stop level, or a run that does not fit anyway: as judgeFit() said.
        QCOMPARE(judgeAgainstGuard(fits, total, 75.0).fit, Fit::Fits);  // 75 % left is not under 75 %
        QCOMPARE(judgeAgainstGuard(fits, total, 0.0).text, fits.text);
        QCOMPARE(judgeAgainstGuard(fits, 0, 80.0).fit, Fit::Fits);
        const auto tight = judgeFit(f, 2100 * MiB, {});
        QCOMPARE(judgeAgainstGuard(tight, total, 10.0).fit, Fit::GuardStops);  // 100 MiB left: 1 %
        const auto short_ = judgeFit(f, 1000 * MiB, {});
        QCOMPARE(judgeAgainstGuard(short_, total, 80.0).fit, Fit::WillNotFit);
        // What the running process holds already is not taken from what is available.
        QCOMPARE(judgeAgainstGuard(judgeFit(f, 9500 * MiB, {}, 1500 * MiB), total, 80.0).fit, Fit::Fits);
        QCOMPARE(std::string(fitName(Fit::GuardStops)), std::string("the guard will stop it"));
    }

    void aSmallerSettingIsOfferedOnlyWhereTheHistoryFitsIt() {
        // Runs at one scale only: their mean says nothing about another scale (2, 1 and 0.5
        // are tried), but it is the forecast at that scale itself.
        const std::vector<RunPoint> one = {point(cascade(3), {{"texture", 100 * MiB}})};
        QCOMPARE(smallerSettingThatFits(one, runKeyOf(cascade(4)), 1000 * MiB), std::string());
        QCOMPARE(smallerSettingThatFits(one, runKeyOf(cascade(6)), 1000 * MiB),
                 std::string("choose scale 3 (about 100.0 MiB)"));
        // Texture sizes step down to the next one the pipeline has.
        const auto character = [](int texture) {
            return nlohmann::json{{"pipeline", "character"}, {"load", "staged"}, {"texture_size", texture}};
        };
        const std::vector<RunPoint> history = {point(character(1024), {{"texture", beforeFitMargin(1000 * MiB)}}),
                                               point(character(4096), {{"texture", beforeFitMargin(7000 * MiB)}})};
        QCOMPARE(smallerSettingThatFits(history, runKeyOf(character(4096)), 3000 * MiB),
                 std::string("choose texture 1024 (about 1000.0 MiB)"));  // 2048: 3000 MiB + margin
        QCOMPARE(smallerSettingThatFits(history, runKeyOf(character(4096)), 500 * MiB), std::string());
    }

    void theLargestProgramsAreSummedByNameWithoutThisOne() {
        const auto processes = listProcesses(false);
        const auto all = largestPrograms(processes, {}, 1000, 0);
        const auto self = std::find_if(processes.begin(), processes.end(),
                                       [](const ProcessInfo& p) { return p.pid == ::getpid(); });
        QVERIFY(self != processes.end());
        const auto named = [&](const std::vector<ProgramMemory>& list) {
            return std::find_if(list.begin(), list.end(), [&](const ProgramMemory& m) { return m.name == self->comm; });
        };
        QVERIFY(named(all) != all.end());
        QVERIFY(named(all)->bytes > 0 && named(all)->processes >= 1);
        QVERIFY(std::is_sorted(all.begin(), all.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; }));
        const auto others = largestPrograms(processes, selfAndAncestors(processes), 1000, 0);
        QVERIFY(named(others) == others.end());
        QVERIFY(largestPrograms(processes, {}, 2, 0).size() <= 2);
    }

    void noEarlierRunSaysSo() {
        const Forecast f = forecastRun({}, runKeyOf(cascade(1)));
        QVERIFY(f.stages.empty());
        QVERIFY(!f.peak());
        QVERIFY(formatForecast(f).find("no earlier run") != std::string::npos);
        QVERIFY(toJson(f)["peak"].is_null());
    }

    // Weights known ahead are each stage's exact part: with no earlier run, a lower bound; with
    // earlier runs, the fit is of what they held besides their own weights.
    void knownWeightsAreTheExactPart() {
        const auto generator = [](double steps, std::int64_t shapeWeights) {
            return nlohmann::json{{"generator", "g"},
                                  {"params", {{"steps", steps}}},
                                  {"stage_weights", {{"shape", shapeWeights}, {"texture", 500 * MiB}}}};
        };
        // Nothing run yet: the weights alone, said to be a lower bound.
        Forecast f = forecastRun({}, runKeyOf(generator(10, 2000 * MiB)));
        QCOMPARE(f.stages.size(), std::size_t(2));
        QCOMPARE(*f.stages[0].peak, 2000 * MiB);
        QVERIFY(f.stages[0].lowerBound && f.partial());
        QCOMPARE(*f.peak(), 2000 * MiB);
        QVERIFY(formatForecast(f).find(">= ") != std::string::npos);
        QVERIFY(toJson(f)["stages"][0]["lower_bound"].get<bool>());
        const auto first = judgeFit(f, 10000 * MiB, {});
        QVERIFY2(first.text.find("needs at least") != std::string::npos, first.text.c_str());

        // Two earlier runs with 1000 MiB of shape weights: shape held 1000 + 100·steps besides.
        std::vector<RunPoint> history = {point(generator(10, 1000 * MiB), {{"shape", 2000 * MiB}}),
                                         point(generator(20, 1000 * MiB), {{"shape", 3000 * MiB}})};
        // Now its checkpoint is 2500 MiB: the fit of what it held besides, plus the new weights.
        f = forecastRun(history, runKeyOf(generator(30, 2500 * MiB)));
        QCOMPARE(f.stages.at(0).stage, std::string("shape"));
        QCOMPARE(*f.stages[0].peak, std::llround(3000 * MiB * (1 + kFitMargin)) + 2500 * MiB);
        QVERIFY(!f.stages[0].lowerBound);
        QCOMPARE(*f.stages[0].weights, 2500 * MiB);
        // texture: no earlier run, a lower bound after the stages the history orders.
        QCOMPARE(f.stages.at(1).stage, std::string("texture"));
        QVERIFY(f.stages[1].lowerBound);
        QVERIFY(f.partial());
        // Earlier runs whose traces do not say their weights are taken to have the same files.
        auto plain = [](double steps) { return nlohmann::json{{"generator", "g"}, {"params", {{"steps", steps}}}}; };
        history = {point(plain(10), {{"shape", 2000 * MiB}}), point(plain(20), {{"shape", 3000 * MiB}})};
        f = forecastRun(history, runKeyOf(generator(30, 1000 * MiB)));
        QCOMPARE(*f.stages[0].peak, std::llround(3000 * MiB * (1 + kFitMargin)) + 1000 * MiB);
        // Never below the weights, whatever the fit says.
        history = {point(generator(10, 1000 * MiB), {{"shape", 1500 * MiB}}),
                   point(generator(20, 1000 * MiB), {{"shape", 1100 * MiB}})};
        f = forecastRun(history, runKeyOf(generator(40, 1000 * MiB)));
        QCOMPARE(*f.stages[0].peak, 1000 * MiB);
        // A negative or absurd weight in a trace is not taken.
        QVERIFY(runKeyOf({{"generator", "g"}, {"stage_weights", {{"shape", -5}, {"texture", "x"}}}}).weights.empty());
    }

    void aHistoryFolderIsReadAndForeignFilesCounted() {
        QTemporaryDir dir;
        QDir(dir.path()).mkpath("run1");
        std::ofstream(dir.filePath("run1/trace.jsonl").toStdString()) << traceText(cascade(1), {{"texture", 5}});
        std::ofstream(dir.filePath("garbage.jsonl").toStdString()) << "not a trace\nat all\n";
        std::ofstream(dir.filePath("notes.txt").toStdString()) << "ignored";
        int skipped = 0;
        const auto points = readRunPoints({dir.path().toStdString()}, &skipped);
        QCOMPARE(points.size(), std::size_t(1));
        QCOMPARE(skipped, 1);
        qputenv("XDG_DATA_HOME", "/data");
        QCOMPARE(defaultHistoryDir(), std::filesystem::path("/data/Stageload/Stageload Studio/runs"));
    }
};

}  // namespace test_forecast

STAGELOAD_APPLESS_SUITE(test_forecast, test_forecast::TestForecast)
#include "test_forecast.moc"
