// The re-execution that puts glibc's heap on huge pages: the decision, and the real thing.
#include <QProcess>
#include <QtTest>

#include <gnu/libc-version.h>

#include "guard/base/huge_page_malloc.h"
#include "guard/base/small_file.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_huge_page_malloc {

namespace {

const std::string kAlways = "[always] madvise never\n";
const std::string kMadvise = "always [madvise] never\n";
const std::string kNever = "always madvise [never]\n";

QMap<QString, QString> runProbe(const QProcessEnvironment& env, qint64* pid) {
    QProcess probe;
    probe.setProcessEnvironment(env);
    probe.start(QStringLiteral(STAGELOAD_RELAUNCH_PROBE), {});
    probe.waitForStarted();
    *pid = probe.processId();
    probe.waitForFinished(20000);
    QMap<QString, QString> out;
    for (const auto& line : QString::fromUtf8(probe.readAllStandardOutput()).split('\n')) {
        const auto eq = line.indexOf('=');
        if (eq > 0) out[line.left(eq)] = line.mid(eq + 1);
    }
    return out;
}

}  // namespace

class TestHugePageMalloc : public QObject {
    Q_OBJECT

private slots:
    void plansTheTunableOnTopOfTheUsers() {
        auto p = planHugePageRelaunch(std::nullopt, kAlways, "2.36", std::nullopt);
        QVERIFY(p);
        QCOMPARE(p->tunables, std::string("glibc.malloc.hugetlb=1"));
        QCOMPARE(p->restore, std::string("-"));
        p = planHugePageRelaunch(std::string("glibc.malloc.arena_max=2"), kMadvise, "2.35", std::nullopt);
        QVERIFY(p);
        QCOMPARE(p->tunables, std::string("glibc.malloc.arena_max=2:glibc.malloc.hugetlb=1"));
        QCOMPARE(p->restore, std::string("glibc.malloc.arena_max=2"));
        p = planHugePageRelaunch(std::string(""), kAlways, "3.0", std::string("1"));
        QVERIFY(p);
        QCOMPARE(p->tunables, std::string("glibc.malloc.hugetlb=1"));
        QCOMPARE(p->restore, std::string(""));
    }

    void leavesAloneWhatItShould() {
        // The user chose already, opted out, no THP, or a glibc without the tunable.
        QVERIFY(!planHugePageRelaunch(std::string("glibc.malloc.hugetlb=0"), kAlways, "2.36", std::nullopt));
        QVERIFY(!planHugePageRelaunch(std::nullopt, kAlways, "2.36", std::string("0")));
        QVERIFY(!planHugePageRelaunch(std::nullopt, kNever, "2.36", std::nullopt));
        QVERIFY(!planHugePageRelaunch(std::nullopt, "", "2.36", std::nullopt));
        QVERIFY(!planHugePageRelaunch(std::nullopt, kAlways, "2.34", std::nullopt));
        QVERIFY(!planHugePageRelaunch(std::nullopt, kAlways, "garbage", std::nullopt));
    }

    void reexecutesWithTheTunableAndGivesChildrenTheUsersEnvironment() {
        // What this machine should do, by the same rules (THP may be off on some machine).
        // Whether glibc then uses huge pages is glibc's part: the benchmarks show it (README).
        std::string thp;
        readSmallFile("/sys/kernel/mm/transparent_hugepage/enabled", thp);
        const bool expected =
            planHugePageRelaunch(std::nullopt, thp, gnu_get_libc_version(), std::nullopt).has_value();

        auto env = QProcessEnvironment::systemEnvironment();
        env.remove(QStringLiteral("GLIBC_TUNABLES"));
        env.remove(QStringLiteral("STAGELOAD_HUGE_PAGES"));
        qint64 pid = 0;
        auto out = runProbe(env, &pid);
        QCOMPARE(out.value(QStringLiteral("pid")).toLongLong(), pid);  // the same process
        QCOMPARE(out.value(QStringLiteral("relaunched")), expected ? QStringLiteral("1") : QStringLiteral("0"));
        QCOMPARE(out.value(QStringLiteral("now")), QStringLiteral("(unset)"));
        QCOMPARE(out.value(QStringLiteral("marker")), QStringLiteral("gone"));

        env.insert(QStringLiteral("GLIBC_TUNABLES"), QStringLiteral("glibc.malloc.arena_max=4"));
        out = runProbe(env, &pid);
        QCOMPARE(out.value(QStringLiteral("relaunched")), expected ? QStringLiteral("1") : QStringLiteral("0"));
        QCOMPARE(out.value(QStringLiteral("now")), QStringLiteral("glibc.malloc.arena_max=4"));

        env.insert(QStringLiteral("STAGELOAD_HUGE_PAGES"), QStringLiteral("0"));
        out = runProbe(env, &pid);
        QCOMPARE(out.value(QStringLiteral("relaunched")), QStringLiteral("0"));
        QCOMPARE(out.value(QStringLiteral("now")), QStringLiteral("glibc.malloc.arena_max=4"));
    }
};

}  // namespace test_huge_page_malloc

STAGELOAD_APPLESS_SUITE(test_huge_page_malloc, test_huge_page_malloc::TestHugePageMalloc)
#include "test_huge_page_malloc.moc"
