#include <QtTest>

#include "engine/load/safetensors.h"
#include "engine/registry/release.h"
#include "engine/registry/staged_models.h"
#include "guard/memory/process_memory.h"
#include "tests/suite_program.h"
#include "test_support.h"

using namespace stageload;
using stageload::test::Blob;
using stageload::test::mib;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_release {

class TestRelease : public QObject {
    Q_OBJECT

private slots:
    void countsDistinctStoragesOnce() {
        auto m = std::make_shared<torch::nn::Module>();
        auto base = torch::zeros({100});
        m->register_parameter("a", base);
        m->register_buffer("view", base.view({10, 10}));  // same storage
        m->register_buffer("other", torch::zeros({50}, torch::kInt64));
        QCOMPARE(moduleBytes(*m), std::int64_t(100 * 4 + 50 * 8));
        const auto stats = releaseModule(m);
        QCOMPARE(stats.nbytes, std::int64_t(100 * 4 + 50 * 8));
        QCOMPARE(stats.storages, std::int64_t(2));
        QCOMPARE(stats.tensors, std::int64_t(3));
        QCOMPARE(stats.kept, std::int64_t(0));
        QVERIFY(isReleased(m));
    }

    void secondReleaseFreesNothing() {
        auto m = std::make_shared<Blob>(1000);
        QCOMPARE(releaseModule(m).nbytes, std::int64_t(4000));
        QCOMPARE(releaseModule(m).nbytes, std::int64_t(0));
        QCOMPARE(moduleBytes(*m), std::int64_t(0));
    }

    void freesSubmodulesAndKeepsSharedStorage() {
        auto shared = std::make_shared<Blob>(256);
        auto a = std::make_shared<torch::nn::Module>();
        a->register_module("backbone", shared);
        a->register_module("head", std::make_shared<Blob>(64));
        auto b = std::make_shared<torch::nn::Module>();
        b->register_module("backbone", shared);

        const auto stats = releaseModule(a, {b});
        QCOMPARE(stats.kept, std::int64_t(1));
        QCOMPARE(stats.nbytes, std::int64_t(64 * 4));
        QCOMPARE(shared->weight.numel(), std::int64_t(256));
        QVERIFY(!isReleased(b));
        QCOMPARE(releaseModule(b).nbytes, std::int64_t(256 * 4));
    }

    void releasedModuleKeepsItsDtypeAndDevice() {
        auto m = std::make_shared<torch::nn::Module>();
        m->register_parameter("h", torch::zeros({8}, torch::kFloat16));
        releaseModule(m);
        const auto p = m->named_parameters()["h"];
        QCOMPARE(p.scalar_type(), torch::kFloat16);
        QVERIFY(p.device().is_cpu() || p.device().is_meta());
        QCOMPARE(metaReleaseSupported(), p.device().is_meta());
    }

    // The heart of the product: the memory really comes back, even though someone else still
    // holds the module, and the next access loads correct weights again.
    void bigModelMemoryComesBackAndReloadIsCorrect() {
        QTemporaryDir dir;
        QVERIFY(dir.isValid());
        const auto path = std::filesystem::path(dir.path().toStdString()) / "big.safetensors";
        const std::int64_t numel = mib(288) / 4;  // 288 MiB of float32
        {
            auto w = torch::arange(numel, torch::kFloat32).remainder_(1000.0f);
            writeSafetensors(path, {{"weight", w}});
        }
        returnFreedMemory();

        EventLog log;
        StagedModels models(
            {{"big",
              [path, numel]() -> std::shared_ptr<torch::nn::Module> {
                  auto m = std::make_shared<Blob>(numel);
                  loadWeights(*m, SafetensorsFile::open(path));
                  return m;
              }}},
            {{"use", {"big"}}, {"other", {}}}, {.events = log.sink()});
        models.enter("use");
        auto handle = models.get<Blob>("big");
        auto alsoHeld = handle.shared();  // another owner, as pipeline code would keep
        QCOMPARE(handle->weight[1234].item<float>(), 234.0f);

        const auto before = readProcessMemory().rss;
        models.enter("other");
        const auto after = readProcessMemory().rss;
        const auto weights = numel * 4;
        const auto returned = before - after;
        qInfo("released %lld MiB of weights, RSS fell by %lld MiB",
              static_cast<long long>(weights >> 20), static_cast<long long>(returned >> 20));
        QVERIFY2(returned >= weights * 9 / 10, "RSS must fall by at least 90 % of the weights");
        QCOMPARE(log.events(EventKind::Release).back().nbytes, weights);
        QCOMPARE(alsoHeld->weight.numel(), std::int64_t(0));
        QVERIFY_THROWS_EXCEPTION(ReleasedModelError, handle->forward(torch::ones({1})));

        models.enter("use");
        auto again = models.get<Blob>("big");
        QCOMPARE(log.events(EventKind::Reload).size(), std::size_t(1));
        QCOMPARE(again->weight[1234].item<float>(), 234.0f);
        QVERIFY(torch::equal(again->weight, SafetensorsFile::open(path).map("weight")));
    }
};

}  // namespace test_release

STAGELOAD_APPLESS_SUITE(test_release, test_release::TestRelease)
#include "test_release.moc"
