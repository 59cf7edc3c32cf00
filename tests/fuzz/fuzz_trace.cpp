// A whole trace, as `stageload summary` and `plot` read one a killed run left behind: read,
// summarised and printed (table and JSON), or refused with TraceFormatError.
#include <sstream>
#include <string>

#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
    try {
        const auto trace = stageload::parseTrace(in, "fuzz.trace.jsonl");
        const auto summary = stageload::summarize(trace);
        FUZZ_CHECK(!summary.stages.empty());  // setup at least
        FUZZ_CHECK(summary.loadBytes >= 0 && summary.releaseBytes >= 0);
        FUZZ_CHECK(!stageload::formatTable(summary).empty());
        FUZZ_CHECK(!stageload::toJson(summary).dump().empty());
    } catch (const stageload::TraceFormatError&) {
    }
    return 0;
}
