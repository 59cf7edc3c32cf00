#include "ui/chart/forecast_line.h"

#include <algorithm>

#include <qcustomplot.h>

#include "ui/chart/display_units.h"
#include "guard/forecast/verdict.h"

namespace stageload::chart {

ForecastLine::ForecastLine(QCustomPlot* plot) : graph_(plot->addGraph()) {
    graph_->setName(tr("forecast"));
    graph_->setPen(QPen(QColor(0x6d, 0x4c, 0x41), 1.5, Qt::DashDotLine));
    graph_->setLineStyle(QCPGraph::lsLine);
    graph_->removeFromLegend();
}

void ForecastLine::set(std::vector<std::pair<std::string, std::int64_t>> stagePeaks) {
    stagePeaks_ = std::move(stagePeaks);
    warned_.clear();
}

bool ForecastLine::update(const std::vector<ChartBand>& bands) {
    QVector<double> t, gib;
    top_ = 0;
    for (const auto& band : bands) {
        const auto it = std::find_if(stagePeaks_.begin(), stagePeaks_.end(),
                                     [&](const auto& f) { return QString::fromStdString(f.first) == band.name; });
        if (it == stagePeaks_.end()) continue;
        const double y = static_cast<double>(it->second) / unitBytes();
        t << band.start << std::max(band.end, band.start);
        gib << y << y;
        top_ = std::max(top_, static_cast<double>(it->second));
    }
    graph_->setData(t, gib, true);
    const bool changed = graph_->visible() != !t.isEmpty();
    graph_->setVisible(!t.isEmpty());
    return changed;
}

std::optional<std::int64_t> ForecastLine::exceeded(const std::string& stage, const MemorySample& sample) {
    if (stagePeaks_.empty() || stage.empty()) return std::nullopt;
    if (std::find(warned_.begin(), warned_.end(), stage) != warned_.end()) return std::nullopt;
    const auto it = std::find_if(stagePeaks_.begin(), stagePeaks_.end(), [&](const auto& f) { return f.first == stage; });
    if (it == stagePeaks_.end() || it->second <= 0) return std::nullopt;
    if (sample.footprint <= needWithMargin(it->second)) return std::nullopt;
    warned_.push_back(stage);
    return it->second;
}

bool ForecastLine::visible() const { return graph_->visible(); }

void ForecastLine::addToLegend() const {
    if (graph_->visible()) graph_->addToLegend();
}

int ForecastLine::pointCount() const { return graph_->dataCount(); }

}  // namespace stageload::chart
