#include "guard/memory/process_memory.h"

#include <fstream>
#include <string>

#include "guard/base/error.h"
#include "guard/base/small_file.h"
#include "guard/memory/macos_memory.h"
#include "guard/memory/proc_fields.h"

namespace stageload {

ProcessMemory parseProcStatus(std::string_view text) {
    ProcessMemory m;
    detail::forEachField(text, [&](std::string_view key, std::string_view value) {
        if (key == "VmRSS")
            m.rss = detail::parseKbValue(value);
        else if (key == "VmHWM")
            m.peakRss = detail::parseKbValue(value);
        else if (key == "VmSwap")
            m.swap = detail::parseKbValue(value);
    });
    return m;
}

ProcessMemory readProcessMemory(pid_t pid) {
    const std::string path =
        pid == 0 ? std::string("/proc/self/status") : "/proc/" + std::to_string(pid) + "/status";
    thread_local std::string text;
    if (!readSmallFile(path.c_str(), text))
        throw FileError("cannot read " + path + ": no such process, or not Linux");
    return parseProcStatus(text);
}

std::int64_t readFootprint(pid_t pid) {
#if defined(__APPLE__)
    return macos::readFootprint(pid);
#else
    return readProcessMemory(pid).rss;
#endif
}

bool resetPeakRss() {
    std::ofstream out("/proc/self/clear_refs");
    if (!out) return false;
    out << "5";
    out.flush();
    return static_cast<bool>(out);
}

}  // namespace stageload
