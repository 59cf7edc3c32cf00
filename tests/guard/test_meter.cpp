// The meter thread and the trace it writes, with injected readers.
#include <atomic>
#include <cmath>
#include <vector>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

#include <QtTest>

#include "guard/meter/meter.h"
#include "guard/trace/trace_reader.h"
#include "guard/trace/trace_writer.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace std::chrono_literals;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_meter {

namespace {

MemoryReaders fakeReaders(std::atomic<std::int64_t>& footprint) {
    MemoryReaders r;
    r.footprint = [&footprint] { return footprint.load(); };
    r.system = [] {
        SystemMemory m;
        m.total = 1000;
        m.available = 250;
        m.swapTotal = 100;
        m.swapFree = 40;
        return m;
    };
    return r;
}

// A meter on the fake readers, writing to `path` every `interval` seconds.
MeterParams fakeParams(const std::string& path, std::atomic<std::int64_t>& footprint,
                       double interval = 0.02) {
    MeterParams p;
    p.tracePath = path;
    p.interval = interval;
    p.readers = fakeReaders(footprint);
    return p;
}

std::vector<std::string> lines(const std::string& path) {
    std::ifstream in(path);
    std::vector<std::string> out;
    for (std::string line; std::getline(in, line);) out.push_back(line);
    return out;
}

// The trace of a 250 ms meter whose footprint reader fails on its n-th call (from 1) with the
// message `failure(n)` returns, and reads 7 bytes when it returns nullptr.
Trace traceOfFlakyReader(std::function<const char*(int)> failure) {
    QTemporaryDir dir;
    const std::string path = dir.filePath("flaky.jsonl").toStdString();
    auto calls = std::make_shared<std::atomic<int>>(0);
    MeterParams p;
    p.tracePath = path;
    p.interval = 0.02;
    p.readers.footprint = [calls, failure]() -> std::int64_t {
        if (const char* message = failure(++*calls)) throw FileError(message);
        return 7;
    };
    p.readers.system = [] { return SystemMemory{}; };
    {
        Meter meter(std::move(p));
        std::this_thread::sleep_for(250ms);
    }
    return readTrace(path);
}

}  // namespace

class TestMeter : public QObject {
    Q_OBJECT

private slots:
    void writesStartSamplesEventsAndEnd() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("run.trace.jsonl").toStdString();
        std::atomic<std::int64_t> footprint{100};
        MeterParams p = fakeParams(path, footprint);
        p.meta = {{"pipeline", "character"}, {"seed", 7}};
        std::vector<Event> marked;  // what a live chart is told
        p.onMark = [&](const Event& e) { marked.push_back(e); };
        {
            Meter meter(std::move(p));
            auto sink = meter.eventSink();
            std::this_thread::sleep_for(100ms);
            footprint = 5000;
            Event e;
            e.kind = EventKind::Stage;
            e.name = e.stage = "decode";
            e.t = 123.0;  // the emitter's clock: replaced by the meter's
            sink(e);
            std::this_thread::sleep_for(150ms);
            meter.mark("stopped at texture");
        }
        const auto text = lines(path);
        QVERIFY(text.size() > 5);
        QVERIFY2(text.front().rfind("{\"type\":\"start\",\"utc\":\"", 0) == 0,
                 text.front().c_str());
        QVERIFY(text.front().find("\"interval\":0.02,\"pipeline\":\"character\",\"seed\":7}") !=
                std::string::npos);
        QCOMPARE(text.back(), std::string("{\"type\":\"end\"}"));

