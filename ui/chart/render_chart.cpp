#include "ui/chart/render_chart.h"

#include <qcustomplot.h>

#include "guard/base/error.h"
#include "ui/chart/memory_chart.h"

namespace stageload::chart {

void renderTraceChart(const std::vector<std::pair<Trace, QString>>& runs, const QString& out,
                      QSize size, const QString& title) {
    if (runs.empty()) throw UsageError("no trace to plot: give at least one trace file");
    if (size.width() < 1 || size.height() < 1)
        throw UsageError("chart size " + std::to_string(size.width()) + "x" +
                         std::to_string(size.height()) + " is not positive, e.g. 1600x900");

    MemoryChart chart;  // never shown
    chart.plot()->resize(size);
    chart.showTrace(runs.front().first, runs.front().second);
    for (std::size_t i = 1; i < runs.size(); ++i) chart.addOverlay(runs[i].first, runs[i].second);
    chart.setTitle(title);
    QString error;
    if (!chart.save(out, &error, size)) throw FileError(error.toStdString());
}

}  // namespace stageload::chart
