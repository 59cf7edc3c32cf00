// Summary rules on small hand-made traces, including the golden case.
#include <sstream>

#include <QtTest>

#include "guard/trace/summary.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_summary {

namespace {

MemorySample sample(double t, std::int64_t footprint, std::int64_t swap = 0, double level = 50) {
    MemorySample s;
    s.t = t;
    s.footprint = footprint;
    s.swapUsed = swap;
    s.level = level;
    return s;
}

Event stage(const std::string& name, double t) {
    Event e;
    e.kind = EventKind::Stage;
    e.name = name;
    e.stage = name;
    e.t = t;
    return e;
}

Event model(EventKind kind, const std::string& name, double t, std::int64_t nbytes = 0,
            double seconds = 0, const std::string& note = {}) {
    return Event{.kind = kind, .name = name, .nbytes = nbytes, .seconds = seconds, .note = note, .t = t};
}

const StageWindow& window(const Summary& s, const std::string& name) {
    for (const auto& w : s.stages)
        if (w.name == name) return w;
    throw std::runtime_error("no window " + name);
}

}  // namespace

class TestSummary : public QObject {
    Q_OBJECT

private slots:
    void goldenCase() {
        Trace t;
        t.samples = {sample(0.0, 100), sample(1.0, 300), sample(3.0, 250), sample(4.0, 120)};
        t.events = {stage("structure", 0.1), stage("texture", 2.0),
                    model(EventKind::Release, "m", 2.1)};
        const Summary s = summarize(t);
        QCOMPARE(s.stages.size(), std::size_t(3));
        QCOMPARE(s.stages[0].name, std::string("setup"));
        QCOMPARE(s.stages[0].seconds, 0.1);
        QCOMPARE(*s.stages[0].peakFootprint, std::int64_t(100));
        QCOMPARE(s.stages[1].name, std::string("structure"));
        QCOMPARE(s.stages[1].seconds, 2.0);
        QCOMPARE(*s.stages[1].peakFootprint, std::int64_t(300));
        QCOMPARE(s.stages[2].name, std::string("texture"));
        QVERIFY(std::fabs(s.stages[2].seconds - 1.9) < 1e-9);
        QCOMPARE(*s.stages[2].peakFootprint, std::int64_t(250));
        QCOMPARE(s.duration, 4.0);
    }

    void eachWindowCountsItsLoadsReleasesWeightsAndHighWater() {
        Trace t;
        t.samples = {sample(0.0, 100), sample(1.0, 300), sample(3.0, 250), sample(4.0, 120)};
        Event peak = model(EventKind::Mark, kStagePeakMark, 1.9, 420);
        peak.stage = "structure";
        t.events = {model(EventKind::Mark, "vae", 0.05, 7, 0, "prebuilt"),
                    stage("structure", 0.1),
                    model(EventKind::Load, "unet", 0.2, 1000),
                    model(EventKind::Load, "clip", 0.3, 50),
                    peak,
                    stage("texture", 2.0),
                    model(EventKind::Release, "unet", 2.1, 1000),  // freed by texture's start
                    model(EventKind::Reload, "unet", 2.5, 1000),
                    model(EventKind::Release, "clip", 3.5, 50)};
        const Summary s = summarize(t);
        const auto& setup = window(s, "setup");
        QCOMPARE(setup.weightBytes, std::int64_t(7));  // the prebuilt module
        QCOMPARE(setup.loads, 0);
        const auto& structure = window(s, "structure");
        QCOMPARE(structure.loads, 2);
        QCOMPARE(structure.releases, 0);
        QCOMPARE(structure.weightBytes, std::int64_t(1057));
        QCOMPARE(structure.highWater.value_or(-1), std::int64_t(420));  // above the sampled 300
        QCOMPARE(structure.peakFootprint.value_or(-1), std::int64_t(300));
        const auto& texture = window(s, "texture");
        QCOMPARE(texture.loads, 1);     // the reload
        QCOMPARE(texture.releases, 2);  // the one its start triggered, and clip's
        QCOMPARE(texture.weightBytes, std::int64_t(1007));
        QVERIFY(!texture.highWater);  // no mark: nothing claimed
        QCOMPARE(s.highWater.value_or(-1), std::int64_t(420));  // the highest of the stages'
        // The table shows the high-water column only because one window has it, in MB here.
        const auto table = formatTable(s);
        QVERIFY2(table.find("high-water") != std::string::npos, table.c_str());
        QVERIFY2(table.find("peak (MiB)") != std::string::npos, table.c_str());
        const auto json = toJson(s);
        QCOMPARE(json["stages"][1]["high_water"].get<std::int64_t>(), std::int64_t(420));
        QCOMPARE(json["stages"][2]["releases"].get<int>(), 2);
        t.events.erase(t.events.begin() + 4);
        QVERIFY(!summarize(t).highWater);
        QVERIFY(formatTable(summarize(t)).find("high-water") == std::string::npos);
    }