        const Trace t = readTrace(path);
        QVERIFY(t.ended);
        // 250 ms at 20 ms: about 13 samples plus the final one; allow a slow machine.
        QVERIFY2(t.samples.size() >= 6 && t.samples.size() <= 20,
                 std::to_string(t.samples.size()).c_str());
        QCOMPARE(t.samples.front().t, 0.0);
        for (std::size_t i = 1; i < t.samples.size(); ++i)
            QVERIFY(t.samples[i].t >= t.samples[i - 1].t);
        QCOMPARE(t.samples.front().swapUsed, std::int64_t(60));
        QCOMPARE(t.samples.front().level, 25.0);
        QCOMPARE(t.samples.back().footprint, std::int64_t(5000));
        QCOMPARE(t.events.size(), std::size_t(2));
        QVERIFY2(t.events[0].t > 0.05 && t.events[0].t < 1.0,
                 std::to_string(t.events[0].t).c_str());
        QCOMPARE(t.events[1].note, std::string("stopped at texture"));
        QVERIFY(t.samples.back().t >= t.events[1].t);
        // Only the mark is told (engine events have their own way), with the trace's time.
        QCOMPARE(marked.size(), std::size_t(1));
        QVERIFY(marked[0].kind == EventKind::Mark);
        QCOMPARE(marked[0].note, t.events[1].note);
        QVERIFY(std::abs(marked[0].t - t.events[1].t) < 1e-3);
    }

    void eventTimesConvertFromTheEmittersEpoch() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("e.jsonl").toStdString();
        std::atomic<std::int64_t> footprint{1};
        MeterParams p = fakeParams(path, footprint, MeterParams{}.interval);
        {
            Meter meter(std::move(p));
            auto sink = meter.eventSink(meter.epoch() - 2s);  // emitter started 2 s earlier
            sink(Event{.kind = EventKind::Load,
                       .name = "unet",
                       .stage = "structure",
                       .nbytes = 42,
                       .seconds = 0.25,
                       .t = 2.5});
        }
        const Trace t = readTrace(path);
        QCOMPARE(t.events.size(), std::size_t(1));
        QCOMPARE(t.events[0].t, 0.5);
        QCOMPARE(t.events[0].nbytes, std::int64_t(42));
    }

    void traceIsReadableWhileTheRunIsStillGoing() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("live.jsonl").toStdString();
        std::atomic<std::int64_t> footprint{1};
        Meter meter(fakeParams(path, footprint));
        std::this_thread::sleep_for(120ms);
        const Trace t = readTrace(path);  // as a killed run would leave it: no end line
        QVERIFY(!t.ended);
        QVERIFY(t.samples.size() >= 3);
        meter.stop();
        QVERIFY(readTrace(path).ended);
    }

    void readerFailuresAreWrittenOncePerDistinctMessage() {
        const Trace t = traceOfFlakyReader([](int n) -> const char* {
            if (n < 4) return "cannot read /proc/self/status";
            return n < 7 ? "other failure" : nullptr;
        });
        QCOMPARE(t.errors.size(), std::size_t(2));
        QCOMPARE(t.errors[0].error, std::string("cannot read /proc/self/status"));
        QCOMPARE(t.errors[1].error, std::string("other failure"));
        QVERIFY(!t.samples.empty());
        QCOMPARE(t.samples.back().footprint, std::int64_t(7));
    }

    // A failure that ends and comes back is written again: the trace says when it returned.
    void aFailureThatComesBackIsWrittenAgain() {
        const Trace t = traceOfFlakyReader([](int n) -> const char* {
            return n < 3 || (n >= 5 && n < 7) ? "cannot read /proc/self/status" : nullptr;
        });
        QCOMPARE(t.errors.size(), std::size_t(2));
        QVERIFY(t.errors[1].t > t.errors[0].t);
    }

    void samplesKeepComingWhileAnotherThreadIsBusy() {
        std::atomic<std::int64_t> footprint{1};
        std::atomic<int> seen{0};
        MeterParams p = fakeParams({}, footprint);
        p.onSample = [&seen](const MemorySample&) { ++seen; };
        Meter meter(std::move(p));
        const auto until = std::chrono::steady_clock::now() + 300ms;
        volatile double x = 0;
        while (std::chrono::steady_clock::now() < until) x = x + 1.0;  // "inference"
        meter.stop();
        QVERIFY2(seen >= 8, std::to_string(seen.load()).c_str());
        QVERIFY(meter.latest().has_value());
    }

    void intervalOutOfRangeIsRefused() {
        MeterParams p;
        p.interval = 0.01;
        QVERIFY_THROWS_EXCEPTION(UsageError, Meter(std::move(p)));
        MeterParams q;
        q.tracePath = "/nonexistent/dir/x.jsonl";
        QVERIFY_THROWS_EXCEPTION(FileError, Meter(std::move(q)));
    }

    void eventLinesMatchThePythonFormat() {
        Event e;
        e.kind = EventKind::Release;
        e.name = "rembg_model";
        e.stage = "camera";
        e.nbytes = 884791968;
        QCOMPARE(eventLine(e, 3.8534).dump(),
                 std::string("{\"type\":\"event\",\"kind\":\"release\",\"name\":\"rembg_model\","
                             "\"stage\":\"camera\",\"nbytes\":884791968,\"t\":3.853}"));
        Event s;
        s.kind = EventKind::Stage;
        s.name = s.stage = "setup";
        QCOMPARE(
            eventLine(s, 0.001).dump(),
            std::string("{\"type\":\"event\",\"kind\":\"stage\",\"stage\":\"setup\",\"t\":0.001}"));
        const Event l{.kind = EventKind::Load,
                      .name = "flow",
                      .stage = "structure",
                      .nbytes = 10,
                      .seconds = 3.4812,
                      .note = "outside_stage"};
        QCOMPARE(
            eventLine(l, 12.165).dump(),
            std::string(
                "{\"type\":\"event\",\"kind\":\"load\",\"name\":\"flow\",\"stage\":\"structure\","
                "\"nbytes\":10,\"seconds\":3.481,\"note\":\"outside_stage\",\"t\":12.165}"));
    }

    void realReadersGiveSensibleValues() {
        const MemorySample s = processReaders().read(0.0);
        QVERIFY(s.footprint > 1 << 20);
        QVERIFY(s.level > 0.0 && s.level <= 100.0);
        QVERIFY(s.available > 0);
        QVERIFY(s.swapUsed >= 0);
    }
};

}  // namespace test_meter

STAGELOAD_APPLESS_SUITE(test_meter, test_meter::TestMeter)
#include "test_meter.moc"
