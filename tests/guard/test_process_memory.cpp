#include <sys/mman.h>

#include <cstring>

#include <QtTest>

#include <vector>

#include "guard/base/error.h"
#include "guard/memory/process_memory.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_process_memory {

class TestProcessMemory : public QObject {
    Q_OBJECT

private slots:
    void parsesStatusText() {
        const char* text =
            "Name:\tcat\nVmPeak:\t  9000 kB\nVmHWM:\t    2048 kB\nVmRSS:\t    1024 kB\n"
            "RssAnon:\t  512 kB\nVmSwap:\t      16 kB\nThreads:\t1\n";
        const auto m = parseProcStatus(text);
        QCOMPARE(m.rss, std::int64_t(1024) * 1024);
        QCOMPARE(m.peakRss, std::int64_t(2048) * 1024);
        QCOMPARE(m.swap, std::int64_t(16) * 1024);
    }

    void missingFieldsStayZero() {
        const auto m = parseProcStatus("Name:\tkthreadd\nState:\tS (sleeping)\n");
        QCOMPARE(m.rss, std::int64_t(0));
        QCOMPARE(m.peakRss, std::int64_t(0));
    }

    void readsThisProcessAndSeesGrowth() {
        const auto before = readProcessMemory();
        QVERIFY(before.rss > 0);
        QVERIFY(before.peakRss >= before.rss);
        std::vector<char> block(64 << 20, 1);  // touched: resident
        const auto after = readProcessMemory();
        QVERIFY2(after.rss - before.rss > (48 << 20), "64 MiB of touched memory must show in VmRSS");
        QCOMPARE(block[12345], char(1));
    }

    void resetPeakBringsHighWaterMarkDown() {
        {
            // Straight from the kernel: a malloc'd block may stay resident after free (an
            // allocator's cache, the sanitizers' quarantine), an unmapped one cannot.
            constexpr std::size_t kBytes = 96 << 20;
            void* block = ::mmap(nullptr, kBytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
            QVERIFY(block != MAP_FAILED);
            std::memset(block, 1, kBytes);
            QCOMPARE(static_cast<char*>(block)[1], char(1));
            ::munmap(block, kBytes);
        }
        const auto high = readProcessMemory().peakRss;
        QVERIFY(resetPeakRss());
        const auto now = readProcessMemory();
        QVERIFY2(now.peakRss < high, "VmHWM must drop to the current RSS after a reset");
        QVERIFY(now.peakRss >= now.rss - (1 << 20));
    }

    void unknownProcessIsAFileError() {
        QVERIFY_THROWS_EXCEPTION(FileError, readProcessMemory(999999999));
    }
};

}  // namespace test_process_memory

STAGELOAD_APPLESS_SUITE(test_process_memory, test_process_memory::TestProcessMemory)
#include "test_process_memory.moc"