    void theTableIsInGbOnceAnythingReachesAGb() {
        Trace t;
        t.samples = {sample(0.0, 100), sample(1.0, std::int64_t(3) << 30)};
        t.events = {stage("texture", 0.5)};
        const auto table = formatTable(summarize(t));
        QVERIFY2(table.find("peak (GiB)") != std::string::npos, table.c_str());
        QVERIFY2(table.find("3.00") != std::string::npos, table.c_str());
    }

    void withoutTheReleaseTheWindowStartsAtTheStageEvent() {
        // The same samples without the release: texture opens at 2.0, so the sample at 1.0
        // stays in structure, but a sample at 2.05 would belong to texture.
        Trace t;
        t.samples = {sample(0.0, 100), sample(1.0, 300), sample(2.05, 900), sample(4.0, 120)};
        t.events = {stage("structure", 0.1), stage("texture", 2.0)};
        QCOMPARE(*window(summarize(t), "texture").peakFootprint, std::int64_t(900));
        // With releases right after the stage event, the gap sample stays with structure.
        t.events.push_back(model(EventKind::Release, "a", 2.04));
        t.events.push_back(model(EventKind::Release, "b", 2.1));
        const Summary s = summarize(t);
        QCOMPARE(*window(s, "structure").peakFootprint, std::int64_t(900));
        QCOMPARE(*window(s, "texture").peakFootprint, std::int64_t(120));
        QCOMPARE(window(s, "texture").start, 2.1);
    }

    void onlyReleasesDirectlyAfterTheStageCount() {
        Trace t;
        t.samples = {sample(0.0, 1), sample(5.0, 2)};
        t.events = {stage("a", 1.0), model(EventKind::Load, "x", 1.5),
                    model(EventKind::Release, "y", 3.0)};
        QCOMPARE(window(summarize(t), "a").start, 1.0);
    }

    void consecutiveSameStagesMergeAndSetupIsImplicit() {
        Trace t;
        t.samples = {sample(0.0, 5), sample(1.0, 7), sample(2.0, 9), sample(3.0, 4)};
        t.events = {stage("setup", 0.001), stage("a", 0.5), stage("a", 1.5), stage("b", 2.5)};
        const Summary s = summarize(t);
        QCOMPARE(s.stages.size(), std::size_t(3));
        QCOMPARE(window(s, "setup").start, 0.0);
        QCOMPARE(window(s, "a").start, 0.5);
        QCOMPARE(window(s, "a").seconds, 2.0);
        QCOMPARE(*window(s, "a").peakFootprint, std::int64_t(9));
        QCOMPARE(window(s, "b").samples, 1);  // the last sample belongs to the last window
    }

    void aFirstStageAtZeroLeavesNoSetupWindow() {
        Trace t;
        t.samples = {sample(0.0, 5), sample(1.0, 9)};
        t.events = {stage("decode", 0.0)};
        const Summary s = summarize(t);
        QCOMPARE(s.stages.size(), std::size_t(1));
        QCOMPARE(s.stages[0].name, std::string("decode"));
        QCOMPARE(*s.stages[0].peakFootprint, std::int64_t(9));
    }

    void windowWithoutSamplesHasNoPeak() {
        Trace t;
        t.samples = {sample(0.0, 5), sample(2.0, 9)};
        t.events = {stage("quick", 1.0), stage("slow", 1.1)};
        const Summary s = summarize(t);
        QVERIFY(!window(s, "quick").peakFootprint);
        QCOMPARE(formatGb(window(s, "quick").peakFootprint), std::string("–"));
    }

