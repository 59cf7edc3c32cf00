#include "engine/media/image.h"

#include <stb_image.h>
#include <stb_image_resize.h>
#include <stb_image_write.h>
#include <turbojpeg.h>
#include <webp/decode.h>

#include <cstring>
#include <fstream>
#include <memory>
#include <optional>

#include "guard/base/atomic_file.h"

namespace stageload {
namespace {

constexpr const char* kFormats = "PNG, JPEG, WebP, BMP, TGA or GIF";

std::string megapixels(std::int64_t pixels) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.0f", static_cast<double>(pixels) / 1e6);
    return buf;
}

// Refuses a picture whose header gives impossible sides or more pixels than the limit. The sides
// are compared one at a time first, so the product cannot overflow.
void refuseSize(const std::string& name, std::int64_t w, std::int64_t h, const ImageLimits& limits) {
    if (w <= 0 || h <= 0)
        throw ImageError(name + ": the header gives an impossible size (" + std::to_string(w) + "×" +
                         std::to_string(h) + "); the file is corrupt, re-export the picture");
    if (w > limits.maxPixels || h > limits.maxPixels || w * h > limits.maxPixels)
        throw ImageError(name + ": " + std::to_string(w) + "×" + std::to_string(h) + " is larger than the " +
                         megapixels(limits.maxPixels) +
                         "-megapixel limit; scale it down first (4096 pixels on the long side is plenty)");
}

// stb_image gives its reasons as terse tags ("outofdata", "bad zlib header"); an artist reads
// plain words instead. A tag with nothing to add beyond "corrupt" gives "" (the caller's
// message already says it).
std::string plainReason(const char* tag) {
    const std::string t = tag ? tag : "";
    if (t == "outofdata" || t == "read past buffer" || t == "not enough pixels" || t == "no IDAT")
        return " (the file ends before the picture does)";
    if (t == "outofmem") return " (out of memory while decoding)";
    if (t == "too large") return " (its sides are too large to decode)";
    if (t == "unknown image type") return " (not a format Stageload recognises)";
    if (t == "1/2/4/8/16-bit only" || t == "only 8-bit" || t == "no header height")
        return " (a variant of the format Stageload cannot read)";
    return {};
}

bool startsWith(std::span<const std::uint8_t> b, std::size_t at, const char* magic) {
    const auto n = std::strlen(magic);
    return b.size() >= at + n && std::memcmp(b.data() + at, magic, n) == 0;
}

std::string formatOf(std::span<const std::uint8_t> b) {
    if (startsWith(b, 0, "\x89PNG")) return "png";
    if (b.size() >= 3 && b[0] == 0xFF && b[1] == 0xD8 && b[2] == 0xFF) return "jpeg";
    if (startsWith(b, 0, "RIFF") && startsWith(b, 8, "WEBP")) return "webp";
    if (startsWith(b, 0, "GIF8")) return "gif";
    if (startsWith(b, 0, "BM")) return "bmp";
    return "other";
}

std::uint32_t readU16(const std::uint8_t* p, bool le) {
    return le ? p[0] | (p[1] << 8) : (p[0] << 8) | p[1];
}
std::uint32_t readU32(const std::uint8_t* p, bool le) {
    return le ? p[0] | (p[1] << 8) | (p[2] << 16) | (std::uint32_t(p[3]) << 24)
              : (std::uint32_t(p[0]) << 24) | (p[1] << 16) | (p[2] << 8) | p[3];
}

// What the EXIF block says about orientation: a value 1..8, or that it cannot be trusted.
struct Orientation {
    int value = 1;
    bool corrupt = false;
};
constexpr Orientation kCorrupt{1, true};

// The Orientation tag (0x0112) of IFD0 in a TIFF-structured EXIF block. Every read is checked
// against the block's end in 64-bit arithmetic, so no offset in the file can point outside it.
Orientation tiffOrientation(std::span<const std::uint8_t> t) {
    if (t.size() < 8) return kCorrupt;
    const bool le = t[0] == 'I' && t[1] == 'I';
    if (!le && !(t[0] == 'M' && t[1] == 'M')) return kCorrupt;
    const std::uint64_t ifd = readU32(t.data() + 4, le);
    if (ifd + 2 > t.size()) return kCorrupt;
    const std::uint64_t count = readU16(t.data() + ifd, le);
    for (std::uint64_t i = 0; i < count; ++i) {
        const std::uint64_t entry = ifd + 2 + 12 * i;
        if (entry + 12 > t.size()) return kCorrupt;
        if (readU16(t.data() + entry, le) == 0x0112) {
            const auto v = static_cast<int>(readU16(t.data() + entry + 8, le));
            return v >= 1 && v <= 8 ? Orientation{v, false} : kCorrupt;
        }
    }
    return {};
}

// EXIF orientation of a JPEG (APP1 "Exif") or a PNG (eXIf chunk); 1 when there is none.
Orientation exifOrientation(std::span<const std::uint8_t> b, const std::string& format) {
    if (format == "jpeg") {
        std::size_t at = 2;
        while (at + 4 <= b.size() && b[at] == 0xFF) {
            const auto marker = b[at + 1];
            if (marker == 0xDA || marker == 0xD9) break;  // image data: no more headers
            const std::size_t length = readU16(b.data() + at + 2, false);
            if (length < 2 || at + 2 + length > b.size()) break;
            if (marker == 0xE1 && startsWith(b, at + 4, "Exif")) {
                // "Exif\0\0" (6 bytes) after the 2 length bytes, then the TIFF block.
                if (length < 8) return kCorrupt;
                return tiffOrientation(b.subspan(at + 10, length - 8));
            }
            at += 2 + length;
        }
    } else if (format == "png") {
        std::size_t at = 8;
        while (at + 12 <= b.size()) {
            const std::size_t length = readU32(b.data() + at, false);
            if (at + 12 + length > b.size()) break;
            if (startsWith(b, at + 4, "eXIf")) return tiffOrientation(b.subspan(at + 8, length));
            if (startsWith(b, at + 4, "IDAT")) break;  // eXIf must come before the pixels
            at += 12 + length;
        }
    }
    return {};
}

DecodedImage decodeWebp(std::span<const std::uint8_t> b, const std::string& name,
                        const ImageLimits& limits) {
    WebPBitstreamFeatures features;
    if (WebPGetFeatures(b.data(), b.size(), &features) != VP8_STATUS_OK)
        throw ImageError(name + ": the WebP data is corrupt or truncated; re-export the picture");
    refuseSize(name, features.width, features.height, limits);
    DecodedImage d;
    d.format = "webp";
    d.hasAlpha = features.has_alpha;
    d.image = Image(features.width, features.height, 4);
    if (!WebPDecodeRGBAInto(b.data(), b.size(), d.image.pixels.data(), d.image.pixels.size(),
                            features.width * 4))
        throw ImageError(name + ": the WebP data is corrupt or truncated; re-export the picture");
    return d;
}

// Turns `d` upright as its EXIF orientation says, or tells why it cannot.
void applyExif(DecodedImage& d, std::span<const std::uint8_t> bytes) {
    const auto orientation = exifOrientation(bytes, d.format);
    d.orientation = orientation.value;
    if (orientation.corrupt)
        d.notices.push_back("the picture's orientation data (EXIF) is corrupt; it is used "
                            "unrotated, as stored");
    if (d.orientation != 1) d.image = applyOrientation(d.image, d.orientation);
}

// JPEG goes through libjpeg-turbo, not stb: a corrupt Huffman stream makes stb_image as Debian
// builds it fail an assertion and abort the program; libjpeg-turbo reports an error instead.
DecodedImage decodeJpeg(std::span<const std::uint8_t> b, const std::string& name,
                        const ImageLimits& limits) {
    const auto corrupt = [&](tjhandle h) {
        return ImageError(name + ": the JPEG data is corrupt or truncated (" + tjGetErrorStr2(h) +
                          "); re-export the picture");
    };
    std::unique_ptr<void, int (*)(tjhandle)> handle(tjInitDecompress(), tjDestroy);
    if (!handle) throw ImageError(name + ": the JPEG decoder could not start (out of memory?)");
    tjhandle h = handle.get();
    int w = 0, h0 = 0, subsampling = 0, colorspace = 0;
    if (b.size() > std::size_t(std::numeric_limits<unsigned long>::max())) throw corrupt(h);
    // A warning (stray bytes before a marker, a lying segment length) still gives a picture.
    std::vector<std::string> flaws;
    const auto flawed = [&] {
        if (tjGetErrorCode(h) != TJERR_WARNING) return false;
        flaws.emplace_back(tjGetErrorStr2(h));
        return true;
    };
    if (tjDecompressHeader3(h, b.data(), static_cast<unsigned long>(b.size()), &w, &h0,
                            &subsampling, &colorspace) != 0 &&
        !flawed())
        throw corrupt(h);
    // A header cut off before its size gives 0×0: a truncated file, not an impossible size.
    if (w <= 0 || h0 <= 0)
        throw ImageError(name + ": the JPEG data is corrupt or truncated (no picture size in its "
                                "header); re-export the picture");
    refuseSize(name, w, h0, limits);
    const bool cmyk = colorspace == TJCS_CMYK || colorspace == TJCS_YCCK;
    DecodedImage d;
    d.format = "jpeg";
    d.image = Image(w, h0, 4);
    // CMYK (as Photoshop writes it: inverted) is decoded as such and turned into RGB here.
    if (tjDecompress2(h, b.data(), static_cast<unsigned long>(b.size()), d.image.pixels.data(), w,
                      w * 4, h0, cmyk ? TJPF_CMYK : TJPF_RGBA, 0) != 0 &&
        !flawed())
        throw corrupt(h);
    if (!flaws.empty())
        d.notices.push_back("the JPEG data has a flaw (" + flaws.front() +
                            "); parts of the picture may look damaged");
    if (cmyk) {
        for (std::size_t i = 0; i < d.image.pixels.size(); i += 4) {
            auto* p = d.image.pixels.data() + i;
            const unsigned k = p[3];
            p[0] = static_cast<std::uint8_t>(p[0] * k / 255);
            p[1] = static_cast<std::uint8_t>(p[1] * k / 255);
            p[2] = static_cast<std::uint8_t>(p[2] * k / 255);
            p[3] = 255;
        }
    }
    return d;
}

}  // namespace

