// The guard's decisions with injected readings: no processes, no clock, no /proc.
#include <QtTest>

#include "guard/base/error.h"
#include "guard/policy/guard_levels.h"
#include "guard/policy/guard_options.h"
#include "guard/policy/guard_policy.h"
#include "tests/guard/guard_readings_support.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::test;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_guard_policy {

namespace {

ProcessInfo proc(pid_t pid, const std::string& cmdline, char state = 'S') {
    ProcessInfo p;
    p.pid = pid;
    p.ppid = 1;
    p.pgid = pid;
    p.state = state;
    p.cmdline = cmdline;
    return p;
}

}  // namespace

class TestGuardPolicy : public QObject {
    Q_OBJECT

private slots:
    void startsAtOnceWhenThereIsRoom() {
        GuardPolicy policy(GuardParams{});
        const auto d = policy.admit(readingsAt(0, 50));
        QVERIFY(d.action == GuardAction::Start);
        QVERIFY(policy.state() == GuardState::Running);
    }

    void waitsForMemoryThenStarts() {
        GuardPolicy policy(GuardParams{});
        auto d = policy.admit(readingsAt(0, 30));
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY(d.changed);
        QVERIFY2(d.reason.find("available 30.0% < --wait-free 40.0%") != std::string::npos,
                 d.reason.c_str());
        QVERIFY2(d.readings.find("available 30.00 GiB of 100.00 GiB") != std::string::npos,
                 d.readings.c_str());
        d = policy.admit(readingsAt(5, 31));
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY2(!d.changed, "the same kind of reason is not logged again");
        QVERIFY(policy.state() == GuardState::Waiting);
        d = policy.admit(readingsAt(10, 40));
        QVERIFY(d.action == GuardAction::Start);
        QVERIFY(d.changed);
    }

    void swapLimitBlocksAdmission() {
        GuardParams p;
        p.swapLimit = 16 * GiB;
        GuardPolicy policy(p);
        auto d = policy.admit(readingsAt(0, 90, 10 * GiB));  // 10 + 8 > 16
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY2(d.reason.find("--swap-limit") != std::string::npos, d.reason.c_str());
        QVERIFY(policy.admit(readingsAt(5, 90, 8 * GiB)).action == GuardAction::Start);
    }

    // --need: a run whose forecast peak is 30 GiB waits until that much is available.
    void needWaitsForTheMemoryARunNeeds() {
        GuardParams p;
        p.waitFree = 0;
        p.need = 30 * GiB;
        GuardPolicy policy(p);
        auto d = policy.admit(readingsAt(0, 22));  // 22 GiB available
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY2(d.reason.find("--need 30.00 GiB") != std::string::npos, d.reason.c_str());
        QVERIFY(policy.admit(readingsAt(5, 31)).action == GuardAction::Start);
        p.need = -1;
        QVERIFY_THROWS_EXCEPTION(SettingError, validate(p));
    }

    void givesUpAfterStartTimeout() {
        GuardParams p;
        p.startTimeout = 60;
        GuardPolicy policy(p);
        QVERIFY(policy.admit(readingsAt(100, 5)).action == GuardAction::Wait);  // first reading: t0 = 100
        QVERIFY(policy.admit(readingsAt(155, 5)).action == GuardAction::Wait);
        const auto d = policy.admit(readingsAt(160, 5));
        QVERIFY(d.action == GuardAction::GiveUp);
        QVERIFY2(d.reason.find("--start-timeout") != std::string::npos, d.reason.c_str());
        QVERIFY(policy.state() == GuardState::GaveUp);
    }

