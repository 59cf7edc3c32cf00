#pragma once
// The lines the memory chart draws for a run, one row each: legend name, colour, pen width, axis,
// when it is shown and how its value is read from a sample. The chart, its graphs, its hover and
// the y range all iterate this table, so a new series is a member of Series and one row here.
// No Qt (the colour is 0xRRGGBB): RunData uses it too. Constant, thread-safe.
//
//   for (const auto& row : stageload::chart::kSeriesTable)
//       if (const auto v = row.value(sample)) plot(row.series, *v);

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "guard/memory/readers.h"

namespace stageload::chart {

// Available memory is drawn as a percentage on the right axis (Level), the way the guard's
// --wait-free and --kill-free read it: in GiB beside a small process on a big machine it would
// flatten every other line. Command: a generator's own footprint from the trace it writes (the
// "command_footprint" key of the run's samples), beside its whole group's. Pressure: the machine's
// memory pressure (Linux PSI full avg10), where the kernel reports it, the way --pressure-kill
// reads it.
enum class Series { Footprint, Swap, Gpu, Level, Command, Pressure };

enum class SeriesAxis {
    Bytes,    ///< the left axis, in the display unit (GiB or GB)
    Percent,  ///< the right axis, 0..100
};

struct SeriesInfo {
    Series series;
    const char* name;         ///< in the legend: "swap used"
    const char* readoutName;  ///< in the hover's readout: "swap"
    std::uint32_t rgb;        ///< 0xRRGGBB
    double width;             ///< the primary run's pen width, in pixels
    SeriesAxis axis;
    bool always;              ///< shown whenever the run has samples; else once a sample has a value
    /// The sample's value, in bytes (Bytes) or percent (Percent); nullopt when it has none.
    std::optional<double> (*value)(const MemorySample&);
    /// Bytes the readout adds in brackets (available memory beside its percentage); 0: none.
    double (*detailBytes)(const MemorySample&) = nullptr;
};

/// GPU memory of `sample` in bytes: extra key "gpu", else "cuda"; nullopt when absent.
std::optional<double> gpuBytes(const MemorySample& sample);
/// The "command_footprint" extra key: a generator's own footprint, from its trace.
std::optional<double> commandBytes(const MemorySample& sample);

/// The "memory_pressure" extra key: the machine's memory pressure (PSI full avg10), in percent;
/// nullopt when absent or 0 (a machine that does not thrash draws no line).
std::optional<double> pressurePercent(const MemorySample& sample);
/// Every series, in legend order.
inline constexpr std::array<SeriesInfo, 6> kSeriesTable{{
    {Series::Footprint, "footprint", "footprint", 0x1565c0, 2.6, SeriesAxis::Bytes, true,
     [](const MemorySample& s) { return std::optional<double>(static_cast<double>(s.footprint)); }},
    {Series::Command, "own footprint", "own footprint", 0x42a5f5, 1.4, SeriesAxis::Bytes, false, commandBytes},
    {Series::Swap, "swap used", "swap used", 0xc62828, 1.4, SeriesAxis::Bytes, true,
     [](const MemorySample& s) { return std::optional<double>(static_cast<double>(s.swapUsed)); }},
    {Series::Gpu, "GPU memory", "GPU memory", 0x6a1b9a, 1.4, SeriesAxis::Bytes, false, gpuBytes},
    {Series::Level, "available % (right axis)", "available", 0x2e7d32, 1.4, SeriesAxis::Percent, true,
     [](const MemorySample& s) { return std::optional<double>(s.level); },
     [](const MemorySample& s) { return static_cast<double>(s.available); }},
    {Series::Pressure, "memory pressure % (right axis)", "memory pressure", 0xef6c00, 1.4, SeriesAxis::Percent, false,
     pressurePercent},
}};
inline constexpr std::size_t kSeriesCount = kSeriesTable.size();

/// Every series, in legend order (kSeriesTable's).
inline constexpr std::array<Series, kSeriesCount> kAllSeries = [] {
    std::array<Series, kSeriesCount> all{};
    for (std::size_t i = 0; i < kSeriesCount; ++i) all[i] = kSeriesTable[i].series;
    return all;
}();

/// The row of `s`.
constexpr const SeriesInfo& seriesInfo(Series s) {
    for (const auto& row : kSeriesTable)
        if (row.series == s) return row;
    return kSeriesTable.front();
}

}  // namespace stageload::chart
