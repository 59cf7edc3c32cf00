// A memory hog for the guard's tests, in the style of systemd's oomd test: it grows in steps of
// real, touched memory and says when each step was in place, then holds what it has.
//
//   guard_test_hog --step-mb 128 --steps 32 --every 0.1 [--log hog.log] [--cgroup DIR]
//
// Each line of the log is "STEP TOTAL_MB MONOTONIC_NS", written once the step's pages are touched
// (CLOCK_MONOTONIC, which a test's std::chrono::steady_clock reads too). --cgroup: join that
// cgroup (write our pid to DIR/cgroup.procs) before the first step, so a cgroup's memory limit
// pushes the growth into swap. Ends only by a signal. Exit 2 on bad flags, 1 when it cannot
// join the cgroup or write the log.
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <string>
#include <vector>

#include <unistd.h>

namespace {

long long monotonicNs() {
    timespec ts{};
    ::clock_gettime(CLOCK_MONOTONIC, &ts);
    return static_cast<long long>(ts.tv_sec) * 1000000000LL + ts.tv_nsec;
}

int usage(const char* why) {
    std::fprintf(stderr, "guard_test_hog: %s\nusage: guard_test_hog --step-mb N --steps K --every SECONDS [--log FILE] [--cgroup DIR]\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    long stepMb = 0;
    long steps = 0;
    double every = -1;
    std::string log;
    std::string cgroup;
    for (int i = 1; i + 1 < argc; i += 2) {
        const std::string flag = argv[i];
        const char* value = argv[i + 1];
        if (flag == "--step-mb") stepMb = std::atol(value);
        else if (flag == "--steps") steps = std::atol(value);
        else if (flag == "--every") every = std::atof(value);
        else if (flag == "--log") log = value;
        else if (flag == "--cgroup") cgroup = value;
        else return usage(("unknown flag " + flag).c_str());
    }
    if (argc % 2 == 0) return usage("every flag takes a value");
    if (stepMb <= 0 || steps <= 0 || every < 0) return usage("missing or bad flag");

    if (!cgroup.empty()) {
        FILE* procs = std::fopen((cgroup + "/cgroup.procs").c_str(), "w");
        if (!procs || std::fprintf(procs, "%d\n", static_cast<int>(::getpid())) < 0 || std::fclose(procs) != 0) {
            std::fprintf(stderr, "guard_test_hog: cannot join cgroup %s: %s\n", cgroup.c_str(), std::strerror(errno));
            return 1;
        }
    }
    FILE* out = log.empty() ? nullptr : std::fopen(log.c_str(), "w");
    if (!log.empty() && !out) {
        std::fprintf(stderr, "guard_test_hog: cannot write %s: %s\n", log.c_str(), std::strerror(errno));
        return 1;
    }
    const std::size_t stepBytes = static_cast<std::size_t>(stepMb) << 20;
    std::vector<char*> held;
    for (long k = 1; k <= steps; ++k) {
        char* block = static_cast<char*>(std::malloc(stepBytes));
        if (!block) break;                                // nothing more to get: hold what we have
        std::memset(block, static_cast<int>(k), stepBytes);  // touched: resident, not the zero page
        held.push_back(block);
        if (out) {
            std::fprintf(out, "%ld %ld %lld\n", k, k * stepMb, monotonicNs());
            std::fflush(out);
        }
        if (every > 0) ::usleep(static_cast<useconds_t>(every * 1e6));
    }
    for (;;) ::pause();
}
