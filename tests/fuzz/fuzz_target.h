#pragma once
// The entry point every fuzz target defines, as libFuzzer calls it. Built with STAGELOAD_FUZZ
// it is linked with libFuzzer; otherwise with replay_main.cpp, which feeds it files and seeded
// mutations of them (the CTest entries). A target returns normally for any input the parser
// accepts or refuses with its own typed error; any other exception, crash or FUZZ_CHECK failure
// is a bug.

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

/// A property every accepted input must have; a violation aborts, as a crash would.
#define FUZZ_CHECK(cond)                                                                   \
    do {                                                                                   \
        if (!(cond)) {                                                                     \
            std::fprintf(stderr, "%s:%d: FUZZ_CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            std::abort();                                                                  \
        }                                                                                  \
    } while (false)
