#include <QtTest>

#include <cstring>
#include <vector>

#include <ATen/CPUGeneratorImpl.h>

#include "engine/pipelines/cascade/cascade_run.h"
#include "engine/registry/rng.h"
#include "engine/registry/staged_models.h"
#include "tests/suite_program.h"
#include "test_support.h"

using namespace stageload;
using stageload::test::Blob;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_rng {

namespace {

// Bit for bit, not float ==: -0 against +0 or a NaN would hide or fake a difference.
bool sameBits(const std::vector<float>& a, const std::vector<float>& b) {
    return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

}  // namespace

class TestRng : public QObject {
    Q_OBJECT

private slots:
    void preserveRestoresTheGlobalGenerator() {
        torch::manual_seed(3);
        const auto expected = torch::randn({4});
        torch::manual_seed(3);
        {
            PreserveRng keep;
            torch::randn({1000});  // a model's random init
        }
        QVERIFY(torch::equal(torch::randn({4}), expected));
    }

    void restoredAlsoWhenTheBuilderThrows() {
        torch::manual_seed(11);
        const auto expected = torch::randn({4});
        torch::manual_seed(11);
        StagedModels models({{"bad", []() -> std::shared_ptr<torch::nn::Module> {
                                  torch::randn({100});
                                  throw std::runtime_error("corrupt weights");
                              }}},
                            {});
        QVERIFY_THROWS_EXCEPTION(std::runtime_error, models.get("bad"));
        QVERIFY(torch::equal(torch::randn({4}), expected));
    }

    void registeredGeneratorsArePreserved() {
        auto gen = at::make_generator<at::CPUGeneratorImpl>(5);
        const auto expected = torch::rand({4}, gen);
        gen.set_current_seed(5);
        StagedModels models({{"m", [gen]() -> std::shared_ptr<torch::nn::Module> {
                                  auto g = gen;
                                  torch::rand({10}, g);  // the builder draws from it
                                  return std::make_shared<Blob>();
                              }}},
                            {});
        models.registerGenerator(gen);
        models.get("m");
        QVERIFY(torch::equal(torch::rand({4}, gen), expected));
    }

    void withoutPreservationLoadingShiftsTheNoise() {
        torch::manual_seed(3);
        const auto expected = torch::randn({4});
        torch::manual_seed(3);
        StagedModels models({{"m", [] { return std::make_shared<Blob>(100); }}}, {},
                            {.preserveRng = false});
        models.get("m");
        QVERIFY(!torch::equal(torch::randn({4}), expected));
    }

    // The stand-in cascade seeds once and draws noise at every step, with models built (random
    // init) and loaded from safetensors mid-run.
    void stagedAndEagerAreBitIdenticalAtEveryStage() {
        QTemporaryDir dir;
        CascadeParams p;
        p.cacheDir = dir.path().toStdString();
        p.scaleGiB = 0.03;
        const auto staged = runCascade(p);
        p.mode = LoadMode::Eager;
        const auto eager = runCascade(p);
        QCOMPARE(staged.stages.size(), std::size_t(8));
        QCOMPARE(staged.stages.size(), eager.stages.size());
        for (std::size_t i = 0; i < staged.stages.size(); ++i) {
            QVERIFY(!staged.stages[i].latent.empty());
            QVERIFY2(sameBits(staged.stages[i].latent, eager.stages[i].latent),
                     staged.stages[i].name.c_str());
            QCOMPARE(staged.stages[i].fingerprint, eager.stages[i].fingerprint);
        }
    }

    // The control: without preservation the staged run diverges from the first stage that
    // builds a model after seeding (the very first), and stays apart.
    void withoutPreservationStagedDivergesFromEager() {
        QTemporaryDir dir;
        CascadeParams p;
        p.cacheDir = dir.path().toStdString();
        p.scaleGiB = 0.03;
        p.mode = LoadMode::Eager;
        const auto eager = runCascade(p);
        p.mode = LoadMode::Staged;
        p.preserveRng = false;
        const auto staged = runCascade(p);
        for (std::size_t i = 0; i < staged.stages.size(); ++i)
            QVERIFY2(!sameBits(staged.stages[i].latent, eager.stages[i].latent),
                     staged.stages[i].name.c_str());
    }
};

}  // namespace test_rng

STAGELOAD_APPLESS_SUITE(test_rng, test_rng::TestRng)
#include "test_rng.moc"
