#include <QtTest>

#include "engine/load/safetensors.h"
#include "engine/registry/release.h"
#include "guard/memory/process_memory.h"
#include "tests/suite_program.h"
#include "test_support.h"

using namespace stageload;
using stageload::test::mib;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_load_memory {

// Seed 004's lesson: loading must not cost more than the weights plus a small constant.
class TestLoadMemory : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    static std::shared_ptr<torch::nn::Module> makeModel(std::int64_t layers, std::int64_t width) {
        auto m = std::make_shared<torch::nn::Module>();
        for (std::int64_t i = 0; i < layers; ++i)
            m->register_module("l" + std::to_string(i), torch::nn::Linear(width, width));
        return m;
    }

private slots:
    void peakWhileLoadingStaysUnderWeightsPlus64MiB_data() {
        QTest::addColumn<QString>("dtype");
        QTest::newRow("same dtype (direct copy)") << "F32";
        QTest::newRow("half on disk (converted)") << "F16";
    }

    void peakWhileLoadingStaysUnderWeightsPlus64MiB() {
        QFETCH(QString, dtype);
        const std::int64_t layers = 20, width = 2048;  // 20 x 16 MiB = 320 MiB of float32
        const auto path = std::filesystem::path(dir_.path().toStdString()) /
                          ("model-" + dtype.toStdString() + ".safetensors");
        {
            auto src = makeModel(layers, width);
            std::vector<std::pair<std::string, torch::Tensor>> tensors;
            for (auto& [name, t] : namedWeights(*src))
                tensors.emplace_back(name, dtype == "F16" ? t.to(torch::kFloat16) : t);
            writeSafetensors(path, tensors);
        }
        returnFreedMemory();

        QVERIFY(resetPeakRss());
        const auto base = readProcessMemory().rss;
        auto model = makeModel(layers, width);  // random init: the weights' own bytes
        loadWeights(*model, SafetensorsFile::open(path));
        const auto peak = readProcessMemory().peakRss;
        const auto weights = moduleBytes(*model);
        QVERIFY(weights >= mib(256));
        qInfo("weights %lld MiB, peak rise while building + loading %lld MiB",
              static_cast<long long>(weights >> 20), static_cast<long long>((peak - base) >> 20));
        QVERIFY2(peak - base <= weights + mib(64), "loading cost more than weights + 64 MiB");
        // And the weights are the file's, bit for bit.
        auto file = SafetensorsFile::open(path);
        for (auto& [name, t] : namedWeights(*model))
            QVERIFY(torch::equal(t, file.read(name).to(torch::kFloat32)));
    }
};

}  // namespace test_load_memory

STAGELOAD_APPLESS_SUITE(test_load_memory, test_load_memory::TestLoadMemory)
#include "test_load_memory.moc"
