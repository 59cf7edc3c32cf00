// Pictures in and out: formats, EXIF orientation, deterministic PNG, and every way a file can
// be unusable (each with a message that names the file and says what is wrong).
#include <stb_image_write.h>
#include <webp/encode.h>

#include <QRegularExpression>
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

std::vector<std::uint8_t> jpegOf(const Image& img) {
    std::vector<std::uint8_t> jpg;
    stbi_write_jpg_to_func(
        [](void* ctx, void* data, int size) {
            auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
            v->insert(v->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
        },
        &jpg, img.width, img.height, img.channels, img.pixels.data(), 100);
    return jpg;
}

// Big-endian TIFF: header (IFD0 at `ifd`), IFD0 with one entry (0x0112, SHORT, 1, value),
// next IFD 0.
std::vector<std::uint8_t> tiffWithOrientation(int orientation, std::uint32_t ifd = 8) {
    return {'M', 'M', 0, 42, std::uint8_t(ifd >> 24), std::uint8_t(ifd >> 16), std::uint8_t(ifd >> 8),
            std::uint8_t(ifd), 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0,
            static_cast<std::uint8_t>(orientation), 0, 0, 0, 0, 0, 0};
}

// A JPEG of `img` with an APP1 EXIF block holding `tiff`; its length field says `length`
// (by default the true one).
std::vector<std::uint8_t> jpegWithTiff(const Image& img, const std::vector<std::uint8_t>& tiff,
                                       int length = -1) {
    auto jpg = jpegOf(img);
    std::vector<std::uint8_t> app1 = {0xFF, 0xE1, 0, 0, 'E', 'x', 'i', 'f', 0, 0};
    app1.insert(app1.end(), tiff.begin(), tiff.end());
    const auto n = length >= 0 ? std::size_t(length) : app1.size() - 2;
    app1[2] = static_cast<std::uint8_t>(n >> 8);
    app1[3] = static_cast<std::uint8_t>(n & 0xFF);
    jpg.insert(jpg.begin() + 2, app1.begin(), app1.end());  // right after SOI
    return jpg;
}

// A JPEG of `img` with an EXIF block (APP1) saying `orientation`.
std::vector<std::uint8_t> jpegWithOrientation(const Image& img, int orientation) {
    return jpegWithTiff(img, tiffWithOrientation(orientation));
}

// A PNG of `img` with an eXIf chunk holding `tiff` before its pixels (the CRC is not checked).
std::vector<std::uint8_t> pngWithTiff(const Image& img, const std::vector<std::uint8_t>& tiff) {
    auto png = encodePng(img);
    const auto n = static_cast<std::uint32_t>(tiff.size());
    std::vector<std::uint8_t> chunk = {std::uint8_t(n >> 24), std::uint8_t(n >> 16),
                                       std::uint8_t(n >> 8), std::uint8_t(n), 'e', 'X', 'I', 'f'};
    chunk.insert(chunk.end(), tiff.begin(), tiff.end());
    chunk.insert(chunk.end(), {0, 0, 0, 0});
    png.insert(png.begin() + 33, chunk.begin(), chunk.end());  // after the signature and IHDR
    return png;
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

    // Offsets and lengths that point outside the EXIF block (they once crashed the decoder):
    // the picture is used as stored, and the user is told why.
    void lyingExifIsUsedUnrotated_data() {
        QTest::addColumn<QByteArray>("bytes");
        Image img(24, 16, 3);
        for (int y = 0; y < 16; ++y)
            for (int x = 0; x < 24; ++x) std::memset(img.at(x, y), x * 10, 3);
        const auto bytes = [](const std::vector<std::uint8_t>& b) {
            return QByteArray(reinterpret_cast<const char*>(b.data()), static_cast<int>(b.size()));
        };
        QTest::newRow("jpeg ifd 0xffffffff") << bytes(jpegWithTiff(img, tiffWithOrientation(6, 0xffffffff)));
        QTest::newRow("jpeg ifd 0xfffffffe") << bytes(jpegWithTiff(img, tiffWithOrientation(6, 0xfffffffe)));
        QTest::newRow("jpeg ifd past the end") << bytes(jpegWithTiff(img, tiffWithOrientation(6, 30)));
        QTest::newRow("jpeg segment too short") << bytes(jpegWithTiff(img, tiffWithOrientation(6), 5));
        QTest::newRow("jpeg orientation 9") << bytes(jpegWithTiff(img, tiffWithOrientation(9)));
        QTest::newRow("jpeg not tiff") << bytes(jpegWithTiff(img, {'X', 'X', 0, 42, 0, 0, 0, 8}));
        QTest::newRow("png ifd 0xffffffff") << bytes(pngWithTiff(img, tiffWithOrientation(6, 0xffffffff)));
        QTest::newRow("png ifd 0xfffffffe") << bytes(pngWithTiff(img, tiffWithOrientation(6, 0xfffffffe)));
        QTest::newRow("png block too short") << bytes(pngWithTiff(img, {'M', 'M', 0}));
    }
    void lyingExifIsUsedUnrotated() {
        QFETCH(QByteArray, bytes);
        const auto d = decodeImage(std::vector<std::uint8_t>(bytes.begin(), bytes.end()), "odd.jpg");
        QCOMPARE(d.orientation, 1);
        QCOMPARE(d.image.width, 24);
        QCOMPARE(d.image.height, 16);
        QVERIFY(!d.notices.empty());
        QVERIFY2(QString::fromStdString(d.notices.back()).contains("orientation data (EXIF) is corrupt"),
                 d.notices.back().c_str());
        // A PNG's eXIf is read as well: the same block, told the truth, rotates the picture.
        if (QByteArray(QTest::currentDataTag()).startsWith("png")) {
            const auto upright = decodeImage(pngWithTiff(d.image, tiffWithOrientation(6)), "ok.png");
            QCOMPARE(upright.orientation, 6);
            QVERIFY(upright.notices.empty());
        }
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
            << "corrupt or truncated (the file ends before the picture does)";
        std::vector<std::uint8_t> jpg;
        const auto rgb = pattern(32, 32, 3);
        stbi_write_jpg_to_func(
            [](void* ctx, void* data, int size) {
                auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
                v->insert(v->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
            },
            &jpg, rgb.width, rgb.height, 3, rgb.pixels.data(), 90);
        QTest::newRow("truncated jpeg header")
            << QByteArray(reinterpret_cast<const char*>(jpg.data()), 120) << "JPEG data is corrupt or truncated";
        // A valid PNG header claiming 20000×20000: refused before any pixel is decoded.
        auto huge = encodePng(pattern(8, 8, 3));
        const std::uint8_t dims[8] = {0, 0, 0x4E, 0x20, 0, 0, 0x4E, 0x20};
        std::copy(dims, dims + 8, huge.begin() + 16);
        QTest::newRow("20000x20000")
            << QByteArray(reinterpret_cast<const char*>(huge.data()), static_cast<int>(huge.size()))
            << "20000×20000 is larger than the 100-megapixel limit";
        // The largest size a PNG header can claim: refused without overflowing the product.
        auto widest = encodePng(pattern(8, 8, 3));
        std::fill(widest.begin() + 16, widest.begin() + 24, 0xFF);
        QTest::newRow("4294967295x4294967295")
            << QByteArray(reinterpret_cast<const char*>(widest.data()), static_cast<int>(widest.size()))
            << "4294967295×4294967295 is larger than the 100-megapixel limit";
        // A BMP whose header gives negative sides: corrupt, not "too large".
        std::vector<std::uint8_t> bmp;
        const auto img = pattern(4, 4, 3);
        stbi_write_bmp_to_func(
            [](void* ctx, void* data, int size) {
                auto* v = static_cast<std::vector<std::uint8_t>*>(ctx);
                v->insert(v->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
            },
            &bmp, img.width, img.height, img.channels, img.pixels.data());
        const std::uint8_t sides[8] = {0xFB, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0x80};  // -5, INT32_MIN
        std::copy(sides, sides + 8, bmp.begin() + 18);
        QTest::newRow("bmp negative sides")
            << QByteArray(reinterpret_cast<const char*>(bmp.data()), static_cast<int>(bmp.size()))
            << "impossible size";
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
            // Plain words: no decoder tag such as "(outofdata)" or "(bad zlib header)".
            static const QRegularExpression tag(QStringLiteral(R"(\((?:[a-z]+|bad [^)]*)\))"));
            QVERIFY2(!tag.match(message).hasMatch(), qPrintable(message));
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

    // Shrinking averages; the alpha-weighted filter keeps a transparent pixel's colour (here a
    // green that no one sees) out of the visible red it is averaged with.
    void resizeAveragesAndKeepsHiddenColourOut() {
        Image strip(4, 2, 4);
        for (int y = 0; y < 2; ++y)
            for (int x = 0; x < 4; ++x) {
                auto* p = strip.at(x, y);
                const bool visible = x < 2;
                p[0] = visible ? 200 : 0;
                p[1] = visible ? 0 : 255;
                p[2] = 0;
                p[3] = visible ? 255 : 0;
            }
        const auto half = resizeImage(strip, 2, 1);
        QCOMPARE(half.width, 2);
        QCOMPARE(half.height, 1);
        QCOMPARE(half.channels, 4);
        QCOMPARE(int(half.at(0, 0)[0]), 200);
        QCOMPARE(int(half.at(0, 0)[3]), 255);
        QCOMPARE(int(half.at(1, 0)[3]), 0);
        const auto one = resizeImage(strip, 1, 1);
        QVERIFY(std::abs(int(one.at(0, 0)[3]) - 128) <= 1);  // half the pixels are visible
        QVERIFY(std::abs(int(one.at(0, 0)[0]) - 200) <= 2);  // and all of them red
        QVERIFY(one.at(0, 0)[1] <= 2);                       // no hidden green in the mix

        const auto grown = resizeImage(pattern(8, 6, 3), 32, 24);
        QCOMPARE(grown.width, 32);
        QCOMPARE(grown.height, 24);
        QCOMPARE(grown.pixels.size(), std::size_t(32 * 24 * 3));

        QVERIFY_THROWS_EXCEPTION(ImageError, resizeImage(strip, 0, 4));
        QVERIFY_THROWS_EXCEPTION(ImageError, resizeImage(strip, -3, 4));
        QVERIFY_THROWS_EXCEPTION(ImageError, resizeImage(strip, 100'000, 100'000));  // 10 gigapixels
        QVERIFY_THROWS_EXCEPTION(ImageError, resizeImage(Image(), 4, 4));
    }
};

QTEST_APPLESS_MAIN(TestImage)
#include "test_image.moc"
