// Test helper: allocates and touches memory step by step, like a run whose working set grows.
//   guard_test_hog STEP_MIB STEP_MS MAX_MIB
// Sleeps when MAX_MIB is reached (until killed).
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s STEP_MIB STEP_MS MAX_MIB\n", argv[0]);
        return 2;
    }
    const long step = std::atol(argv[1]);
    const long ms = std::atol(argv[2]);
    const long max = std::atol(argv[3]);
    std::vector<std::vector<char>> blocks;
    for (long held = 0; held + step <= max; held += step) {
        blocks.emplace_back(static_cast<std::size_t>(step) << 20, '\1');  // touched: resident
        std::this_thread::sleep_for(std::chrono::milliseconds(ms));
    }
    std::this_thread::sleep_for(std::chrono::seconds(60));
    return blocks.empty() ? 1 : 0;
}
