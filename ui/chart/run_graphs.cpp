#include "ui/chart/run_graphs.h"

#include "ui/chart/display_units.h"

namespace stageload::chart {

RunGraphs::RunGraphs(QCustomPlot* plot, const QString& label, int run)
    : plot_(plot), label_(label) {
    // In reverse legend order, so the footprint is drawn on top of the others.
    for (auto it = kAllSeries.rbegin(); it != kAllSeries.rend(); ++it) {
        const Series s = *it;
        QCPAxis* valueAxis = seriesInfo(s).axis == SeriesAxis::Percent ? plot->yAxis2 : plot->yAxis;
        QCPGraph* g = plot->addGraph(plot->xAxis, valueAxis);
        g->setPen(style::seriesPen(s, run));
        g->setAntialiased(true);
        g->setAdaptiveSampling(true);
        g->setVisible(false);
        g->removeFromLegend();
        graphs_[static_cast<std::size_t>(s)] = g;
    }
    setLegendLabel(false);
}

void RunGraphs::setRun(int run) {
    for (Series s : kAllSeries) graph(s)->setPen(style::seriesPen(s, run));
}

RunGraphs::~RunGraphs() {
    for (QCPGraph* g : graphs_) plot_->removeGraph(g);
}

std::optional<double> RunGraphs::plotValue(Series s, const MemorySample& x) {
    const auto& row = seriesInfo(s);
    auto v = row.value(x);
    if (v && row.axis == SeriesAxis::Bytes) *v /= unitBytes();
    return v;
}

void RunGraphs::append(const MemorySample& sample) {
    for (Series s : kAllSeries)
        if (const auto v = plotValue(s, sample)) graph(s)->addData(sample.t, *v);
}

void RunGraphs::setData(const RunData& run) {
    for (Series s : kAllSeries) {
        QVector<QCPGraphData> points;
        points.reserve(static_cast<int>(run.samples().size()));
        for (const auto& sample : run.samples())
            if (const auto v = plotValue(s, sample)) points.push_back(QCPGraphData(sample.t, *v));
        graph(s)->data()->set(points, /*alreadySorted=*/true);
    }
}

bool RunGraphs::updateVisibility(const RunData& run) {
    const bool any = !run.samples().empty();
    bool changed = false;
    for (Series s : kAllSeries) {
        const bool show = any && (seriesInfo(s).always || run.hasValues(s));
        if (graph(s)->visible() != show) {
            graph(s)->setVisible(show);
            changed = true;
        }
    }
    return changed;
}

void RunGraphs::addToLegend() const {
    for (Series s : kAllSeries)
        if (graph(s)->visible()) graph(s)->addToLegend();
}

void RunGraphs::setLegendLabel(bool withLabel) {
    for (Series s : kAllSeries) {
        QString name = style::seriesName(s);
        if (withLabel && !label_.isEmpty()) name += QStringLiteral(" — ") + label_;
        graph(s)->setName(name);
    }
}

}  // namespace stageload::chart