    void quietForResetsWhenABusyProcessReappears() {
        GuardParams p;
        p.busy = {"ffmpeg .*-i", "^blender -b"};
        p.quietFor = 60;
        GuardPolicy policy(p);
        const auto busy =
            std::vector<ProcessInfo>{proc(50, "/usr/bin/ffmpeg -y -i in.mp4 out.webm")};
        auto d = policy.admit(readingsAt(0, 90, 0, busy));
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY2(d.reason.find("busy: pid 50") != std::string::npos, d.reason.c_str());
        d = policy.admit(readingsAt(30, 90));
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY(d.changed);  // busy -> quiet
        QVERIFY2(d.reason.find("quiet for 30s") != std::string::npos, d.reason.c_str());
        QVERIFY(policy.admit(readingsAt(55, 90, 0, busy)).action == GuardAction::Wait);  // reappears
        QVERIFY(policy.admit(readingsAt(100, 90)).action == GuardAction::Wait);  // 45 s quiet: not yet
        QVERIFY(policy.admit(readingsAt(114, 90)).action == GuardAction::Wait);
        QVERIFY(policy.admit(readingsAt(115, 90)).action == GuardAction::Start);  // 60 s after t=55
    }

    void quietPeriodCountsFromTheFirstReading() {
        GuardParams p;
        p.busy = {"ffmpeg"};
        p.quietFor = 10;
        GuardPolicy policy(p);
        QVERIFY(policy.admit(readingsAt(0, 90)).action == GuardAction::Wait);
        QVERIFY(policy.admit(readingsAt(10, 90)).action == GuardAction::Start);
    }

    void excludedAndExitedProcessesNeverCount() {
        GuardParams p;
        p.busy = {"stageload guard"};
        p.quietFor = 0;
        GuardPolicy policy(p, {77});
        const auto d = policy.admit(readingsAt(
            0, 90, 0,
            {proc(77, "stageload guard --busy x -- run"), proc(78, "stageload guard old", 'Z')}));
        QVERIFY2(d.action == GuardAction::Start, d.reason.c_str());
    }

    void busyMatchesAnywhereInTheCommandLine() {
        BusyPatterns b({"train\\.py", "^ffmpeg"});
        QVERIFY(b.match("python3 /home/a/train.py --epochs 3").has_value());
        QVERIFY(!b.match("python3 /home/a/trainXpy").has_value());
        QVERIFY(!b.match("/usr/bin/ffmpeg -i x").has_value());
        QCOMPARE(*b.match("ffmpeg -i x"), std::size_t(1));
    }

    void reasonsChangeWhenTheirKindChanges() {
        GuardParams p;
        p.busy = {"ffmpeg", "blender"};
        p.quietFor = 0;
        GuardPolicy policy(p);
        std::vector<bool> changed;
        const auto add = [&](GuardReadings r) { changed.push_back(policy.admit(r).changed); };
        add(readingsAt(0, 30));                             // memory
        add(readingsAt(5, 20));                             // memory, lower
        add(readingsAt(10, 30, 0, {proc(9, "ffmpeg a")}));  // + busy ffmpeg
        add(readingsAt(15, 30, 0, {proc(9, "ffmpeg a")}));  // same
        add(readingsAt(20, 30, 0,
               {proc(10, "ffmpeg b"), proc(11, "ffmpeg c")}));  // other ffmpegs: same kind
        add(readingsAt(25, 30, 0, {proc(12, "blender -b x")}));         // another pattern
        add(readingsAt(30, 30));                                        // memory only
        QCOMPARE(changed, (std::vector<bool>{true, false, true, false, false, true, true}));
    }

    void stopsWhenSwapGrowsBeyondTheBudget() {
        GuardPolicy policy(GuardParams{});
        policy.started(readingsAt(0, 80, 2 * GiB));
        QVERIFY(policy.check(readingsAt(5, 80, 10 * GiB)).action == GuardAction::Continue);  // +8 G: at
        const auto d = policy.check(readingsAt(10, 80, 10 * GiB + 1));
        QVERIFY(d.action == GuardAction::Stop);
        QVERIFY2(d.reason.find("--swap-budget 8.00 GiB") != std::string::npos, d.reason.c_str());
        QVERIFY2(d.readings.find("swap used 10.00 GiB") != std::string::npos, d.readings.c_str());
        QVERIFY(policy.state() == GuardState::Stopped);
    }

