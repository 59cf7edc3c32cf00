#pragma once
// The stage bands of the memory chart: one QCustomPlot item that draws, for each stage window,
// a translucent rectangle over the whole plot height (alternating tints, a thin edge where a
// stage starts) and the stage's name at the top (internal to ui/chart).
//
//   auto* bands = new stageload::chart::StageBandItem(plot, plot->xAxis);  // the plot owns it
//   bands->setBands({{"setup", 0.0, 1.5}, {"camera", 1.5, 4.0}});
//
// Names are laid out at draw time for the size being drawn (widget, PNG, SVG or PDF): across the
// band when it fits, upright along its left edge when the band is narrow, left out when the band
// is thinner than a line of text or the name would cover its neighbour's. GUI thread only.

#include <vector>

#include <QString>
#include <qcustomplot.h>

namespace stageload::chart {

/// A stage window as the chart draws it.
struct ChartBand {
    QString name;
    double start = 0.0;  ///< seconds
    double end = 0.0;    ///< seconds
};

class StageBandItem : public QCPAbstractItem {
public:
    StageBandItem(QCustomPlot* plot, QCPAxis* keyAxis);

    void setBands(std::vector<ChartBand> bands);
    const std::vector<ChartBand>& bands() const { return bands_; }

    double selectTest(const QPointF& pos, bool onlySelectable,
                      QVariant* details = nullptr) const override;

protected:
    void draw(QCPPainter* painter) override;

private:
    QCPAxis* keyAxis_;
    std::vector<ChartBand> bands_;
};

}  // namespace stageload::chart
