// The shipped presets for real generators (resources/generators/*.json), each run unchanged
// through `stageload run --generator NAME --param ...` against a stand-in of its program laid out
// as the real checkout is (tests/generators/make_standins.py: the real flags, unknown ones
// refused with the real exit code, the real lines, the mesh where the real one leaves it). Each
// must exit 0 with its mesh read back and kept, its stages in the merged trace and its progress
// seen; a missing checkout, program or weights folder is refused before anything starts (127),
// naming the path and the param; the forecast counts trellis.cpp's GGUF files before any run.
#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QTemporaryDir>
#include <QtTest>

#include "tests/file_support.h"
#include "tests/process_support.h"

namespace {

const QString kSource = STAGELOAD_SOURCE_DIR;
const QString kPicture = STAGELOAD_SOURCE_DIR "/resources/samples/knight_white.png";

using Result = testproc::ProgramResult;
using testproc::stageload;

// The names of the stage events of a trace, in order, without repeats in a row.
QStringList stagesOf(const QString& trace) {
    QStringList stages;
    for (const QByteArray& line : testfile::read(trace).split('\n')) {
        const auto o = QJsonDocument::fromJson(line).object();
        if (o.value("type").toString() == "event" && o.value("kind").toString() == "stage") {
            const QString name = o.value("stage").toString();  // a stage event's name is its stage
            if (stages.isEmpty() || stages.last() != name) stages << name;
        }
    }
    return stages;
}

QJsonObject startLine(const QString& trace) {
    return QJsonDocument::fromJson(testfile::read(trace).split('\n').value(0)).object();
}

}  // namespace