    void stopsAboveTheSwapLimit() {
        GuardParams p;
        p.swapLimit = 4 * GiB;
        GuardPolicy policy(p);
        policy.started(readingsAt(0, 80, 3 * GiB));
        const auto d = policy.check(readingsAt(5, 80, 5 * GiB));
        QVERIFY(d.action == GuardAction::Stop);
        QVERIFY2(d.reason.find("--swap-limit") != std::string::npos, d.reason.c_str());
    }

    void stopsAfterTwoLowReadingsInARow() {
        GuardPolicy policy(GuardParams{});
        policy.started(readingsAt(0, 80));
        auto d = policy.check(readingsAt(5, 9));
        QVERIFY(d.action == GuardAction::Continue);
        QVERIFY(d.changed);  // a warning worth logging
        QVERIFY(policy.check(readingsAt(10, 50)).action == GuardAction::Continue);  // resets
        QVERIFY(policy.check(readingsAt(15, 9)).action == GuardAction::Continue);
        d = policy.check(readingsAt(20, 8));
        QVERIFY(d.action == GuardAction::Stop);
        QVERIFY2(d.reason.find("--kill-free 10.0%") != std::string::npos, d.reason.c_str());
    }

    // --pressure-wait holds a run back while the machine thrashes; where the kernel reports no
    // pressure it holds nothing back.
    void pressureWaitHoldsARunBackWhileTheMachineThrashes() {
        GuardParams p;
        p.pressureWait = 10;
        GuardPolicy policy(p);
        QVERIFY(policy.needsPressure());
        auto r = readingsAt(0, 90);
        r.pressure = MemoryPressure{30, 25};
        auto d = policy.admit(r);
        QVERIFY(d.action == GuardAction::Wait);
        QVERIFY2(d.reason.find("memory pressure 25.0% > --pressure-wait 10.0%") != std::string::npos, d.reason.c_str());
        QVERIFY2(d.readings.find("memory pressure 25.0%") != std::string::npos, d.readings.c_str());
        r = readingsAt(5, 90);
        r.pressure = MemoryPressure{12, 10};  // at the threshold: room
        QVERIFY(policy.admit(r).action == GuardAction::Start);
        GuardPolicy noPsi(p);
        QVERIFY(noPsi.admit(readingsAt(0, 90)).action == GuardAction::Start);
        QVERIFY(!GuardPolicy(GuardParams{}).needsPressure());
    }

    // --pressure-kill 60/10s stops a run once pressure has stayed above 60 % for 10 s, with its own
    // kind of stop; a dip below resets the clock.
    void pressureKillStopsAfterItsDuration() {
        GuardParams p;
        p.pressureKill = PressureLimit{60, 10};
        GuardPolicy policy(p);
        policy.started(readingsAt(0, 80));
        const auto at = [](double t, double full) {
            auto r = readingsAt(t, 80);
            r.pressure = MemoryPressure{full, full};
            return r;
        };
        auto d = policy.check(at(1, 70));
        QVERIFY(d.action == GuardAction::Continue);
        QVERIFY2(d.reason.find("stops at 10s") != std::string::npos, d.reason.c_str());
        QVERIFY(policy.check(at(6, 65)).action == GuardAction::Continue);
        QVERIFY(policy.check(at(8, 40)).action == GuardAction::Continue);  // below: the clock resets
        QVERIFY(policy.check(at(12, 90)).action == GuardAction::Continue);
        QVERIFY(policy.check(at(21, 90)).action == GuardAction::Continue);  // 9 s above
        d = policy.check(at(22, 61));
        QVERIFY(d.action == GuardAction::Stop);
        QVERIFY(d.stop == GuardStop::Pressure);
        QVERIFY2(d.reason.find("memory pressure 61.0% > --pressure-kill 60.0% for 10s") != std::string::npos,
                 d.reason.c_str());
        // A budget breach is its own kind.
        GuardPolicy budget(GuardParams{});
        budget.started(readingsAt(0, 80));
        budget.check(readingsAt(5, 5));
        QVERIFY(budget.check(readingsAt(10, 5)).stop == GuardStop::Budget);
    }

