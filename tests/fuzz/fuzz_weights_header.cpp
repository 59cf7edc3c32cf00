// Safetensors headers: refused with WeightFileError, or every tensor lies inside the file and
// holds exactly what its dtype and shape need.
#include "engine/api/errors.h"
#include "engine/api/weights_header.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto header = stageload::parseSafetensorsHeader({data, size}, size, "fuzz.safetensors");
        std::uint64_t previousEnd = 0;
        for (const auto& t : header.tensors) {
            FUZZ_CHECK(t.begin <= t.end && t.end <= size);
            std::uint64_t need = stageload::safetensorsElementSize(t.dtypeName);
            FUZZ_CHECK(need > 0);
            for (const auto n : t.shape) {
                FUZZ_CHECK(n >= 0);
                need *= std::uint64_t(n);  // the parser guarantees this cannot wrap
            }
            FUZZ_CHECK(t.nbytes() == need);
            FUZZ_CHECK(t.nbytes() == 0 || t.begin >= previousEnd);
            if (t.nbytes() > 0) previousEnd = t.end;
        }
        FUZZ_CHECK(header.dataBytes() <= size);
    } catch (const stageload::WeightFileError&) {
    }
    return 0;
}
