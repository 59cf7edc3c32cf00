#pragma once
// Pictures in and out: decoding what artists hand us (PNG, JPEG, WebP, BMP, TGA, GIF) the way
// they see it (EXIF orientation applied), and encoding PNG with deterministic bytes. JPEG is
// decoded by libjpeg-turbo, the other formats by stb_image and libwebp.
//
//   auto in = stageload::readImageFile("hero.jpg");       // RGBA, upright
//   if (in.hasAlpha) { ... }                               // the file had an alpha channel
//   stageload::writePngFile("atlas.png", atlas);           // temp file, then rename
//
// No Torch and no Qt here: the UI includes this header.

#include <cstdint>
#include <filesystem>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "guard/base/error.h"

namespace stageload {

/// 8-bit pixels, interleaved, rows top to bottom. channels: 1 (gray/mask), 3 (RGB), 4 (RGBA).
struct Image {
    int width = 0;
    int height = 0;
    int channels = 0;
    std::vector<std::uint8_t> pixels;

    Image() = default;
    Image(int w, int h, int c) : width(w), height(h), channels(c), pixels(std::size_t(w) * h * c) {}
    bool empty() const { return pixels.empty(); }
    std::uint8_t* at(int x, int y) { return pixels.data() + (std::size_t(y) * width + x) * channels; }
    const std::uint8_t* at(int x, int y) const {
        return pixels.data() + (std::size_t(y) * width + x) * channels;
    }
};

/// A picture that cannot be read or written. The message names the file, says what is wrong
/// and what to do.
class ImageError : public FileError {
public:
    using FileError::FileError;
};

/// The picture's file does not exist (a CLI exits 66 for it, not 65).
class MissingImageError : public ImageError {
public:
    using ImageError::ImageError;
};

struct ImageLimits {
    /// Larger pictures are refused before their pixels are decoded (a 20000×20000 PNG would
    /// take 1.6 GB as RGBA).
    std::int64_t maxPixels = 100'000'000;
};

struct DecodedImage {
    Image image;             ///< always RGBA, upright
    bool hasAlpha = false;   ///< the file had an alpha channel (it may still be all opaque)
    std::string format;      ///< "png", "jpeg", "webp", ...
    int orientation = 1;     ///< the EXIF orientation that was applied (1 = none)
    /// What the user should know about the file although it decoded (e.g. corrupt EXIF).
    std::vector<std::string> notices;
};

/// Decodes `bytes`; `name` is used in messages. ImageError for empty, unknown, corrupt,
/// truncated or too large pictures.
DecodedImage decodeImage(std::span<const std::uint8_t> bytes, const std::string& name,
                         const ImageLimits& limits = {});

/// Reads and decodes a file. ImageError also for missing or unreadable files.
DecodedImage readImageFile(const std::filesystem::path& path, const ImageLimits& limits = {});

struct ImageSize {
    int width = 0;
    int height = 0;
};
/// The picture's size as stored (before EXIF rotation), from its header alone; nullopt when
/// the file cannot be read or is not a picture. Never throws.
std::optional<ImageSize> readImageSize(const std::filesystem::path& path) noexcept;

/// PNG bytes of `image` (1, 3 or 4 channels). Same pixels, same bytes.
std::vector<std::uint8_t> encodePng(const Image& image);

/// Writes `image` as PNG through a temporary file renamed into place (AtomicWriteError).
void writePngFile(const std::filesystem::path& path, const Image& image);

/// The image as RGB: grey is spread to three channels, alpha dropped (an empty image stays empty).
Image toRgb(const Image& image);

/// The image with EXIF orientation `orientation` (1..8) undone, so it shows upright.
Image applyOrientation(const Image& image, int orientation);

/// The image scaled to `width`×`height` (each ≥ 1): shrinking averages the area each new pixel
/// covers, growing interpolates bilinearly; with 4 channels the colours are weighted by alpha, so transparent
/// pixels do not bleed into the edge. ImageError for a size under 1 or over ImageLimits' pixels,
/// or an empty image.
Image resizeImage(const Image& image, int width, int height);

}  // namespace stageload
