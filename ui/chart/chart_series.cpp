#include "ui/chart/chart_series.h"

#include "guard/memory/pressure.h"

namespace stageload::chart {

std::optional<double> gpuBytes(const MemorySample& sample) {
    for (const char* key : {"gpu", "cuda"})
        for (const auto& [name, value] : sample.extra)
            if (name == key) return value;
    return std::nullopt;
}

std::optional<double> commandBytes(const MemorySample& sample) {
    for (const auto& [name, value] : sample.extra)
        if (name == kCommandFootprintKey) return value;
    return std::nullopt;
}

std::optional<double> pressurePercent(const MemorySample& sample) {
    // A machine that does not thrash draws no line: only a pressure above 0 is a value.
    for (const auto& [name, value] : sample.extra)
        if (name == kMemoryPressureKey && value > 0) return value;
    return std::nullopt;
}

}  // namespace stageload::chart