    // --stall-kill: a group that used under 1 % of a core and printed nothing for the duration
    // stops as stalled; CPU use or output keeps it alive; without CPU times nothing is judged.
    void stallKillStopsAHungRun() {
        GuardParams p;
        p.stallKill = 60;
        const auto at = [](double t, std::optional<double> cpu, bool printed = false) {
            auto r = readingsAt(t, 80);
            r.groupCpu = cpu;
            r.printed = printed;
            return r;
        };
        GuardPolicy policy(p);
        policy.started(at(0, 10.0));
        QVERIFY(policy.check(at(30, 12.0)).action == GuardAction::Continue);   // busy: 2 s of CPU in 30 s
        QVERIFY(policy.check(at(60, 12.1)).action == GuardAction::Continue);   // 0.1 s in 30 s: idle, 30 s
        QVERIFY(policy.check(at(80, 12.1, true)).action == GuardAction::Continue);  // printed: alive
        QVERIFY(policy.check(at(130, 12.2)).action == GuardAction::Continue);  // 0.1 s in 50 s: idle, 50 s
        const auto d = policy.check(at(141, 12.2));
        QVERIFY(d.action == GuardAction::Stop);
        QVERIFY(d.stop == GuardStop::Stalled);
        QVERIFY2(d.reason.find("stalled") != std::string::npos && d.reason.find("1m01s") != std::string::npos,
                 d.reason.c_str());

        GuardPolicy unknown(p);
        unknown.started(at(0, std::nullopt));
        QVERIFY(unknown.check(at(1000, std::nullopt)).action == GuardAction::Continue);
    }

    // Every reason the policy gives, waiting, giving up and stopping, reads in the panel's words
    // once converted: its values kept, each flag replaced by its label.
    void reasonsReadInThePanelsWords() {
        std::vector<std::string> reasons;
        {
            GuardParams p;
            p.need = 40 * GiB;
            p.swapLimit = 16 * GiB;
            p.busy = {"ffmpeg"};
            p.quietFor = 60;
            p.startTimeout = 60;
            GuardPolicy policy(p);
            reasons.push_back(policy.admit(readingsAt(0, 30, 10 * GiB, {proc(5, "ffmpeg -i x")})).reason);
            reasons.push_back(policy.admit(readingsAt(30, 30, 10 * GiB)).reason);  // quiet for 30 s of 60
            reasons.push_back(policy.admit(readingsAt(60, 30, 10 * GiB)).reason);  // gives up
        }
        {
            GuardParams p;
            p.swapLimit = 12 * GiB;
            GuardPolicy budget(p), limit(p), low(p);
            budget.started(readingsAt(0, 80, 2 * GiB));
            reasons.push_back(budget.check(readingsAt(5, 80, 10 * GiB + 1)).reason);
            limit.started(readingsAt(0, 80, 11 * GiB));
            reasons.push_back(limit.check(readingsAt(5, 80, 13 * GiB)).reason);
            low.started(readingsAt(0, 80));
            reasons.push_back(low.check(readingsAt(5, 9)).reason);
            reasons.push_back(low.check(readingsAt(10, 8)).reason);
        }
        {
            GuardParams p;
            p.pressureWait = 10;
            p.pressureKill = PressureLimit{60, 10};
            p.stallKill = 60;
            GuardPolicy policy(p);
            auto r = readingsAt(0, 90);
            r.pressure = MemoryPressure{30, 25};
            reasons.push_back(policy.admit(r).reason);
            r.pressure = MemoryPressure{0, 0};
            r.groupCpu = 1.0;
            policy.admit(r);
            policy.started(r);
            r.t = 20;
            r.pressure = MemoryPressure{80, 80};
            reasons.push_back(policy.check(r).reason);
            r.t = 31;
            reasons.push_back(policy.check(r).reason);
            GuardPolicy stall(p);
            r = readingsAt(0, 90);
            r.groupCpu = 1.0;
            stall.started(r);
            r.t = 61;
            reasons.push_back(stall.check(r).reason);
        }
        std::string all;
        for (const auto& r : reasons) {
            const auto words = guardReasonInWords(r);
            QVERIFY2(words.find("--") == std::string::npos, (r + "  ->  " + words).c_str());
            all += words + "\n";
        }
        for (const char* expected :
             {"available 30.0% < 40.0% (Start when free)", "available 30.00 GiB < 40.00 GiB (Memory needed)",
              "> 16.00 GiB (Swap ceiling)", "quiet for 30s of 1m00s (Quiet for)", "no room within 1m00s (Give up after)",
              "at start + 8.00 GiB (Swap growth allowed)", "swap used 13.00 GiB > 12.00 GiB (Swap ceiling)",
              "available 9.0% < 10.0% (Stop when free)", "memory pressure 25.0% > 10.0% (Start when pressure)",
              "memory pressure 80.0% > 60.0% (Stop when pressure) for 11s", "1m00s (Stop when stalled for)"})
            QVERIFY2(all.find(expected) != std::string::npos, (std::string(expected) + " not in:\n" + all).c_str());
        // A quoted command line is the process's own.
        QCOMPARE(guardReasonInWords("busy: pid 7 'ffmpeg --need 3G' and 1 more"),
                 std::string("busy: pid 7 'ffmpeg --need 3G' and 1 more"));
        QCOMPARE(guardReasonInWords("room to start"), std::string("room to start"));
    }