Image applyOrientation(const Image& in, int orientation) {
    if (orientation <= 1 || orientation > 8) return in;
    const bool swap = orientation >= 5;  // 5..8 rotate by 90°
    Image out(swap ? in.height : in.width, swap ? in.width : in.height, in.channels);
    for (int y = 0; y < out.height; ++y) {
        for (int x = 0; x < out.width; ++x) {
            int sx = x, sy = y;  // where out(x, y) comes from in the stored picture
            switch (orientation) {
            case 2: sx = in.width - 1 - x; break;
            case 3: sx = in.width - 1 - x; sy = in.height - 1 - y; break;
            case 4: sy = in.height - 1 - y; break;
            case 5: sx = y; sy = x; break;
            case 6: sx = y; sy = in.height - 1 - x; break;
            case 7: sx = in.width - 1 - y; sy = in.height - 1 - x; break;
            case 8: sx = in.width - 1 - y; sy = x; break;
            }
            std::memcpy(out.at(x, y), in.at(sx, sy), std::size_t(in.channels));
        }
    }
    return out;
}

DecodedImage decodeImage(std::span<const std::uint8_t> bytes, const std::string& name,
                         const ImageLimits& limits) {
    if (bytes.empty()) throw ImageError(name + ": the file is empty (0 bytes); choose a picture");
    const auto format = formatOf(bytes);
    if (format == "webp") return decodeWebp(bytes, name, limits);
    if (format == "jpeg") {
        auto d = decodeJpeg(bytes, name, limits);
        applyExif(d, bytes);
        return d;
    }
    if (bytes.size() > std::size_t(std::numeric_limits<int>::max()))
        throw ImageError(name + ": the file is too large to be a picture Stageload can read");
    const auto size = static_cast<int>(bytes.size());
    // PNG's size is in its header; stb refuses pictures over 1 GiB without saying their size.
    if (format == "png" && bytes.size() >= 24 && startsWith(bytes, 12, "IHDR"))
        refuseSize(name, readU32(bytes.data() + 16, false), readU32(bytes.data() + 20, false), limits);
    int w = 0, h = 0, channels = 0;
    if (!stbi_info_from_memory(bytes.data(), size, &w, &h, &channels))
        throw ImageError(name + ": not a picture Stageload can read" + plainReason(stbi_failure_reason()) +
                         "; use a " + kFormats + " file");
    refuseSize(name, w, h, limits);
    int dw = 0, dh = 0, dc = 0;
    std::unique_ptr<stbi_uc, void (*)(void*)> pixels(
        stbi_load_from_memory(bytes.data(), size, &dw, &dh, &dc, 4), stbi_image_free);
    if (!pixels)
        throw ImageError(name + ": the " + format + " data is corrupt or truncated" +
                         plainReason(stbi_failure_reason()) + "; re-export the picture");
    DecodedImage d;
    d.format = format;
    d.hasAlpha = dc == 2 || dc == 4;
    d.image = Image(dw, dh, 4);
    std::memcpy(d.image.pixels.data(), pixels.get(), d.image.pixels.size());
    applyExif(d, bytes);
    return d;
}

