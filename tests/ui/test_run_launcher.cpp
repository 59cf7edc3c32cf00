// The launcher between the settings and a run, without the window: a generator's params (saved,
// a script's, Loading as its "load" param), what keeps it from starting, the history record and
// request a Generate makes, and the record once the run has ended.
#include <algorithm>

#include <QDir>
#include <QFile>
#include <QJsonArray>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QtTest>

#include "ui/studio/run_launcher.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::studio;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_run_launcher {

namespace {

// A generator with a folder it requires, a choice, and a "load" param.
GeneratorDef generator(const QString& dir) {
    const auto json = QStringLiteral(R"({
      "name": "Tool",
      "command": ["{checkout}/run", "{input}", "-o", "{output}", "--seed", "{seed}", "--mode", "{mode}", "--load", "{load}"],
      "format": "obj",
      "params": {
        "checkout": {"default": "%1/missing", "help": "the checkout"},
        "mode": {"default": "fast", "choices": ["fast", "best"]},
        "load": {"default": "staged", "choices": ["staged", "eager"]}
      },
      "requires": [{"path": "{checkout}", "is": "folder", "what": "the checkout"}]
    })").arg(dir);
    return parseGeneratorDef(json.toStdString(), (dir + "/tool.json").toStdString());
}

QString key(const GeneratorDef& g) { return StudioSettings::generatorKey(QString::fromStdString(g.source.string())); }

}  // namespace

class TestRunLauncher : public QObject {
    Q_OBJECT

private slots:
    void initTestCase() { QStandardPaths::setTestModeEnabled(true); }

    void aGeneratorsParamsAreSavedThenTheScriptsThenLoading() {
        QTemporaryDir tmp;
        const auto g = generator(tmp.path());
        StudioSettings s;
        s.run.mode = LoadMode::Eager;
        s.generatorParams[key(g)] = {{"mode", "best"}, {"gone", "a param the file no longer has"}};
        auto p = generatorRunParams(s, g);
        QCOMPARE(p.at("mode"), std::string("best"));
        QVERIFY(!p.count("gone"));
        QCOMPARE(p.at("load"), std::string("eager"));  // Loading is its "load" param
        p = generatorRunParams(s, g, {{"mode", "fast"}, {"load", "staged"}});
        QCOMPARE(p.at("mode"), std::string("fast"));
        QCOMPARE(p.at("load"), std::string("staged"));  // the script's word wins
    }

    void whatIsMissingNamesThePathAndTheParam() {
        QTemporaryDir tmp;
        const auto g = generator(tmp.path());
        const QStringList missing = missingSetup(g, std::map<std::string, std::string>{});
        QCOMPARE(missing.size(), qsizetype(1));
        QVERIFY2(missing[0].contains(tmp.path() + "/missing") && missing[0].contains("checkout"), qPrintable(missing[0]));
        QVERIFY(missingSetup(g, std::map<std::string, std::string>{{"checkout", tmp.path().toStdString()}}).isEmpty());
        // A saved value the definition refuses is said, not thrown.
        const QStringList refused = missingSetup(g, QMap<QString, QString>{{"checkout", tmp.path()}, {"mode", "slow"}});
        QCOMPARE(refused.size(), qsizetype(1));
        QVERIFY2(refused[0].contains("slow"), qPrintable(refused[0]));
        // Saved values of params it no longer has are left out.
        QVERIFY(missingSetup(g, QMap<QString, QString>{{"checkout", tmp.path()}, {"gone", "x"}}).isEmpty());
        // The shipped cascade runs this project's own CLI: set up as it is, not "its program is empty".
        const auto cascade = stageload::parseGeneratorDef(
            R"({"name": "cascade", "command": ["{stageload}", "bench", "cascade", "--mesh", "{output}"]})",
            tmp.filePath(QStringLiteral("cascade.json")).toStdString());
        const QStringList cascadeMissing = missingSetup(cascade, std::map<std::string, std::string>{});
        QVERIFY2(cascadeMissing.isEmpty(), qPrintable(cascadeMissing.join(QLatin1Char('\n'))));
    }

