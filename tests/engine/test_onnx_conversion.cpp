#include <QtTest>

#include "engine/load/safetensors.h"
#include "tests/suite_program.h"
#include "tests/file_support.h"

using namespace stageload;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_onnx_conversion {

// packaging/onnx_to_safetensors.py (run by install-weights.sh) must write files this engine
// reads back exactly. The ONNX model is made here with Debian's python3-onnx.
class TestOnnxConversion : public QObject {
    Q_OBJECT

    QTemporaryDir dir_;

    static int python(const QStringList& args, QString* output = nullptr) {
        QProcess p;
        p.setProcessChannelMode(QProcess::MergedChannels);
        p.start("/usr/bin/python3", args);
        if (!p.waitForFinished(60000)) return -1;
        if (output) *output = QString::fromUtf8(p.readAll());
        return p.exitCode();
    }

private slots:
    void convertedInitializersReadBackExactly() {
        const QString onnx = dir_.filePath("tiny.onnx");
        const QString out = dir_.filePath("tiny.safetensors");
        const QString make = QString(R"(
import numpy as np, onnx
from onnx import helper, numpy_helper
w = (np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 8).astype(np.float32)
b = np.array([1, -2, 3], dtype=np.int64)
h = np.array([0.5, 1.5], dtype=np.float16)
node = helper.make_node("Identity", ["x"], ["y"])
graph = helper.make_graph([node], "g", [helper.make_tensor_value_info("x", onnx.TensorProto.FLOAT, [1])],
    [helper.make_tensor_value_info("y", onnx.TensorProto.FLOAT, [1])],
    initializer=[numpy_helper.from_array(w, "conv.weight"), numpy_helper.from_array(b, "idx"),
                 numpy_helper.from_array(h, "half")])
onnx.save(helper.make_model(graph), "%1")
)").arg(onnx);
        QString log;
        QCOMPARE(python({"-c", make}, &log), 0);
        QCOMPARE(python({STAGELOAD_SOURCE_DIR "/packaging/onnx_to_safetensors.py", onnx, out,
                         "source=test"},
                        &log),
                 0);

        auto file = SafetensorsFile::open(out.toStdString());
        QCOMPARE(file.metadata().at("source"), std::string("test"));
        QVERIFY(torch::equal(file.read("conv.weight"),
                             torch::arange(24, torch::kFloat32).reshape({2, 3, 4}) / 8));
        QVERIFY(torch::equal(file.read("idx"), torch::tensor({1, -2, 3}, torch::kInt64)));
        QCOMPARE(file.read("half").scalar_type(), torch::kFloat16);
        QCOMPARE(file.read("half")[1].item<float>(), 1.5f);
    }

    void notAnOnnxFileIsRefusedWithItsName() {
        const QString junk = dir_.filePath("junk.onnx");
        testfile::write(junk, "garbage");
        QString log;
        QVERIFY(python({STAGELOAD_SOURCE_DIR "/packaging/onnx_to_safetensors.py", junk,
                        dir_.filePath("x.safetensors")},
                       &log) != 0);
        QVERIFY2(log.contains("junk.onnx") && log.contains("not a readable ONNX model"),
                 qPrintable(log));
        QVERIFY(!QFile::exists(dir_.filePath("x.safetensors")));
    }
};

}  // namespace test_onnx_conversion

STAGELOAD_APPLESS_SUITE(test_onnx_conversion, test_onnx_conversion::TestOnnxConversion)
#include "test_onnx_conversion.moc"
