// Pictures in and out: formats, EXIF orientation, deterministic PNG, and every way a file can
// be unusable (each with a message that names the file and says what is wrong).
#include <stb_image_write.h>
#include <webp/encode.h>

#include <QTemporaryDir>
#include <QtTest>
#include <fstream>

#include "engine/media/image.h"

using namespace stageload;

namespace {

Image pattern(int w, int h, int channels) {
    Image img(w, h, channels);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x)
            for (int c = 0; c < channels; ++c)
                img.at(x, y)[c] = static_cast<std::uint8_t>((x * 37 + y * 11 + c * 80) % 256);
    return img;
}

void writeBytes(const std::filesystem::path& p, const std::vector<std::uint8_t>& b) {
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), b.size());
}

// A JPEG of `img` with an EXIF block (APP1) saying `orientation`.
std::vector<std::uint8_t> jpegWithOrientation(const Image& img, int orientation) {
    std::vector<std::uint8_t> jpg;
    stbi_write_jpg_to_func(
        [](void* ctx, void* data, int size) {
            auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
            v->insert(v->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
        },
        &jpg, img.width, img.height, img.channels, img.pixels.data(), 100);
    // Big-endian TIFF: header, IFD0 with one entry (0x0112, SHORT, 1, value), next IFD 0.
    const std::vector<std::uint8_t> tiff = {'M', 'M', 0, 42, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3,
                                            0,   0,   0, 1,  0, static_cast<std::uint8_t>(orientation),
                                            0,   0,   0, 0,  0, 0};
    std::vector<std::uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), tiff.begin(), tiff.end());
    const auto length = app1.size() - 2;
    app1[2] = static_cast<std::uint8_t>(length >> 8);
    app1[3] = static_cast<std::uint8_t>(length & 0xFF);
    jpg.insert(jpg.begin() + 2, app1.begin(), app1.end());  // right after SOI
    return jpg;
}

}  // namespace

class TestImage : public QObject {
    Q_OBJECT

private slots:
    void pngRoundTripIsExactAndDeterministic() {
        for (int channels : {3, 4}) {
            const auto img = pattern(37, 23, channels);
            const auto a = encodePng(img), b = encodePng(img);
            QVERIFY(a == b);
            const auto d = decodeImage(a, "mem.png");
            QCOMPARE(d.format, std::string("png"));
            QCOMPARE(d.hasAlpha, channels == 4);
            QCOMPARE(d.image.channels, 4);
            for (int y = 0; y < img.height; ++y)
                for (int x = 0; x < img.width; ++x)
                    for (int c = 0; c < channels; ++c) QCOMPARE(d.image.at(x, y)[c], img.at(x, y)[c]);
        }
    }

    void webpIsDecoded() {
        const auto img = pattern(20, 12, 4);
        std::uint8_t* out = nullptr;
        const auto size = WebPEncodeLosslessRGBA(img.pixels.data(), img.width, img.height, img.width * 4, &out);
        QVERIFY(size > 0);
        std::vector<std::uint8_t> bytes(out, out + size);
        WebPFree(out);
        const auto d = decodeImage(bytes, "mem.webp");
        QCOMPARE(d.format, std::string("webp"));
        QVERIFY(d.hasAlpha);
        // Lossless WebP may change the colour of fully transparent pixels; compare the rest.
        for (std::size_t i = 0; i < img.pixels.size(); i += 4)
            if (img.pixels[i + 3] != 0)
                QVERIFY(std::equal(img.pixels.begin() + i, img.pixels.begin() + i + 4, d.image.pixels.begin() + i));
    }

