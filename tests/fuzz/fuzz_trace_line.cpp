// One trace line, as the generator runner's follower reads a command's trace while it grows:
// parsed, or refused with TraceLineError.
#include <string_view>

#include "guard/trace/trace_reader.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    try {
        const auto line =
            stageload::parseTraceLine({reinterpret_cast<const char*>(data), size});
        if (line.kind == stageload::TraceLine::Kind::Sample) {
            FUZZ_CHECK(line.sample.footprint >= 0 && line.sample.swapUsed >= 0);
            FUZZ_CHECK(line.sample.available >= 0);
        }
        if (line.kind == stageload::TraceLine::Kind::Event) FUZZ_CHECK(line.event.nbytes >= 0);
    } catch (const stageload::TraceLineError&) {
    }
    return 0;
}
