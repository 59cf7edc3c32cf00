#include "guard/base/huge_page_malloc.h"

#include <cerrno>
#include <cstdio>
#include <cstdlib>

#include <unistd.h>

#if defined(__linux__) && defined(__GLIBC__)
#include <gnu/libc-version.h>
#endif

#include "guard/base/small_file.h"

namespace stageload {
namespace {

constexpr const char* kTunable = "glibc.malloc.hugetlb";
constexpr const char* kRestoreKey = "STAGELOAD_RELAUNCH_RESTORE";  // set only across the exec

bool glibcHasHugetlbTunable(const std::string& version) {
    int major = 0, minor = 0;
    if (std::sscanf(version.c_str(), "%d.%d", &major, &minor) != 2) return false;
    return major > 2 || (major == 2 && minor >= 35);
}

}  // namespace

std::optional<HugePageRelaunch> planHugePageRelaunch(const std::optional<std::string>& tunables,
                                                     const std::string& thpEnabled,
                                                     const std::string& glibc,
                                                     const std::optional<std::string>& optOut) {
    if (optOut && *optOut == "0") return std::nullopt;
    if (tunables && tunables->find(kTunable) != std::string::npos) return std::nullopt;
    // "[always]" or "[madvise]" is the mode in force; "[never]" or no THP at all: no gain.
    if (thpEnabled.find("[always]") == std::string::npos &&
        thpEnabled.find("[madvise]") == std::string::npos)
        return std::nullopt;
    if (!glibcHasHugetlbTunable(glibc)) return std::nullopt;
    HugePageRelaunch plan;
    const std::string ours = std::string(kTunable) + "=1";
    plan.tunables = tunables && !tunables->empty() ? *tunables + ":" + ours : ours;
    plan.restore = tunables ? *tunables : "-";
    return plan;
}

#if defined(__linux__) && defined(__GLIBC__)
namespace {

std::optional<std::string> environmentValue(const char* key) {
    const char* v = std::getenv(key);
    return v ? std::optional<std::string>(v) : std::nullopt;
}

// Execs `program` with the tunable when the plan says so; back here only when the exec failed,
// with the environment as it was.
void execPlanned(const char* program, char** argv, bool plainWithoutPlan) {
    std::string thp;
    const bool hasThp = readSmallFile("/sys/kernel/mm/transparent_hugepage/enabled", thp);
    const auto plan = hasThp ? planHugePageRelaunch(environmentValue("GLIBC_TUNABLES"), thp,
                                                    gnu_get_libc_version(), environmentValue("STAGELOAD_HUGE_PAGES"))
                             : std::nullopt;
    if (!plan) {
        if (plainWithoutPlan) ::execv(program, argv);
        return;
    }
    const auto before = environmentValue("GLIBC_TUNABLES");
    ::setenv(kRestoreKey, plan->restore.c_str(), 1);
    ::setenv("GLIBC_TUNABLES", plan->tunables.c_str(), 1);
    ::execv(program, argv);
    const int error = errno;
    ::unsetenv(kRestoreKey);
    if (before) ::setenv("GLIBC_TUNABLES", before->c_str(), 1);
    else ::unsetenv("GLIBC_TUNABLES");
    errno = error;
}

}  // namespace
#endif

bool relaunchWithHugePageMalloc(char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
    if (const char* restore = std::getenv(kRestoreKey)) {
        // The re-executed process: the tunable took effect at start-up; give children the
        // user's environment back.
        const std::string value = restore;
        if (value == "-") ::unsetenv("GLIBC_TUNABLES");
        else ::setenv("GLIBC_TUNABLES", value.c_str(), 1);
        ::unsetenv(kRestoreKey);
        return true;
    }
    if (!argv || !argv[0]) return false;
    execPlanned("/proc/self/exe", argv, false);
    return false;  // still here: no plan, or the exec failed; go on as we are
#else
    (void)argv;
    return false;
#endif
}

void execWithHugePageMalloc(const char* program, char** argv) {
#if defined(__linux__) && defined(__GLIBC__)
    execPlanned(program, argv, true);
#else
    ::execv(program, argv);
#endif
}

}  // namespace stageload
