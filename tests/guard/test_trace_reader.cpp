// Reading traces: the Python format, half-written last lines, broken lines, missing files.
#include <fstream>
#include <sstream>

#include <QtTest>

#include "guard/trace/trace_reader.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_trace_reader {

namespace {

Trace parse(const std::string& text) {
    std::istringstream in(text);
    return parseTrace(in, "t.jsonl");
}

const char* kPython =
    "{\"type\":\"start\",\"utc\":\"2026-10-05T03:14:39+00:00\",\"interval\":0.5,\"mode\":"
    "\"staged\",\"stop_at\":null}"
    "\n"
    "{\"type\":\"sample\",\"t\":0.0,\"footprint\":291832792,\"swap_used\":12320636928,\"level\":89}"
    "\n"
    "{\"type\":\"event\",\"kind\":\"stage\",\"stage\":\"camera\",\"t\":3.795}"
    "\n"
    "{\"type\":\"event\",\"kind\":\"release\",\"name\":\"rembg_model\",\"stage\":\"camera\","
    "\"nbytes\":884791968,\"t\":3.853}"
    "\n"
    "{\"type\":\"event\",\"kind\":\"load\",\"name\":\"flow\",\"stage\":\"structure\",\"nbytes\":"
    "2715920416,\"seconds\":3.481,\"t\":12.165}"
    "\n"
    "{\"type\":\"event\",\"kind\":\"mark\",\"note\":\"stopped at texture\",\"t\":350.962}"
    "\n"
    "{\"type\":\"error\",\"t\":0.5,\"error\":\"sysctl failed\"}"
    "\n"
    "{\"type\":\"sample\",\"t\":0.511,\"footprint\":293815328,\"swap_used\":12312248320,\"level\":"
    "88,\"cuda\":12}"
    "\n"
    "{\"type\":\"end\"}"
    "\n";

}  // namespace

class TestTraceReader : public QObject {
    Q_OBJECT

private slots:
    void readsThePythonFormat() {
        const Trace t = parse(kPython);
        QCOMPARE(t.utc(), std::string("2026-10-05T03:14:39+00:00"));
        QCOMPARE(t.interval(), 0.5);
        QCOMPARE(t.start["mode"].get<std::string>(), std::string("staged"));
        QCOMPARE(t.samples.size(), std::size_t(2));
        QCOMPARE(t.samples[1].footprint, std::int64_t(293815328));
        QCOMPARE(t.samples[1].swapUsed, std::int64_t(12312248320));
        QCOMPARE(t.samples[1].level, 88.0);
        QCOMPARE(t.samples[1].extra.size(), std::size_t(1));
        QCOMPARE(t.samples[1].extra[0].first, std::string("cuda"));
        QCOMPARE(t.events.size(), std::size_t(4));
        QVERIFY(t.events[0].kind == EventKind::Stage);
        QCOMPARE(t.events[0].name, std::string("camera"));
        QCOMPARE(t.events[1].nbytes, std::int64_t(884791968));
        QCOMPARE(t.events[2].seconds, 3.481);
        QCOMPARE(t.events[3].note, std::string("stopped at texture"));
        QCOMPARE(t.errors.size(), std::size_t(1));
        QCOMPARE(t.errors[0].error, std::string("sysctl failed"));
        QVERIFY(t.ended);
        QVERIFY(!t.truncated);
    }

    void halfWrittenLastLineIsDropped() {
        const std::string text =
            std::string(kPython).substr(0, std::string(kPython).rfind("{\"type\":\"end"));
        const Trace t = parse(text + "{\"type\":\"sample\",\"t\":9.1,\"footpr");
        QVERIFY(t.truncated);
        QVERIFY(!t.ended);
        QCOMPARE(t.samples.size(), std::size_t(2));
        // trailing blank lines after the broken one do not make it "in the middle"
        QVERIFY(parse(text + "{\"type\":\"sam\n\n").truncated);
    }

    void brokenLineInTheMiddleNamesItsNumber() {
        std::string text = kPython;
        text.insert(text.find("{\"type\":\"event\""), "{\"type\":\"sample\",\"t\":1.0,\n");
        try {
            parse(text);
            QFAIL("a broken line before other lines must be an error");
        } catch (const TraceFormatError& e) {
            QVERIFY2(std::string(e.what()).find("t.jsonl: line 3") != std::string::npos, e.what());
        }
    }

