// `stageload plot` as a user runs it: two real traces make a picture of the asked size, a
// missing trace exits 1 naming it, a bad output type or no traces exit 2.
#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/file_support.h"
#include "tests/process_support.h"
#include "tests/suite_program.h"

// The suite's own names: its program compiles it in one source with other suites.
namespace test_plot_command {

namespace {

using Result = testproc::ProgramResult;

// Without a display: the command must pick the offscreen platform by itself.
Result stageload(const QStringList& args) {
    QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
    env.remove("QT_QPA_PLATFORM");
    env.remove("DISPLAY");
    return testproc::stageload(args, 60000, env);
}

QString trace(const char* name) {
    return QStringLiteral(STAGELOAD_SOURCE_DIR "/tests/data/traces/") + name;
}

}  // namespace

class TestPlotCommand : public QObject {
    Q_OBJECT

private slots:
    void twoTracesMakeAPictureOfTheAskedSize() {
        QTemporaryDir dir;
        const QString out = dir.filePath("chart.png");
        const Result r =
            stageload({"plot", trace("staged-1.trace.jsonl"), trace("eager-1.trace.jsonl"), "-o",
                       out, "--width", "1200", "--height", "600", "--title", "staged vs eager"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        const QImage image(out);
        QVERIFY2(!image.isNull(), qPrintable(out));
        QCOMPARE(image.size(), QSize(1200, 600));
        QVERIFY(r.out.contains("chart.png"));
    }

    void svgAndPdfByExtension() {
        QTemporaryDir dir;
        for (const char* name : {"chart.svg", "chart.pdf"}) {
            const QString out = dir.filePath(name);
            const Result r = stageload({"plot", trace("staged-1.trace.jsonl"), "-o", out});
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const QByteArray head = testfile::read(out).left(64);
            QVERIFY2(head.contains("<?xml") || head.startsWith("%PDF-"), head.constData());
        }
    }

    void missingTraceExits1NamingIt() {
        QTemporaryDir dir;
        const QString missing = dir.filePath("no-such.trace.jsonl");
        const Result r = stageload({"plot", missing, "-o", dir.filePath("chart.png")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("no-such.trace.jsonl"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("chart.png")));
    }

    void brokenTraceExits1NamingFileAndLine() {
        QTemporaryDir dir;
        const QString broken = dir.filePath("broken.jsonl");
        testfile::write(broken,
                        "{\"type\":\"start\",\"interval\":0.5}\n{\"type\":\"sample\",\"t\":\"x\"}\n"
                        "{\"type\":\"end\"}\n");
        const Result r = stageload({"plot", broken, "-o", dir.filePath("chart.png")});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("broken.jsonl") && r.err.contains("line 2"), qPrintable(r.err));
    }

    void truncatedLastLineIsPlottedWithANote() {
        QTemporaryDir dir;
        QFile in(trace("staged-1.trace.jsonl"));
        QVERIFY(in.open(QIODevice::ReadOnly));
        QByteArray text = in.readAll();
        text.chop(text.size() - text.lastIndexOf("{\"type\":\"sample\"") - 20);  // killed mid-line
        const QString cut = dir.filePath("cut.jsonl");
        QFile out(cut);
        QVERIFY(out.open(QIODevice::WriteOnly));
        out.write(text);
        out.close();
        const Result r = stageload({"plot", cut, "-o", dir.filePath("cut.png")});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QVERIFY2(r.err.contains("half-written"), qPrintable(r.err));
        QVERIFY(!QImage(dir.filePath("cut.png")).isNull());
    }

    void unknownPictureTypeExits2() {
        QTemporaryDir dir;
        const Result r =
            stageload({"plot", trace("staged-1.trace.jsonl"), "-o", dir.filePath("chart.xyz")});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains(".png"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir.filePath("chart.xyz")));
    }

    void noTracesExits2() {
        QTemporaryDir dir;
        const Result r = stageload({"plot", "-o", dir.filePath("chart.png")});
        QCOMPARE(r.code, 2);
        QVERIFY(!r.err.isEmpty());
    }
};

}  // namespace test_plot_command

STAGELOAD_APPLESS_SUITE(test_plot_command, test_plot_command::TestPlotCommand)
#include "test_plot_command.moc"
