// Picture decoding, EXIF orientation included: refused with ImageError or decoded upright.
#include "engine/media/image.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    // A small pixel limit keeps each input fast; the size checks are the same at any limit.
    const stageload::ImageLimits limits{.maxPixels = 4'000'000};
    try {
        const auto d = stageload::decodeImage({data, size}, "fuzz-input", limits);
        FUZZ_CHECK(d.image.channels == 4);
        FUZZ_CHECK(d.image.width > 0 && d.image.height > 0);
        FUZZ_CHECK(std::int64_t(d.image.width) * d.image.height <= limits.maxPixels);
        FUZZ_CHECK(d.image.pixels.size() == std::size_t(d.image.width) * d.image.height * 4);
        FUZZ_CHECK(d.orientation >= 1 && d.orientation <= 8);
    } catch (const stageload::ImageError&) {
    }
    return 0;
}
