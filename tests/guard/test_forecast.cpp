// Forecasts from earlier traces: fitted across a size, matched on choices, stopped stages left
// out, what the keys are made of, and reading a history folder.
#include <fstream>
#include <sstream>

#include <QTemporaryDir>
#include <QtTest>

#include "engine/base/event.h"
#include "guard/forecast/forecast.h"
#include "guard/trace/summary.h"

using namespace stageload;

namespace {

constexpr std::int64_t MiB = 1 << 20;

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
        QCOMPARE(*f.stages[1].peak, 500 * MiB);
        QCOMPARE(f.stages[1].basis, std::string("fit over scale_gib (2 runs)"));
        QVERIFY(!f.stages[1].rough);
        QCOMPARE(*f.stages[2].peak, 50 * MiB);
        QCOMPARE(f.peakStage(), std::string("structure"));
        // Farther out the line goes on.
        QCOMPARE(*forecastRun(history, runKeyOf(cascade(6))).stages[1].peak, 1300 * MiB);
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

    void noEarlierRunSaysSo() {
        const Forecast f = forecastRun({}, runKeyOf(cascade(1)));
        QVERIFY(f.stages.empty());
        QVERIFY(!f.peak());
        QVERIFY(formatForecast(f).find("no earlier run") != std::string::npos);
        QVERIFY(toJson(f)["peak"].is_null());
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

QTEST_APPLESS_MAIN(TestForecast)
#include "test_forecast.moc"