DecodedImage readImageFile(const std::filesystem::path& path, const ImageLimits& limits) {
    const auto name = path.string();
    std::error_code ec;
    if (!std::filesystem::exists(path, ec))
        throw MissingImageError(name + ": no such file; check the path");
    if (std::filesystem::is_directory(path, ec))
        throw ImageError(name + ": is a folder, not a picture");
    std::ifstream in(path, std::ios::binary);
    if (!in) throw ImageError(name + ": cannot be opened (" + std::strerror(errno) + ")");
    std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                    std::istreambuf_iterator<char>());
    if (in.bad()) throw ImageError(name + ": reading failed (" + std::strerror(errno) + ")");
    return decodeImage(bytes, name, limits);
}

std::optional<ImageSize> readImageSize(const std::filesystem::path& path) noexcept {
    try {
        // Headers are at the start: 64 KiB holds any of them, EXIF and ICC blocks included.
        std::ifstream in(path, std::ios::binary);
        std::vector<std::uint8_t> head(64 * 1024);
        in.read(reinterpret_cast<char*>(head.data()), std::streamsize(head.size()));
        head.resize(std::size_t(in.gcount()));
        if (head.empty()) return std::nullopt;
        int w = 0, h = 0, channels = 0;
        const auto format = formatOf(head);
        if (format == "webp") {
            if (!WebPGetInfo(head.data(), head.size(), &w, &h)) return std::nullopt;
        } else if (format == "jpeg") {
            std::unique_ptr<void, int (*)(tjhandle)> tj(tjInitDecompress(), tjDestroy);
            int subsampling = 0, colorspace = 0;
            if (!tj || (tjDecompressHeader3(tj.get(), head.data(), static_cast<unsigned long>(head.size()), &w,
                                            &h, &subsampling, &colorspace) != 0 &&
                        tjGetErrorCode(tj.get()) != TJERR_WARNING))
                return std::nullopt;
        } else if (!stbi_info_from_memory(head.data(), static_cast<int>(head.size()), &w, &h, &channels)) {
            return std::nullopt;
        }
        if (w <= 0 || h <= 0) return std::nullopt;
        return ImageSize{w, h};
    } catch (...) {
        return std::nullopt;
    }
}

