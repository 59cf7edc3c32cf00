// Runs a fuzz target without libFuzzer: every file given (folders: every file in them, sorted),
// then, with --mutations N, N seeded mutations of each. Deterministic: the same files give the
// same inputs on every machine, so a CTest run that fails fails again.
//
//   fuzz_trace corpus/fuzz_trace crashers/fuzz_trace --mutations 200
//
// Options libFuzzer takes (-runs=0, -max_total_time=...) are ignored, so one command line
// works for both builds. On a crash the input that caused it is written to ./crash-input and
// its origin printed; exit 0 when every input ran, 1 on an exception no parser should throw,
// 2 on bad arguments.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <exception>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "tests/fuzz/fuzz_target.h"

namespace {

namespace fs = std::filesystem;

// What is running now, for the crash handler (only async-signal-safe calls read these).
const std::uint8_t* gData = nullptr;
std::size_t gSize = 0;
char gOrigin[512] = "";

void onCrash(int sig) {
    const int fd = ::open("crash-input", O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd >= 0) {
        for (std::size_t done = 0; done < gSize;) {
            const ssize_t n = ::write(fd, gData + done, gSize - done);
            if (n <= 0) break;
            done += std::size_t(n);
        }
        ::close(fd);
    }
    const char head[] = "\nfuzz replay: crashed on ";
    const char tail[] = " (input written to ./crash-input)\n";
    [[maybe_unused]] auto r = ::write(2, head, sizeof head - 1);
    r = ::write(2, gOrigin, std::strlen(gOrigin));
    r = ::write(2, tail, sizeof tail - 1);
    std::signal(sig, SIG_DFL);
    std::raise(sig);
}

// splitmix64: small, fast and the same everywhere.
struct Rng {
    std::uint64_t state;
    std::uint64_t next() {
        std::uint64_t z = (state += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    std::size_t below(std::size_t n) { return n ? std::size_t(next() % n) : 0; }
};

// Numbers that break parsers: at and past every integer width, and texts that overflow.
constexpr std::uint32_t kInterestingWords[] = {0, 1, 0x7f, 0x80, 0xff, 0x7fff, 0x8000, 0xffff,
                                               0x7fffffff, 0x80000000, 0xfffffffe, 0xffffffff};
const char* const kInterestingTexts[] = {"1e400", "-1e400", "98e6271232", "9223372036854775808",
                                         "18446744073709551616", "-1", "1e19", "NaN", "-0",
                                         "4611686018427387904", "{", "\"", "[]", "null"};

void mutate(std::vector<std::uint8_t>& b, Rng& rng) {
    const int steps = 1 + int(rng.below(4));
    for (int s = 0; s < steps; ++s) {
        switch (rng.below(7)) {
            case 0:  // flip a bit
                if (!b.empty()) b[rng.below(b.size())] ^= std::uint8_t(1u << rng.below(8));
                break;
            case 1:  // an extreme byte
                if (!b.empty()) b[rng.below(b.size())] = std::uint8_t(kInterestingWords[rng.below(5)]);
                break;
            case 2: {  // an extreme 32-bit word, either byte order
                if (b.size() < 4) break;
                const std::uint32_t w = kInterestingWords[rng.below(std::size(kInterestingWords))];
                const std::size_t at = rng.below(b.size() - 3);
                const bool le = rng.below(2);
                for (int i = 0; i < 4; ++i) b[at + i] = std::uint8_t(w >> (8 * (le ? i : 3 - i)));
                break;
            }
            case 3:  // cut the end off
                b.resize(rng.below(b.size() + 1));
                break;
            case 4: {  // repeat a chunk
                if (b.empty()) break;
                const std::size_t at = rng.below(b.size());
                const std::size_t n = std::min<std::size_t>(1 + rng.below(64), b.size() - at);
                const std::vector<std::uint8_t> chunk(b.begin() + at, b.begin() + at + n);
                b.insert(b.begin() + rng.below(b.size() + 1), chunk.begin(), chunk.end());
                break;
            }
            case 5: {  // a number in text replaced by one that does not fit
                std::vector<std::size_t> digits;
                for (std::size_t i = 0; i < b.size(); ++i)
                    if (b[i] >= '0' && b[i] <= '9' && (i == 0 || b[i - 1] < '0' || b[i - 1] > '9'))
                        digits.push_back(i);
                if (digits.empty()) break;
                std::size_t at = digits[rng.below(digits.size())], end = at;
                while (end < b.size() && ((b[end] >= '0' && b[end] <= '9') || b[end] == '.')) ++end;
                const std::string text = kInterestingTexts[rng.below(std::size(kInterestingTexts))];
                b.erase(b.begin() + at, b.begin() + end);
                b.insert(b.begin() + at, text.begin(), text.end());
                break;
            }
            case 6:  // drop a byte
                if (!b.empty()) b.erase(b.begin() + rng.below(b.size()));
                break;
        }
    }
}

bool run(const std::vector<std::uint8_t>& input, const std::string& origin) {
    gData = input.data();
    gSize = input.size();
    std::snprintf(gOrigin, sizeof gOrigin, "%s", origin.c_str());
    try {
        LLVMFuzzerTestOneInput(input.data(), input.size());
        return true;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "fuzz replay: %s: uncaught exception: %s\n", origin.c_str(), e.what());
    } catch (...) {
        std::fprintf(stderr, "fuzz replay: %s: uncaught exception of an unknown type\n", origin.c_str());
    }
    return false;
}

}  // namespace

int main(int argc, char** argv) {
    int mutations = 0;
    std::vector<fs::path> files;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--mutations" && i + 1 < argc) {
            mutations = std::atoi(argv[++i]);
        } else if (!arg.empty() && arg[0] == '-') {
            continue;  // a libFuzzer option
        } else if (fs::is_directory(arg)) {
            std::vector<fs::path> inDir;
            for (const auto& e : fs::recursive_directory_iterator(arg))
                if (e.is_regular_file()) inDir.push_back(e.path());
            std::sort(inDir.begin(), inDir.end());
            files.insert(files.end(), inDir.begin(), inDir.end());
        } else if (fs::is_regular_file(arg)) {
            files.emplace_back(arg);
        } else {
            std::fprintf(stderr, "fuzz replay: %s: no such file or folder\n", arg.c_str());
            return 2;
        }
    }
    if (files.empty()) {
        std::fprintf(stderr, "usage: %s FILE-OR-FOLDER... [--mutations N]\n", argv[0]);
        return 2;
    }
    for (int sig : {SIGSEGV, SIGABRT, SIGBUS, SIGFPE, SIGILL}) std::signal(sig, onCrash);

    int failed = 0;
    long inputs = 0;
    for (std::size_t f = 0; f < files.size(); ++f) {
        std::ifstream in(files[f], std::ios::binary);
        const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                              std::istreambuf_iterator<char>());
        failed += !run(bytes, files[f].string());
        ++inputs;
        // Seeded by the file's name: adding a file leaves the others' mutations as they were.
        std::uint64_t seed = 0xcbf29ce484222325ull;  // FNV-1a
        for (const char c : files[f].filename().string()) seed = (seed ^ std::uint8_t(c)) * 0x100000001b3ull;
        Rng rng{seed};
        for (int m = 0; m < mutations; ++m) {
            std::vector<std::uint8_t> mutated = bytes;
            mutate(mutated, rng);
            failed += !run(mutated, files[f].string() + " mutation " + std::to_string(m));
            ++inputs;
        }
    }
    std::printf("%ld inputs from %zu files: %ld passed, %d failed\n", inputs, files.size(),
                inputs - failed, failed);
    return failed ? 1 : 0;
}
