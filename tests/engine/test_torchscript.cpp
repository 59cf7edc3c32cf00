#include <QtTest>

#include <fstream>

#include "engine/load/torchscript.h"
#include "engine/registry/release.h"
#include "engine/registry/staged_models.h"
#include "tests/suite_program.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_torchscript {

class TestTorchScript : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::filesystem::path path(const char* name) {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

    // A TorchScript model made in C++ (no Python needed): y = x * scale + bias.
    std::filesystem::path makeScript() {
        torch::jit::Module m("Affine");
        m.register_parameter("scale", torch::full({4}, 2.0f), false);
        m.register_buffer("bias", torch::full({4}, 1.0f));
        m.define(R"(
def forward(self, x):
    return x * self.scale + self.bias
)");
        const auto p = path("affine.pt");
        m.save(p.string());
        return p;
    }

private slots:
    void loadsAndRuns() {
        auto model = loadTorchScript(makeScript());
        const auto y = model->forward(torch::ones({4}));
        QVERIFY(torch::equal(y, torch::full({4}, 3.0f)));
        auto iv = model->forward(std::vector<torch::jit::IValue>{torch::zeros({4})});
        QVERIFY(torch::equal(iv.toTensor(), torch::ones({4})));
        QCOMPARE(moduleBytes(*model), std::int64_t(8 * 4));
    }

    void releaseFreesScriptTensorsThroughTheRegistry() {
        const auto file = makeScript();
        EventLog log;
        StagedModels models({{"affine", [file] { return loadTorchScript(file); }}},
                            {{"use", {"affine"}}, {"done", {}}}, {.events = log.sink()});
        models.enter("use");
        auto m = models.get<ScriptModel>("affine");
        QVERIFY(torch::equal(m(torch::ones({4})), torch::full({4}, 3.0f)));
        models.enter("done");
        QCOMPARE(log.events(EventKind::Release).at(0).nbytes, std::int64_t(8 * 4));
        QVERIFY_THROWS_EXCEPTION(ReleasedModelError, m(torch::ones({4})));
        QCOMPARE(m.unchecked()->script().attr("scale").toTensor().numel(), std::int64_t(0));
    }

    void missingAndCorruptFilesNameTheFile() {
        try {
            loadTorchScript(path("absent.pt"));
            QFAIL("must throw");
        } catch (const WeightFileError& e) {
            QVERIFY2(QString(e.what()).contains("absent.pt") &&
                         QString(e.what()).contains("no such file"),
                     e.what());
        }
        const auto junk = path("junk.pt");
        std::ofstream(junk) << "this is not a zip archive";
        try {
            loadTorchScript(junk);
            QFAIL("must throw");
        } catch (const WeightFileError& e) {
            QVERIFY2(QString(e.what()).contains("junk.pt") &&
                         QString(e.what()).contains("not a readable TorchScript"),
                     e.what());
        }
    }
};

}  // namespace test_torchscript

STAGELOAD_APPLESS_SUITE(test_torchscript, test_torchscript::TestTorchScript)
#include "test_torchscript.moc"