std::vector<std::uint8_t> encodePng(const Image& image) {
    if (image.empty() || (image.channels != 1 && image.channels != 3 && image.channels != 4))
        throw ImageError("encodePng: needs a non-empty 1-, 3- or 4-channel image");
    std::vector<std::uint8_t> out;
    auto append = [](void* context, void* data, int size) {
        auto* o = static_cast<std::vector<std::uint8_t>*>(context);
        o->insert(o->end(), static_cast<std::uint8_t*>(data), static_cast<std::uint8_t*>(data) + size);
    };
    if (!stbi_write_png_to_func(append, &out, image.width, image.height, image.channels,
                                image.pixels.data(), image.width * image.channels))
        throw ImageError("encodePng: the PNG encoder failed");
    return out;
}

void writePngFile(const std::filesystem::path& path, const Image& image) {
    const auto png = encodePng(image);
    writeFileAtomically(path, std::string_view(reinterpret_cast<const char*>(png.data()), png.size()));
}

Image toRgb(const Image& image) {
    if (image.empty() || image.channels == 3) return image;
    Image rgb(image.width, image.height, 3);
    const std::size_t n = std::size_t(image.width) * image.height;
    for (std::size_t i = 0; i < n; ++i)
        for (int c = 0; c < 3; ++c)
            rgb.pixels[3 * i + c] =
                image.pixels[i * image.channels + (image.channels >= 3 ? c : 0)];
    return rgb;
}

Image resizeImage(const Image& image, int width, int height) {
    if (image.empty()) throw ImageError("cannot resize an empty picture");
    if (width < 1 || height < 1)
        throw ImageError("cannot resize a picture to " + std::to_string(width) + "×" +
                         std::to_string(height) + " pixels: both sides must be at least 1");
    refuseSize("the resized picture", width, height, ImageLimits{});  // no 40 GB allocation
    Image out(width, height, image.channels);
    const int alpha = image.channels == 4 ? 3 : STBIR_ALPHA_CHANNEL_NONE;
    // Per axis: the area average when shrinking (no ringing, as resizeTensor), bilinear when
    // growing.
    const auto filter = [](int from, int to) { return to < from ? STBIR_FILTER_BOX : STBIR_FILTER_TRIANGLE; };
    const int ok = stbir_resize(image.pixels.data(), image.width, image.height, 0, out.pixels.data(),
                                width, height, 0, STBIR_TYPE_UINT8, image.channels, alpha, 0,
                                STBIR_EDGE_CLAMP, STBIR_EDGE_CLAMP, filter(image.width, width),
                                filter(image.height, height), STBIR_COLORSPACE_LINEAR, nullptr);
    if (!ok) throw ImageError("cannot resize the picture: out of memory");
    return out;
}

}  // namespace stageload
