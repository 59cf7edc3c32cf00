// Sizes, durations and percentages as the guard's flags take them.
#include <QtTest>

#include "guard/base/units.h"
#include "guard/base/utc.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_units {

namespace {
constexpr std::int64_t GiB = std::int64_t(1) << 30;
constexpr std::int64_t MiB = std::int64_t(1) << 20;

template <class Fn>
std::string usageMessage(Fn&& fn) {
    try {
        fn();
    } catch (const UsageError& e) {
        return e.what();
    }
    return "(no UsageError)";
}
}  // namespace

class TestUnits : public QObject {
    Q_OBJECT

private slots:
    void sizes() {
        QCOMPARE(parseSize("8G"), 8 * GiB);
        QCOMPARE(parseSize("512M"), 512 * MiB);
        QCOMPARE(parseSize("1.5g"), 3 * GiB / 2);
        QCOMPARE(parseSize("2GiB"), 2 * GiB);
        QCOMPARE(parseSize("2gb"), 2 * GiB);
        QCOMPARE(parseSize("100"), std::int64_t(100));
        QCOMPARE(parseSize("4k"), std::int64_t(4096));
        QCOMPARE(parseSize("1T"), 1024 * GiB);
        QCOMPARE(parseSize("0"), std::int64_t(0));
    }

    void badSizes() {
        for (const char* bad : {"8X", "", "G", "-1G", "1.2.3G", "8 G B", "1e3", "abc"}) {
            const std::string msg = usageMessage([&] { parseSize(bad); });
            QVERIFY2(msg.find("not a size") != std::string::npos,
                     (std::string(bad) + ": " + msg).c_str());
        }
        QVERIFY(usageMessage([] { parseSize("8X"); }).find("'8X'") != std::string::npos);
    }

    void durations() {
        QCOMPARE(parseDuration("30m"), 1800.0);
        QCOMPARE(parseDuration("90s"), 90.0);
        QCOMPARE(parseDuration("2h"), 7200.0);
        QCOMPARE(parseDuration("250ms"), 0.25);
        QCOMPARE(parseDuration("5"), 5.0);
        QCOMPARE(parseDuration("1.5m"), 90.0);
        QCOMPARE(parseDuration("0"), 0.0);
    }

    void badDurations() {
        for (const char* bad : {"5x", "", "m", "-5s", "5 minutes", "1d"}) {
            const std::string msg = usageMessage([&] { parseDuration(bad); });
            QVERIFY2(msg.find("not a duration") != std::string::npos,
                     (std::string(bad) + ": " + msg).c_str());
        }
    }

    void percents() {
        QCOMPARE(parsePercent("40", "--wait-free"), 40.0);
        QCOMPARE(parsePercent("12.5%", "--kill-free"), 12.5);
        QCOMPARE(parsePercent("0", "--kill-free"), 0.0);
        QCOMPARE(parsePercent("100", "--kill-free"), 100.0);
        const std::string high = usageMessage([] { parsePercent("140", "--wait-free"); });
        QVERIFY2(high.find("--wait-free") != std::string::npos &&
                     high.find("out of range") != std::string::npos,
                 high.c_str());
        QVERIFY(usageMessage([] { parsePercent("-5", "--kill-free"); }).find("out of range") !=
                std::string::npos);
        QVERIFY(usageMessage([] {
                    parsePercent("lots", "--kill-free");
                }).find("not a percentage") != std::string::npos);
    }

    void formatting() {
        QCOMPARE(formatBytes(0), std::string("0 B"));
        QCOMPARE(formatBytes(3 * GiB / 2), std::string("1.50 GiB"));
        QCOMPARE(formatBytes(512 * MiB), std::string("512.0 MiB"));
        // The decimal family: the same bytes in powers of 1000, one family per text.
        QCOMPARE(formatBytes(3 * GiB / 2, ByteUnits::Decimal), std::string("1.61 GB"));
        QCOMPARE(formatBytes(512 * MiB, ByteUnits::Decimal), std::string("536.9 MB"));
        QCOMPARE(formatBytes(999'999, ByteUnits::Decimal), std::string("1000.0 kB"));
        QCOMPARE(formatBytes(-2'000'000'000, ByteUnits::Decimal), std::string("-2.00 GB"));
        QCOMPARE(formatBytes(999, ByteUnits::Decimal), std::string("999 B"));
        QCOMPARE(formatBytes(3 * GiB / 2, ByteUnits::Binary), formatBytes(3 * GiB / 2));
        QCOMPARE(largeUnit(ByteUnits::Decimal).bytes, 1e9);
        QCOMPARE(std::string(largeUnit(ByteUnits::Binary).symbol), std::string("GiB"));
        QCOMPARE(formatDuration(0.25), std::string("250ms"));
        QCOMPARE(formatDuration(90), std::string("1m30s"));
    }

    void utcStamps() {
        const auto when =
            std::chrono::system_clock::time_point(std::chrono::milliseconds(1790997279123));
        QCOMPARE(utcTimestamp(when), std::string("2026-10-03T03:14:39+00:00"));
        QCOMPARE(utcTimestamp(when, true), std::string("2026-10-03T03:14:39.123Z"));
    }
};

}  // namespace test_units

STAGELOAD_APPLESS_SUITE(test_units, test_units::TestUnits)
#include "test_units.moc"