class TestCliPresets : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    QString checkouts_;
    QJsonObject presets_;  ///< make_standins.py's presets.json: each preset's params and stages

    QString checkout(const QString& name) const { return checkouts_ + "/" + name; }

    /// The params that point a preset at its stand-in, as --param flags (from presets.json).
    QStringList setUp(const QString& preset) const {
        QStringList flags;
        const auto params = presets_.value(preset).toObject().value("params").toObject();
        for (auto it = params.begin(); it != params.end(); ++it) flags << "--param" << it.key() + "=" + it.value().toString();
        return flags;
    }

    /// `stageload run` of the picture with `preset`, into NAME.glb; free memory not waited for
    /// unless `more` says --wait-free.
    Result run(const QString& preset, const QString& name, const QStringList& more = {}) {
        QStringList args{"run", kPicture, "-o", dir_.filePath(name + ".glb"), "--generator", preset, "--seed", "5"};
        if (!more.contains("--wait-free")) args << "--wait-free" << "0";
        return stageload(args + more);
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        qputenv("XDG_DATA_HOME", dir_.filePath("data").toUtf8());      // no history of the user's
        qputenv("XDG_CONFIG_HOME", dir_.filePath("config").toUtf8());  // no generators of the user's
        checkouts_ = dir_.filePath("checkouts");
        const Result made = testproc::runProgram("python3", {kSource + "/tests/generators/make_standins.py", checkouts_});
        QVERIFY2(made.code == 0, qPrintable(made.err));
        presets_ = QJsonDocument::fromJson(testfile::read(checkouts_ + "/presets.json")).object();
        // Every shipped preset has its stand-in: a new preset without one fails here.
        QStringList shipped = QDir(kSource + "/resources/generators").entryList({"*.json"}, QDir::Files);
        shipped.removeAll("stageload-character.json");
        shipped.removeAll("stageload-cascade.json");
        for (const QString& file : shipped) QVERIFY2(presets_.contains(QFileInfo(file).completeBaseName()), qPrintable(file));
    }

    void eachPresetRunsItsStandIn_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QStringList>("stages");
        QTest::addColumn<bool>("progress");
        for (auto it = presets_.begin(); it != presets_.end(); ++it) {
            QStringList stages;
            for (const auto& s : it.value().toObject().value("stages").toArray()) stages << s.toString();
            QTest::newRow(qPrintable(it.key())) << it.key() << stages << it.value().toObject().value("progress").toBool();
        }
    }

    void eachPresetRunsItsStandIn() {
        QFETCH(QString, preset);
        QFETCH(QStringList, stages);
        QFETCH(bool, progress);
        const Result r = run(preset, preset, setUp(preset));
        QVERIFY2(r.code == 0, qPrintable(r.err + r.out));
        const QString out = dir_.filePath(preset + ".glb");
        QVERIFY2(testfile::read(out).startsWith("glTF"), qPrintable(out));
        QVERIFY2(r.out.contains(" vertices, ") && r.out.contains(" triangles"), qPrintable(r.out));  // read back
        QCOMPARE(stagesOf(dir_.filePath(preset + ".run/trace.jsonl")), stages);
        if (progress) QVERIFY2(r.err.contains("[progress] "), qPrintable(r.err));
        // What ran is recorded: the expanded command line and every param's value.
        const auto start = startLine(dir_.filePath(preset + ".run/trace.jsonl"));
        QVERIFY2(start.value("command").toArray().size() > 2, qPrintable(QJsonDocument(start).toJson()));
        QVERIFY(start.value("params").toObject().size() >= 1);
    }

    // A program that picks its own output (SF3D, TripoSR: DIR/0/mesh.glb): "result" reads it back
    // and the run keeps those bytes as -o.
    void aResultThatTheProgramPicksIsKeptAsTheOutput() {
        for (const QString preset : {"sf3d", "triposr"}) {
            const QString kept = dir_.filePath(preset + "-result.glb");
            const Result r = run(preset, preset + "-result", setUp(preset));
            QVERIFY2(r.code == 0, qPrintable(r.err));
            const QByteArray left = testfile::read(dir_.filePath(preset + "-result.run/out/0/mesh.glb"));
            QVERIFY(left.startsWith("glTF"));
            QCOMPARE(testfile::read(kept), left);
        }
    }

    void aMissingCheckoutOrProgramIsRefusedBeforeStart_data() {
        QTest::addColumn<QString>("preset");
        QTest::addColumn<QStringList>("params");
        QTest::addColumn<QString>("path");
        QTest::addColumn<QString>("param");
        const QString nowhere = dir_.filePath("nowhere");
        QTest::newRow("checkout") << "pixal3d-mac" << QStringList{"--param", "checkout=" + nowhere} << nowhere
                                  << "'checkout'";
        QTest::newRow("program") << "trellis-cpp"
                                 << QStringList{"--param", "trellis_cli=" + nowhere + "/trellis-cli", "--param",
                                                "models=" + checkout("trellis.cpp/models")}
                                 << nowhere + "/trellis-cli" << "'trellis_cli'";
        QTest::newRow("weights folder") << "trellis-cpp"
                                        << QStringList{"--param", "trellis_cli=" + checkout("trellis.cpp/build/bin/trellis-cli"),
                                                       "--param", "models=" + nowhere}
                                        << nowhere << "'models'";
        QTest::newRow("python") << "sf3d"
                                << QStringList{"--param", "checkout=" + checkout("stable-fast-3d"), "--param",
                                               "python=no-such-python3"}
                                << "no-such-python3" << "'python'";
    }

    void aMissingCheckoutOrProgramIsRefusedBeforeStart() {
        QFETCH(QString, preset);
        QFETCH(QStringList, params);
        QFETCH(QString, path);
        QFETCH(QString, param);
        const QString tag = QString::fromLatin1(QTest::currentDataTag()).replace(' ', '_');
        const Result r = run(preset, "missing-" + tag, params + QStringList{"--wait-free", "100"});
        // 127 at once: not after waiting for 100 % free memory, which never comes.
        QCOMPARE(r.code, 127);
        QVERIFY2(r.err.contains(path + " ") && r.err.contains(param) && r.err.contains("is not set up"),
                 qPrintable(r.err));
        QVERIFY2(!r.err.contains("[guard] wait"), qPrintable(r.err));
        QVERIFY(!QFile::exists(dir_.filePath("missing-" + tag + ".glb")));
    }

    // Before any run, the forecast knows each stage's weights from trellis.cpp's GGUF files.
    void theForecastCountsTheGgufFilesBeforeAnyRun() {
        const Result r = stageload({"forecast", kPicture, "--generator", "trellis-cpp.json", "--param",
                                    "models=" + checkout("trellis.cpp/models"), "--no-app-history", "--json"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QMap<QString, qint64> weights;
        for (const auto& s : QJsonDocument::fromJson(r.out.toUtf8()).object().value("stages").toArray())
            weights[s.toObject().value("stage").toString()] = s.toObject().value("weights").toInteger();
        const auto size = [&](const QString& name) { return QFileInfo(checkout("trellis.cpp/models/" + name + ".gguf")).size(); };
        QCOMPARE(weights.value("preprocess"), size("birefnet"));
        QCOMPARE(weights.value("structure"), size("ss_flow") + size("ss_dec"));
        QCOMPARE(weights.value("texture"), size("tex_flow_1024") + size("tex_dec"));
        // tex_res picks the texture flow's file.
        const Result at512 = stageload({"forecast", kPicture, "--generator", "trellis-cpp", "--param",
                                        "models=" + checkout("trellis.cpp/models"), "--param", "tex_res=512",
                                        "--no-app-history", "--json"});
        QVERIFY2(at512.out.contains(QString::number(size("tex_flow_512") + size("tex_dec"))), qPrintable(at512.out));
    }

    // The Loading mode is the generator's own "load" param where it has one, and refused where not.
    void loadingIsTheGeneratorsLoadParam() {
        Result r = run("stageload-pixal3d", "eager", setUp("stageload-pixal3d") + QStringList{"--load", "eager"});
        QVERIFY2(r.code == 0, qPrintable(r.err));
        QCOMPARE(startLine(dir_.filePath("eager.run/command.trace.jsonl")).value("load").toString(), QString("eager"));
        QCOMPARE(startLine(dir_.filePath("eager.run/trace.jsonl")).value("params").toObject().value("load").toString(),
                 QString("eager"));
        r = run("trellis-cpp", "no-load", setUp("trellis-cpp") + QStringList{"--load", "eager"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("has no loading mode of its own"), qPrintable(r.err));
        // A value a param does not offer is named with the ones it does.
        r = run("trellis-cpp", "bad-res", setUp("trellis-cpp") + QStringList{"--param", "res=2048"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("'2048' is not one of '512', '1024', '1536'"), qPrintable(r.err));
    }

    // The stand-ins are as strict as the real programs: what the old templates passed fails.
    void theStandInsRefuseWhatTheRealProgramsRefuse() {
        Result r = testproc::runProgram(checkout("trellis.cpp/build/bin/trellis-cli"),
                                        {"--model", "m", "--image", kPicture, "--output", "o.glb", "--texture-size", "1024"});
        QCOMPARE(r.code, 1);
        QVERIFY2(r.err.contains("unknown argument: --model"), qPrintable(r.err));
        r = testproc::runProgram("python3", {checkout("stable-fast-3d/run.py"), kPicture, "--seed", "1"});
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("unrecognized arguments: --seed"), qPrintable(r.err));
    }

    // A bare name that is no generator says where it looked.
    void anUnknownGeneratorNameSaysWhereItLooked() {
        const Result r = run("no-such-generator", "unknown");
        QCOMPARE(r.code, 2);
        QVERIFY2(r.err.contains("no generator of that name in") && r.err.contains("generators"), qPrintable(r.err));
    }
};

QTEST_GUILESS_MAIN(TestCliPresets)
#include "test_cli_presets.moc"