    void totals() {
        Trace t;
        t.samples = {sample(0.0, 10, 1000, 80), sample(1.0, 30, 5000, 20),
                     sample(2.0, 20, 3000, 60)};
        t.events = {model(EventKind::Load, "a", 0.2, 100, 1.25),
                    model(EventKind::Reload, "a", 0.4, 100, 0.5, "outside_stage"),
                    model(EventKind::Load, "b", 0.5, 7, 0.25, "outside_stage"),
                    model(EventKind::Load, "a", 0.6, 100, 0.25, "outside_stage"),
                    model(EventKind::Release, "a", 0.7, 100)};
        t.events.push_back(model(EventKind::Mark, "", 1.5, 0, 0, "stopped at texture"));
        t.errors = {{0.5, "boom"}};
        const Summary s = summarize(t);
        QCOMPARE(*s.peakFootprint, std::int64_t(30));
        QCOMPARE(*s.swapStart, std::int64_t(1000));
        QCOMPARE(*s.swapPeak, std::int64_t(5000));
        QCOMPARE(*s.swapEnd, std::int64_t(3000));
        QCOMPARE(*s.swapRise(), std::int64_t(4000));
        QCOMPARE(*s.minLevel, 20.0);
        QCOMPARE(s.loads, 4);
        QCOMPARE(s.reloads, 1);
        QCOMPARE(s.loadBytes, std::int64_t(307));
        QCOMPARE(s.loadSeconds, 2.25);
        QCOMPARE(s.releases, 1);
        QCOMPARE(s.outsideStage, (std::vector<std::string>{"a", "b"}));
        QCOMPARE(s.errors.size(), std::size_t(1));
        QCOMPARE(s.ranTo(), std::string("texture (stopped)"));
        const auto j = toJson(s);
        QCOMPARE(j["loads"]["count"].get<int>(), 4);
        QCOMPARE(j["swap"]["rise"].get<std::int64_t>(), std::int64_t(4000));
        QCOMPARE(j["stages"].size(), std::size_t(1));
    }

    // Totals of byte counts near the int64 limit stay at the limit instead of overflowing.
    void hugeTotalsSaturate() {
        Trace t;
        t.samples = {sample(0.0, 1, 0), sample(1.0, INT64_MAX, INT64_MAX)};
        t.events = {model(EventKind::Load, "a", 0.1, INT64_MAX), model(EventKind::Load, "b", 0.2, INT64_MAX),
                    model(EventKind::Release, "a", 0.3, INT64_MAX),
                    model(EventKind::Release, "b", 0.4, INT64_MAX)};
        const Summary s = summarize(t);
        QCOMPARE(s.loadBytes, INT64_MAX);
        QCOMPARE(s.releaseBytes, INT64_MAX);
        QCOMPARE(*s.swapRise(), INT64_MAX);
        QVERIFY(!formatTable(s).empty());
    }

    void guardStopsAndCancelsSayWhereAndWhy() {
        Trace t;
        t.samples = {sample(0.0, 1), sample(2.0, 2), sample(4.0, 3)};
        t.events = {stage("structure", 1.0), stage("texture", 3.0),
                    model(EventKind::Mark, "", 3.5, 0, 0, stopMark("swap used 9 GB rose 6 GB")),
                    model(EventKind::Mark, "", 3.6, 0, 0, "guard: exit: stopped by the guard (exit 3)")};
        Summary s = summarize(t);
        QVERIFY(s.stoppedByGuard());
        QCOMPARE(s.stoppedAt, std::string("texture"));
        QCOMPARE(s.ranTo(), std::string("texture (stopped by the guard: swap used 9 GB rose 6 GB)"));
        QCOMPARE(toJson(s)["stopped_by_guard"].get<bool>(), true);
        t.events[2].note = stopMark(kCancelledReason);
        t.events[2].t = 1.5;
        s = summarize(t);
        QVERIFY(!s.stoppedByGuard());
        QCOMPARE(s.ranTo(), std::string("structure (cancelled)"));
        t.events.resize(2);
        t.ended = true;
        QCOMPARE(summarize(t).ranTo(), std::string("end"));
    }

    void ranToWithoutEndLine() {
        Trace t;
        t.samples = {sample(0.0, 1)};
        t.events = {stage("decode", 0.0)};
        QCOMPARE(summarize(t).ranTo(), std::string("decode (no end line)"));
        t.ended = true;
        QCOMPARE(summarize(t).ranTo(), std::string("end"));
    }

    void emptyTraceSummarises() {
        const Summary s = summarize(Trace{});
        QVERIFY(!s.peakFootprint);
        QCOMPARE(s.stages.size(), std::size_t(1));
        QVERIFY(formatTable(s).find("setup") != std::string::npos);
    }

    void gbRoundingIsTwoDecimalsOfBinaryGigabytes() {
        QCOMPARE(roundedGb(std::int64_t(1) << 30), 1.0);
        QCOMPARE(roundedGb(3 * (std::int64_t(1) << 29)), 1.5);
        QCOMPARE(formatGb(std::int64_t(32801400000)), std::string("30.55"));
        QCOMPARE(formatGb(std::int64_t(0)), std::string("0.00"));
    }
};

}  // namespace test_summary

STAGELOAD_APPLESS_SUITE(test_summary, test_summary::TestSummary)
#include "test_summary.moc"