    void exifOrientationIsApplied() {
        // A 40×20 picture, left half dark, right half bright; orientation 6 = rotate 90° CW.
        Image img(40, 20, 3);
        for (int y = 0; y < 20; ++y)
            for (int x = 0; x < 40; ++x) std::memset(img.at(x, y), x < 20 ? 20 : 235, 3);
        const auto d = decodeImage(jpegWithOrientation(img, 6), "phone.jpg");
        QCOMPARE(d.orientation, 6);
        QCOMPARE(d.image.width, 20);
        QCOMPARE(d.image.height, 40);
        // Rotated clockwise: what was on the left is now at the top.
        QVERIFY(d.image.at(10, 5)[0] < 60);
        QVERIFY(d.image.at(10, 34)[0] > 200);
        const auto plain = decodeImage(jpegWithOrientation(img, 1), "plain.jpg");
        QCOMPARE(plain.image.width, 40);
    }

    void orientationsAreInverses() {
        const auto img = pattern(5, 3, 3);
        // 6 (90° CW) then 8 (90° CCW) is the identity; 3 twice too; 2 twice too.
        QVERIFY(applyOrientation(applyOrientation(img, 6), 8).pixels == img.pixels);
        QVERIFY(applyOrientation(applyOrientation(img, 3), 3).pixels == img.pixels);
        QVERIFY(applyOrientation(applyOrientation(img, 2), 2).pixels == img.pixels);
        QVERIFY(applyOrientation(applyOrientation(img, 5), 5).pixels == img.pixels);
    }

    void unusableFilesSayWhy_data() {
        QTest::addColumn<QByteArray>("bytes");
        QTest::addColumn<QString>("expected");
        const auto png = encodePng(pattern(64, 64, 3));
        QTest::newRow("empty") << QByteArray() << "empty (0 bytes)";
        QTest::newRow("text") << QByteArray("hello, this is not a picture") << "not a picture";
        QTest::newRow("truncated png")
            << QByteArray(reinterpret_cast<const char*>(png.data()), static_cast<int>(png.size() / 2))
            << "corrupt or truncated";
        // A valid PNG header claiming 20000×20000: refused before any pixel is decoded.
        auto huge = encodePng(pattern(8, 8, 3));
        const std::uint8_t dims[8] = {0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20};
        std::copy(dims, dims + 8, huge.begin() + 16);
        QTest::newRow("20000x20000")
            << QByteArray(reinterpret_cast<const char*>(huge.data()), static_cast<int>(huge.size()))
            << "20000×20000 is larger than the 100-megapixel limit";
    }
    void unusableFilesSayWhy() {
        QFETCH(QByteArray, bytes);
        QFETCH(QString, expected);
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "input.png";
        writeBytes(path, std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
        try {
            readImageFile(path);
            QFAIL("no error");
        } catch (const ImageError& e) {
            const QString message = QString::fromUtf8(e.what());
            QVERIFY2(message.contains(expected), qPrintable(message));
            QVERIFY2(message.contains(QString::fromStdString(path.string())), qPrintable(message));
        }
    }

    void missingFileAndFolderSayWhy() {
        QTemporaryDir dir;
        const auto missing = std::filesystem::path(dir.path().toStdString()) / "nope.png";
        QVERIFY_THROWS_EXCEPTION(ImageError, readImageFile(missing));
        try {
            readImageFile(dir.path().toStdString());
        } catch (const ImageError& e) {
            QVERIFY(QString(e.what()).contains("is a folder"));
        }
    }

    void writePngIsAtomic() {
        QTemporaryDir dir;
        const auto path = std::filesystem::path(dir.path().toStdString()) / "out.png";
        writePngFile(path, pattern(16, 16, 3));
        const auto d = readImageFile(path);
        QCOMPARE(d.image.width, 16);
        // An unwritable place: an error naming it, nothing left behind.
        const auto bad = std::filesystem::path(dir.path().toStdString()) / "no-such-dir" / "x.png";
        QVERIFY_THROWS_EXCEPTION(FileError, writePngFile(bad, pattern(4, 4, 3)));
        QCOMPARE(std::distance(std::filesystem::directory_iterator(dir.path().toStdString()),
                               std::filesystem::directory_iterator()),
                 1);
    }
};

QTEST_APPLESS_MAIN(TestImage)
#include "test_image.moc"