    void aBuiltInRunGetsItsRecordAndRequest() {
        QTemporaryDir tmp;
        RunHistory history(tmp.filePath("runs"));
        StudioSettings s;
        s.run.seed = 77;
        s.run.mode = LoadMode::Eager;
        s.guardEnabled = false;
        const auto run = launchRun(history, s, "/pictures/hero.png", nullptr, {}, "/usr/bin/stageload");
        const RunRecord& r = run.record;
        QCOMPARE(r.status, RunRecord::statusRunning());
        QCOMPARE(r.pipeline, QString::fromStdString(s.run.pipeline));
        QCOMPARE(r.loadMode, QStringLiteral("eager"));
        QCOMPARE(r.output, r.filePath("mesh.glb"));
        QCOMPARE(r.settings.value("seed").toDouble(), 77.0);
        QCOMPARE(r.settings.value("guard").toBool(), false);
        QVERIFY(!r.settings.contains("input"));
        QCOMPARE(history.load(r.id)->output, r.output);  // saved before the run starts
        const GenerateRequest& q = run.request;
        QCOMPARE(q.input, QStringLiteral("/pictures/hero.png"));
        QCOMPARE(q.output, r.output);
        QCOMPARE(q.trace, r.filePath("trace.jsonl"));
        QCOMPARE(q.cutout, r.filePath("cutout.png"));
        QCOMPARE(q.run.seed, 77);
        QVERIFY(!q.guardEnabled);
        QVERIFY(!q.generator);
    }

    void aGeneratorRunKeepsWhatItsCommandIsGiven() {
        QTemporaryDir tmp;
        RunHistory history(tmp.filePath("runs"));
        const auto g = generator(tmp.path());
        StudioSettings s;
        s.run.seed = 5;
        const std::map<std::string, std::string> params{{"checkout", tmp.path().toStdString()}, {"load", "eager"}};
        const auto run = launchRun(history, s, "/pictures/hero.png", &g, params, "/usr/bin/stageload");
        const RunRecord& r = run.record;
        QCOMPARE(r.pipeline, QStringLiteral("Tool"));
        QCOMPARE(r.loadMode, QStringLiteral("eager"));  // its own "load" param, not Loading
        QCOMPARE(r.output, r.filePath("mesh.obj"));
        QCOMPARE(r.settings.value("generator").toString(), QStringLiteral("Tool"));
        QCOMPARE(r.settings.value("params").toObject().value("checkout").toString(), tmp.path());
        QCOMPARE(r.settings.value("params").toObject().value("mode").toString(), QStringLiteral("fast"));
        QCOMPARE(r.settings.value("seed").toDouble(), 5.0);
        QVERIFY(!r.settings.contains("texture_size"));  // its command does not take one
        QVERIFY(run.request.generator);
        QCOMPARE(run.request.generatorParams, params);
        QCOMPARE(run.request.runDir, r.dir);
        QCOMPARE(run.request.stageloadCommand, QStringLiteral("/usr/bin/stageload"));

        // Without a "load" param a generator has its own way: no load mode is claimed for it.
        auto plain = g;
        plain.params.erase(std::remove_if(plain.params.begin(), plain.params.end(),
                                          [](const GeneratorParam& p) { return p.name == "load"; }),
                           plain.params.end());
        QCOMPARE(launchRun(history, s, "/pictures/hero.png", &plain, {}, {}).record.loadMode, QString());
    }

    void anEndedRunIsRecordedAsItEnded() {
        QTemporaryDir tmp;
        RunHistory history(tmp.filePath("runs"));
        auto r = launchRun(history, StudioSettings{}, "/pictures/hero.png", nullptr, {}, {}).record;
        QFile mesh(r.output);
        QVERIFY(mesh.open(QIODevice::WriteOnly));
        mesh.close();

        GenerateOutcome done;
        done.end = RunEnd::Done;
        done.message = "written";
        done.notices = {"first note", "second note"};
        done.seconds = 12.5;
        done.stageSeconds = {{"preprocess", 1.5}};
        done.command = {"tool", "--seed", "1"};
        recordOutcome(r, done);
        QCOMPARE(r.status, RunRecord::statusDone());
        QCOMPARE(r.message, QStringLiteral("first note\nsecond note"));
        QCOMPARE(r.seconds, 12.5);
        QCOMPARE(r.stageSeconds.size(), qsizetype(1));
        QCOMPARE(r.output, mesh.fileName());          // written: kept
        QVERIFY(r.cutout.isEmpty());                   // not written: cleared
        QCOMPARE(r.settings.value("command").toArray().size(), qsizetype(3));

        GenerateOutcome stopped;
        stopped.end = RunEnd::Stopped;
        stopped.message = "stopped by the guard in texture";
        recordOutcome(r, stopped);
        QCOMPARE(r.status, RunRecord::statusStopped());
        QCOMPARE(r.message, stopped.message);
        for (const auto end : {RunEnd::Failed, RunEnd::Cancelled}) {
            GenerateOutcome o;
            o.end = end;
            recordOutcome(r, o);
            QCOMPARE(r.status, toStatus(end));
            QVERIFY(RunRecord::statuses().contains(r.status));
        }
    }
};

}  // namespace test_run_launcher

STAGELOAD_GUILESS_SUITE(test_run_launcher, test_run_launcher::TestRunLauncher)
#include "test_run_launcher.moc"
