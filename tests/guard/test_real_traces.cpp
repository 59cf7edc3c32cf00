// The summaries of the two real Pixal3D traces must reproduce their columns of the published
// table (tests/data/traces/table.md, GB = 2^30, 2 decimals). The expected values are read from
// the table itself, not copied into this file.
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <QtTest>

#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_real_traces {

namespace {

std::string dataDir() {
    return STAGELOAD_TRACE_DATA "/";
}

std::vector<std::string> cells(const std::string& row) {
    std::vector<std::string> out;
    std::stringstream in(row);
    std::string cell;
    std::getline(in, cell, '|');  // before the first bar
    while (std::getline(in, cell, '|')) {
        const auto b = cell.find_first_not_of(' ');
        const auto e = cell.find_last_not_of(' ');
        out.push_back(b == std::string::npos ? std::string() : cell.substr(b, e - b + 1));
    }
    if (!out.empty() && out.back().empty()) out.pop_back();
    return out;
}

/// "30.55 / 30.53" -> "30.55" (run 1 of the mode).
std::string firstRun(const std::string& cell) {
    return cell.substr(0, cell.find(" / "));
}

struct Table {
    std::map<std::string, std::vector<std::string>> modes;   // mode -> row cells
    std::map<std::string, std::vector<std::string>> stages;  // stage -> row cells
    std::vector<std::string> stageOrder;
};

Table readTable() {
    std::ifstream in(dataDir() + "table.md");
    Table t;
    std::string line;
    int section = 0;
    while (std::getline(in, line)) {
        if (line.rfind("|", 0) != 0 || line.rfind("|---", 0) == 0) continue;
        const auto c = cells(line);
        if (c.empty()) continue;
        if (c[0] == "mode" || c[0] == "stage") {  // a table's header row
            section = c[0] == "mode" ? 1 : 2;
            continue;
        }
        if (c.size() < 3) continue;
        if (section == 1) t.modes[c.at(0)] = c;
        if (section == 2) {
            t.stages[c.at(0)] = c;
            t.stageOrder.push_back(c.at(0));
        }
    }
    return t;
}

std::string fixed(double v, int decimals) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", decimals, v);
    return buf;
}

/// Compares numbers as the table writes them ("20.4" == "20.40", "0" == "0.0").
void compareNumber(const std::string& ours, const std::string& table, const std::string& what) {
    QVERIFY2(std::strtod(ours.c_str(), nullptr) == std::strtod(table.c_str(), nullptr),
             (what + ": ours " + ours + ", table " + table).c_str());
}

}  // namespace

class TestRealTraces : public QObject {
    Q_OBJECT

private:
    void checkRun(const std::string& file, const std::string& mode, int column) {
        const Table table = readTable();
        QVERIFY2(table.modes.count(mode), "table.md must have a row for the mode");
        const auto& row = table.modes.at(mode);
        QVERIFY(row.size() >= 7);
        const Trace trace = readTrace(dataDir() + file);
        const Summary s = summarize(trace);

        QCOMPARE(s.ranTo(), firstRun(row.at(2)));
        compareNumber(formatGb(s.peakFootprint), firstRun(row.at(3)), "peak footprint");
        compareNumber(formatGb(s.swapRise()), firstRun(row.at(4)), "swap rise");
        compareNumber(fixed(s.duration, 1), firstRun(row.at(5)), "time");
        compareNumber(fixed(s.loadSeconds, 1), firstRun(row.at(6)), "loading");

        int checked = 0;
        for (const auto& name : table.stageOrder) {
            const std::string expected = firstRun(table.stages.at(name).at(column));
            const StageWindow* window = nullptr;
            for (const auto& w : s.stages)
                if (w.name == name) window = &w;
            if (expected == "–") {
                QVERIFY2(!window || !window->peakFootprint,
                         (name + " has no value in the table but a peak here").c_str());
                continue;
            }
            QVERIFY2(window, (name + " is missing from the summary").c_str());
            compareNumber(formatGb(window->peakFootprint), expected, "stage " + name);
            ++checked;
        }
        QVERIFY(checked >= 5);
        for (const auto& w : s.stages)
            QVERIFY2(table.stages.count(w.name), (w.name + " is not in the table").c_str());
    }

private slots:
    void eagerRunMatchesTable() { checkRun("eager-1.trace.jsonl", "eager", 1); }
    void stagedRunMatchesTable() { checkRun("staged-1.trace.jsonl", "staged", 2); }

    void stagedTotals() {
        const Summary s = summarize(readTrace(dataDir() + "staged-1.trace.jsonl"));
        // "Eight loads ... read 13.2 GB" (the published write-up): seven models plus one reload.
        QCOMPARE(s.loads, 8);
        QCOMPARE(s.reloads, 1);
        QCOMPARE(fixed(static_cast<double>(s.loadBytes) / (1024.0 * 1024 * 1024), 1),
                 std::string("13.2"));
        QVERIFY(s.ended);
        QVERIFY(!s.truncated);
        QVERIFY(s.errors.empty());
        QVERIFY(s.outsideStage.empty());
    }

    void tableTextNamesEveryStage() {
        const Summary s = summarize(readTrace(dataDir() + "staged-1.trace.jsonl"));
        const std::string text = formatTable(s);
        for (const auto& w : s.stages)
            QVERIFY2(text.find(w.name) != std::string::npos, w.name.c_str());
        QVERIFY2(text.find("69.57") != std::string::npos, text.c_str());
        QVERIFY2(text.find("595.9") != std::string::npos, text.c_str());
    }
};

}  // namespace test_real_traces

STAGELOAD_APPLESS_SUITE(test_real_traces, test_real_traces::TestRealTraces)
#include "test_real_traces.moc"