    void sampleWithoutTimeIsAnError() {
        try {
            parse("{\"type\":\"sample\",\"footprint\":1}\n{\"type\":\"end\"}\n");
            QFAIL("a sample without t must be an error");
        } catch (const TraceFormatError& e) {
            QVERIFY2(std::string(e.what()).find("line 1") != std::string::npos, e.what());
            QVERIFY2(std::string(e.what()).find("\"t\"") != std::string::npos, e.what());
        }
    }

    void unknownLinesAndKindsAreSkipped() {
        const Trace t = parse(
            "{\"type\":\"gpu\",\"t\":1}\n{\"type\":\"event\",\"kind\":\"warmup\",\"t\":1}\n"
            "{\"type\":\"sample\",\"t\":1,\"footprint\":5}\n");
        QCOMPARE(t.skippedLines, 2);
        QCOMPARE(t.samples.size(), std::size_t(1));
        QVERIFY(!t.ended);
    }

    // Numbers a double or an int64 cannot hold, and negative byte counts: the line is bad, and
    // the error names it (it once escaped as an uncaught JSON exception and aborted).
    void outOfRangeNumbersAreBadLines_data() {
        QTest::addColumn<QString>("line");
        QTest::addColumn<QString>("expected");
        QTest::newRow("t 1e400") << "{\"type\":\"sample\",\"t\":1e400}" << "does not fit";
        QTest::newRow("t -1e400") << "{\"type\":\"sample\",\"t\":-1e400}" << "does not fit";
        QTest::newRow("footprint 98e6271232")
            << "{\"type\":\"sample\",\"t\":1,\"footprint\":98e6271232}" << "does not fit";
        QTest::newRow("nbytes 1e19")
            << "{\"type\":\"event\",\"kind\":\"load\",\"t\":1,\"nbytes\":1e19}"
            << "\"nbytes\" is out of range";
        QTest::newRow("nbytes 2^63")
            << "{\"type\":\"event\",\"kind\":\"load\",\"t\":1,\"nbytes\":9223372036854775808}"
            << "\"nbytes\" is out of range";
        QTest::newRow("swap 1e300")
            << "{\"type\":\"sample\",\"t\":1,\"swap_used\":1e300}" << "\"swap_used\" is out of range";
        QTest::newRow("footprint -5")
            << "{\"type\":\"sample\",\"t\":1,\"footprint\":-5}" << "\"footprint\" is out of range";
    }
    void outOfRangeNumbersAreBadLines() {
        QFETCH(QString, line);
        QFETCH(QString, expected);
        const std::string text = "{\"type\":\"sample\",\"t\":0}\n" + line.toStdString() + "\n{\"type\":\"end\"}\n";
        try {
            parse(text);
            QFAIL("an out-of-range number must be an error");
        } catch (const TraceFormatError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.startsWith("t.jsonl: line 2: "), e.what());
            QVERIFY2(message.contains(expected), e.what());
            QVERIFY2(!message.contains("json.exception"), e.what());
        }
        // The largest byte count is fine.
        const auto t = parse("{\"type\":\"sample\",\"t\":0,\"footprint\":9223372036854775807}\n");
        QCOMPARE(t.samples.at(0).footprint, INT64_MAX);
    }

    void missingFileIsAFileError() {
        try {
            readTrace("/nonexistent/dir/run.trace.jsonl");
            QFAIL("a missing file must throw");
        } catch (const FileError& e) {
            QVERIFY2(
                std::string(e.what()).find("/nonexistent/dir/run.trace.jsonl") != std::string::npos,
                e.what());
        }
    }

    void readsAFileWithCrlfLines() {
        QTemporaryDir dir;
        const std::string path = dir.filePath("x.jsonl").toStdString();
        std::ofstream(path)
            << "{\"type\":\"sample\",\"t\":0.25,\"footprint\":7}\r\n{\"type\":\"end\"}\r\n";
        const Trace t = readTrace(path);
        QCOMPARE(t.samples.size(), std::size_t(1));
        QVERIFY(t.ended);
    }
};

}  // namespace test_trace_reader

STAGELOAD_APPLESS_SUITE(test_trace_reader, test_trace_reader::TestTraceReader)
#include "test_trace_reader.moc"
