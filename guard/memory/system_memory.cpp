#include "guard/memory/system_memory.h"

#include <cerrno>
#include <cstring>
#include <string>

#include "guard/base/error.h"
#include "guard/base/small_file.h"
#include "guard/memory/macos_memory.h"
#include "guard/memory/proc_fields.h"

namespace stageload {

SystemMemory parseMeminfo(std::string_view text) {
    SystemMemory m;
    detail::forEachField(text, [&](std::string_view key, std::string_view value) {
        if (key == "MemTotal")
            m.total = detail::parseKbValue(value);
        else if (key == "MemAvailable")
            m.available = detail::parseKbValue(value);
        else if (key == "SwapTotal")
            m.swapTotal = detail::parseKbValue(value);
        else if (key == "SwapFree")
            m.swapFree = detail::parseKbValue(value);
    });
    return m;
}

SystemMemory readSystemMemory() {
#if defined(__APPLE__)
    return macos::readSystemMemory();
#else
    thread_local std::string text;
    if (!readSmallFile("/proc/meminfo", text))
        throw FileError(std::string("cannot read /proc/meminfo: ") + std::strerror(errno));
    return parseMeminfo(text);
#endif
}

}  // namespace stageload