    // The levels a trace keeps for its chart: what the guard ran under, and nothing from a
    // start line that holds none or holds something else.
    void levelsRoundTripThroughATracesStartLine() {
        GuardParams p;
        p.waitFree = 91;
        p.killFree = 89.5;
        nlohmann::json start = {{"type", "start"}, {kGuardLevelsKey, guardLevelsMeta(p)}};
        QVERIFY(guardLevelsOf(start) == std::optional(GuardLevels{91, 89.5}));
        QVERIFY(guardLevelsOf(nlohmann::json::object()) == std::nullopt);
        QVERIFY(guardLevelsOf(nlohmann::json()) == std::nullopt);
        QVERIFY(guardLevelsOf(nlohmann::json::parse(R"({"guard_levels": {"stop_free": 10}})")) == std::optional(GuardLevels{0, 10}));
        for (const char* bad : {R"({"guard_levels": {"start_free": 0, "stop_free": 0}})",
                                R"({"guard_levels": {"start_free": "40", "stop_free": 10}})",
                                R"({"guard_levels": {"start_free": 40, "stop_free": 110}})",
                                R"({"guard_levels": {"start_free": -1, "stop_free": 10}})",
                                R"({"guard_levels": [40, 10]})"})
            QVERIFY2(!guardLevelsOf(nlohmann::json::parse(bad)).has_value(), bad);
        QVERIFY(!guardLevels(guardOff(p)).any());  // a watched run has no levels to draw
    }

    void badParamsAreUsageErrors() {
        const auto message = [](GuardParams p) -> std::string {
            try {
                GuardPolicy policy(p);
            } catch (const UsageError& e) {
                return e.what();
            }
            return "(accepted)";
        };
        GuardParams p;
        p.waitFree = 140;
        QVERIFY(message(p).find("out of range") != std::string::npos);
        p = {};
        p.poll = 0;
        QVERIFY(message(p).find("zero poll") != std::string::npos);
        p = {};
        p.busy = {"("};
        QVERIFY(message(p).find("bad regex") != std::string::npos);
        p = {};
        p.killFree = -1;
        QVERIFY(message(p).find("out of range") != std::string::npos);
        p = {};
        p.pressureKill = PressureLimit{60, 0};
        QVERIFY(message(p).find("how long") != std::string::npos);
        p = {};
        p.pressureWait = 101;
        QVERIFY(message(p).find("out of range") != std::string::npos);
        p = {};
        p.stallKill = 0;
        QVERIFY(message(p).find("zero stall") != std::string::npos);
    }
};

}  // namespace test_guard_policy

STAGELOAD_APPLESS_SUITE(test_guard_policy, test_guard_policy::TestGuardPolicy)
#include "test_guard_policy.moc"
