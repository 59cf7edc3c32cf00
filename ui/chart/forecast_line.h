#pragma once
// The memory chart's forecast (internal to ui/chart): each stage's forecast peak as a stepped
// line over the stage bands drawn, and the watch on a live run that says, once per stage, when
// its footprint has gone past the stage's forecast by more than kForecastMargin.
//
//   ForecastLine forecast(plot);               // the plot owns its graph
//   forecast.set({{"texture", 2'600'000'000}});
//   if (forecast.update(bandItem->bands())) updateLegend();   // drawn or gone
//   if (auto peak = forecast.exceeded("texture", sample)) warn(*peak);
//
// GUI thread only.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QCoreApplication>

#include "guard/memory/readers.h"
#include "ui/chart/stage_band_item.h"

class QCPGraph;
class QCustomPlot;

namespace stageload::chart {

class ForecastLine {
    Q_DECLARE_TR_FUNCTIONS(ForecastLine)

public:
    /// Adds its graph to `plot`, hidden and out of the legend until it has a step to draw.
    explicit ForecastLine(QCustomPlot* plot);
    ForecastLine(const ForecastLine&) = delete;
    ForecastLine& operator=(const ForecastLine&) = delete;

    /// The forecast peak of each stage, by name (bytes); stages without one draw no step. Every
    /// stage may warn again.
    void set(std::vector<std::pair<std::string, std::int64_t>> stagePeaks);
    /// No forecast at all (a recorded run is shown).
    void clear() { stagePeaks_.clear(); }
    /// A new run: every stage may warn again; the forecast stays.
    void beginRun() { warned_.clear(); }

    /// Redraws the steps over `bands`: one per band that has a forecast. True when the line
    /// appeared or vanished, so the legend must change.
    bool update(const std::vector<ChartBand>& bands);
    /// `stage`'s forecast peak when `sample` has gone past it by more than kForecastMargin and the
    /// stage has not warned yet since set() or beginRun(); nullopt otherwise.
    std::optional<std::int64_t> exceeded(const std::string& stage, const MemorySample& sample);

    bool empty() const { return stagePeaks_.empty(); }
    bool visible() const;
    /// Puts the line into the plot's legend (when it is visible).
    void addToLegend() const;
    /// The highest step drawn, in bytes (0: none), so the y range takes it in.
    double top() const { return top_; }
    int pointCount() const;

private:
    QCPGraph* graph_;
    std::vector<std::pair<std::string, std::int64_t>> stagePeaks_;
    std::vector<std::string> warned_;  ///< stages exceeded() has fired for
    double top_ = 0;
};

}  // namespace stageload::chart
