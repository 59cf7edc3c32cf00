#include <QtTest>

#include <fstream>
#include <thread>

#include "engine/api/weights_header.h"
#include "engine/load/safetensors.h"
#include "tests/suite_program.h"
#include "test_support.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_safetensors {

namespace {

// Writes a file with this header text and `dataBytes` zero bytes after it.
void writeRaw(const std::filesystem::path& path, const std::string& header, std::size_t dataBytes,
              std::uint64_t claimedHeaderLen = 0) {
    std::ofstream out(path, std::ios::binary);
    const std::uint64_t len = claimedHeaderLen ? claimedHeaderLen : header.size();
    for (int i = 0; i < 8; ++i) out.put(static_cast<char>((len >> (8 * i)) & 0xff));
    out << header;
    out << std::string(dataBytes, '\0');
}

// The message of the WeightFileError that f throws; fails the test if it throws none.
template <class F>
QString weightError(F f, const std::string& expectTensor = {}) {
    try {
        f();
    } catch (const WeightFileError& e) {
        if (!expectTensor.empty() && e.tensor() != expectTensor)
            return QString("wrong tensor named: ") + e.what();
        return e.what();
    }
    return "no WeightFileError thrown";
}

}  // namespace

class TestSafetensors : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;
    std::filesystem::path path(const char* name) {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

private slots:
    void roundTripsEveryDtype() {
        const std::vector<torch::Dtype> dtypes{torch::kFloat64, torch::kFloat32, torch::kFloat16,
                                               torch::kBFloat16, torch::kInt64,  torch::kInt32,
                                               torch::kInt16,    torch::kInt8,   torch::kUInt8,
                                               torch::kBool};
        std::vector<std::pair<std::string, torch::Tensor>> tensors;
        for (auto d : dtypes) {
            auto t = (torch::arange(24).reshape({2, 3, 4}) % 7).to(d);
            tensors.emplace_back(std::string(c10::toString(d)), t);
        }
        tensors.emplace_back("scalar", torch::tensor(3.5));
        tensors.emplace_back("empty", torch::zeros({0, 5}));
        const auto p = path("all.safetensors");
        writeSafetensors(p, tensors, {{"format", "pt"}});

        auto f = SafetensorsFile::open(p);
        QCOMPARE(f.tensors().size(), tensors.size());
        QCOMPARE(f.metadata().at("format"), std::string("pt"));
        for (const auto& [name, t] : tensors) {
            const auto back = f.read(name);
            QCOMPARE(back.scalar_type(), t.scalar_type());
            QVERIFY2(torch::equal(back, t), name.c_str());
            QVERIFY2(torch::equal(f.map(name), t), name.c_str());
        }
        QCOMPARE(f.at("BFloat16").dtypeName, std::string("BF16"));
    }

    void readIntoConvertsDtypeAndHandlesStridedTargets() {
        const auto p = path("half.safetensors");
        const auto src = torch::randn({64, 33}).to(torch::kFloat16);
        writeSafetensors(p, {{"w", src}});
        auto f = SafetensorsFile::open(p);
        auto dst = torch::empty({64, 33});
        f.readInto("w", dst);
        QVERIFY(torch::equal(dst, src.to(torch::kFloat32)));
        auto strided = torch::empty({33, 64}).t();  // non-contiguous
        f.readInto("w", strided);
        QVERIFY(torch::equal(strided, src.to(torch::kFloat32)));
    }

    void largeTensorsCrossStagingChunks() {
        // 3.5 MiB of float32: reads go through a 1 MiB staging buffer, so this spans four chunks
        // with a partial last one, in the direct path and in both converting paths.
        const auto p = path("large.safetensors");
        const auto src = torch::randn({917504});
        writeSafetensors(p, {{"w", src}});
        auto f = SafetensorsFile::open(p);
        QVERIFY(torch::equal(f.read("w"), src));
        auto wide = torch::empty({917504}, torch::kFloat64);
        f.readInto("w", wide);
        QVERIFY(torch::equal(wide, src.to(torch::kFloat64)));
        auto strided = torch::empty({917504 * 2}).slice(0, 0, 917504 * 2, 2);
        f.readInto("w", strided);
        QVERIFY(torch::equal(strided, src));
    }

    void readsFromSeveralThreadsAtOnce() {
        const auto p = path("shared.safetensors");
        std::vector<std::pair<std::string, torch::Tensor>> tensors;
        for (int i = 0; i < 8; ++i)
            tensors.emplace_back("t" + std::to_string(i), torch::full({300000}, float(i)));
        writeSafetensors(p, tensors);
        const auto f = SafetensorsFile::open(p);
        std::vector<std::vector<torch::Tensor>> got(4);
        std::vector<std::thread> threads;
        for (std::size_t k = 0; k < got.size(); ++k)
            threads.emplace_back([&, k] {
                for (int round = 0; round < 5; ++round)
                    for (const auto& [name, t] : tensors) got[k].push_back(f.read(name));
            });
        for (auto& t : threads) t.join();
        for (const auto& g : got) {
            QCOMPARE(g.size(), tensors.size() * 5);
            for (std::size_t i = 0; i < g.size(); ++i)
                QVERIFY(torch::equal(g[i], tensors[i % tensors.size()].second));
        }
    }

    void fileShrinkingAfterOpenIsAnErrorNamingTheTensor() {
        const auto p = path("shrinks.safetensors");
        writeSafetensors(p, {{"a", torch::ones({1000})}, {"b", torch::ones({1000})}});
        auto f = SafetensorsFile::open(p);
        std::filesystem::resize_file(p, f.at("b").begin + 100);  // another process cut it short
        QVERIFY(torch::equal(f.read("a"), torch::ones({1000})));
        const auto msg = weightError([&] { f.read("b"); }, "b");
        QVERIFY2(msg.contains("shrank") && msg.contains("shrinks.safetensors"), qPrintable(msg));
    }

    void loadWeightsFillsAModuleAndChecksNames() {
        torch::nn::Linear lin(5, 3);
        const auto p = path("lin.safetensors");
        auto w = torch::randn({3, 5});
        auto b = torch::randn({3});
        writeSafetensors(p, {{"weight", w}, {"bias", b}});
        const auto report = loadWeights(*lin, SafetensorsFile::open(p));
        QCOMPARE(report.tensors, std::int64_t(2));
        QCOMPARE(report.bytes, std::int64_t((15 + 3) * 4));
        QVERIFY(torch::equal(lin->weight, w));
        QVERIFY(torch::equal(lin->bias, b));

        const auto extra = path("extra.safetensors");
        writeSafetensors(extra, {{"weight", w}, {"bias", b}, {"stray", b}});
        auto msg = weightError([&] { loadWeights(*lin, SafetensorsFile::open(extra)); }, "stray");
        QVERIFY2(msg.contains("'stray'"), qPrintable(msg));
        loadWeights(*lin, SafetensorsFile::open(extra), {.strict = false});

        const auto missing = path("missing.safetensors");
        writeSafetensors(missing, {{"weight", w}});
        msg = weightError([&] { loadWeights(*lin, SafetensorsFile::open(missing)); }, "bias");
        QVERIFY2(msg.contains("missing.safetensors") && msg.contains("not in the file"),
                 qPrintable(msg));

        const auto wrong = path("wrong.safetensors");
        writeSafetensors(wrong, {{"weight", torch::randn({5, 3})}, {"bias", b}});
        msg = weightError([&] { loadWeights(*lin, SafetensorsFile::open(wrong)); }, "weight");
        QVERIFY2(msg.contains("[5, 3]") && msg.contains("[3, 5]"), qPrintable(msg));
    }

    void corruptFilesGiveClearErrors_data() {
        QTest::addColumn<QString>("header");
        QTest::addColumn<int>("dataBytes");
        QTest::addColumn<qulonglong>("claimedLen");
        QTest::addColumn<QString>("tensor");
        QTest::addColumn<QString>("expect");
        const QString ok = R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]}})";
        QTest::newRow("truncated data") << ok << 10 << 0ull << "w" << "truncated";
        QTest::newRow("header longer than file") << ok << 16 << 5000ull << "" << "exceeds the file size";
        QTest::newRow("not json") << "{\"w\": [1, 2" << 0 << 0ull << "" << "not valid JSON";
        QTest::newRow("not an object") << "[1,2,3]" << 0 << 0ull << "" << "not a JSON object";
        QTest::newRow("unknown dtype")
            << R"({"w":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}})" << 2 << 0ull << "w"
            << "unknown dtype 'F8_E4M3'";
        QTest::newRow("offsets lie about size")
            << R"({"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,12]}})" << 16 << 0ull << "w"
            << "hold 12 bytes";
        QTest::newRow("offsets backwards")
            << R"({"w":{"dtype":"F32","shape":[1],"data_offsets":[8,4]}})" << 16 << 0ull << "w"
            << "backwards";
        QTest::newRow("negative shape")
            << R"({"w":{"dtype":"F32","shape":[-1],"data_offsets":[0,4]}})" << 4 << 0ull << "w"
            << "negative";
        // The byte count once wrapped to 0 ("needs 0 bytes") and sizes after a 0 went negative.
        QTest::newRow("size times element size wraps")
            << R"({"w":{"dtype":"F32","shape":[1,4611686018427387904],"data_offsets":[0,0]}})" << 0 << 0ull
            << "w" << "implausibly large";
        QTest::newRow("sizes multiply past int64")
            << R"({"w":{"dtype":"U8","shape":[4294967296,4294967296],"data_offsets":[0,0]}})" << 0 << 0ull
            << "w" << "implausibly large";
        QTest::newRow("unbounded size after a 0")
            << R"({"w":{"dtype":"F32","shape":[0,18446744073709551615],"data_offsets":[0,0]}})" << 0
            << 0ull << "w" << "implausibly large";
        QTest::newRow("missing fields") << R"({"w":{"dtype":"F32"}})" << 0 << 0ull << "w"
                                        << "lacks dtype, shape or data_offsets";
        QTest::newRow("overlap")
            << R"({"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}})"
            << 12 << 0ull << "b" << "overlaps tensor 'a'";
    }

    void corruptFilesGiveClearErrors() {
        QFETCH(QString, header);
        QFETCH(int, dataBytes);
        QFETCH(qulonglong, claimedLen);
        QFETCH(QString, tensor);
        QFETCH(QString, expect);
        const auto p = path("corrupt.safetensors");
        writeRaw(p, header.toStdString(), static_cast<std::size_t>(dataBytes), claimedLen);
        const auto msg =
            weightError([&] { SafetensorsFile::open(p); }, tensor.toStdString());
        QVERIFY2(msg.contains(expect), qPrintable(msg));
        QVERIFY2(msg.contains("corrupt.safetensors"), qPrintable(msg));
    }

    // The Torch-free header reader sees what open() sees, reading only the header; an empty
    // tensor with large other sizes is fine.
    void headerAloneMatchesTheOpenedFile() {
        const auto p = path("header.safetensors");
        writeSafetensors(p, {{"a", torch::randn({3, 5})}, {"b", torch::zeros({0, 100000}, torch::kInt16)}});
        const auto header = readSafetensorsHeader(p);
        const auto file = SafetensorsFile::open(p);
        QCOMPARE(header.tensors.size(), file.tensors().size());
        for (std::size_t i = 0; i < header.tensors.size(); ++i) {
            QCOMPARE(header.tensors[i].name, file.tensors()[i].name);
            QCOMPARE(header.tensors[i].dtypeName, file.tensors()[i].dtypeName);
            QCOMPARE(header.tensors[i].shape, file.tensors()[i].shape);
            QCOMPARE(header.tensors[i].begin, file.tensors()[i].begin);
        }
        QCOMPARE(header.dataBytes(), file.dataBytes());
        QCOMPARE(header.dataBytes(), std::uint64_t(60));
        QCOMPARE(safetensorsElementSize("BF16"), std::size_t(2));
        QCOMPARE(safetensorsElementSize("F8_E4M3"), std::size_t(0));
    }

    void tinyEmptyAndMissingFiles() {
        const auto empty = path("empty.safetensors");
        std::ofstream(empty).flush();
        auto msg = weightError([&] { SafetensorsFile::open(empty); });
        QVERIFY2(msg.contains("too short"), qPrintable(msg));
        msg = weightError([&] { SafetensorsFile::open(path("absent.safetensors")); });
        QVERIFY2(msg.contains("absent.safetensors") && msg.contains("cannot open"), qPrintable(msg));
        msg = weightError([&] { SafetensorsFile::open(dir_.path().toStdString()); });
        QVERIFY2(msg.contains("not a regular file"), qPrintable(msg));
    }

    void writerIsAtomic() {
        const auto p = path("keep.safetensors");
        writeSafetensors(p, {{"a", torch::ones({4})}});
        const auto sizeBefore = std::filesystem::file_size(p);
        // An unsupported dtype fails before anything is written; the old file stays.
        auto msg = weightError(
            [&] { writeSafetensors(p, {{"c", torch::ones({2}, torch::kComplexFloat)}}); }, "c");
        QVERIFY2(msg.contains("cannot be stored"), qPrintable(msg));
        QCOMPARE(std::filesystem::file_size(p), sizeBefore);

        // A destination that cannot be replaced (a non-empty folder): no temp file left behind.
        const auto blocked = path("blocked.safetensors");
        std::filesystem::create_directories(blocked / "inside");
        msg = weightError([&] { writeSafetensors(blocked, {{"a", torch::ones({4})}}); });
        QVERIFY2(msg.contains("rename"), qPrintable(msg));
        for (const auto& entry : std::filesystem::directory_iterator(dir_.path().toStdString()))
            QVERIFY2(entry.path().string().find(".tmp-") == std::string::npos,
                     entry.path().c_str());

        msg = weightError([&] { writeSafetensors(path("no/such/dir/x.safetensors"), {}); });
        QVERIFY2(msg.contains("cannot create"), qPrintable(msg));
        QVERIFY_THROWS_EXCEPTION(WeightFileError,
                                 writeSafetensors(path("dup.safetensors"),
                                                  {{"a", torch::ones(1)}, {"a", torch::ones(1)}}));
    }

    void headerIsAlignedAndReadableByOthers() {
        const auto p = path("aligned.safetensors");
        writeSafetensors(p, {{"x", torch::arange(3, torch::kInt64)}});
        std::ifstream in(p, std::ios::binary);
        unsigned char len[8];
        in.read(reinterpret_cast<char*>(len), 8);
        std::uint64_t n = 0;
        for (int i = 7; i >= 0; --i) n = (n << 8) | len[i];
        QCOMPARE(n % 8, std::uint64_t(0));
        std::string header(n, '\0');
        in.read(header.data(), static_cast<std::streamsize>(n));
        QVERIFY2(header.find(R"("x":{"dtype":"I64","shape":[3],"data_offsets":[0,24]})") !=
                     std::string::npos,
                 header.c_str());
    }
};

}  // namespace test_safetensors

STAGELOAD_APPLESS_SUITE(test_safetensors, test_safetensors::TestSafetensors)
#include "test_safetensors.moc"
