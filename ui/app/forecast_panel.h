#pragma once
// "Will this fit?" before Generate: the forecast peak of every stage of the run the settings
// describe, learned from the history, next to the memory available now, with the verdict in
// words (fits / tight / will not fit, what to close, a smaller setting) and a checkbox that
// makes the guard wait until the forecast fits.
//
//   auto* panel = new ForecastPanel(this);
//   panel->setHistory(stageload::readRunPoints({historyRoot}));
//   panel->setRun(runKeyOf(meta), heldByTheApp);   // when the picture or a setting changes
//   panel->refreshMemory();                        // now and then: available memory moves
//   if (panel->waitForFit() && panel->forecast().peak()) params.need = panel->need();
//
// GUI thread only; refreshMemory() reads /proc (a few ms), so call it every few seconds, not
// per sample.

#include <optional>
#include <vector>

#include <QWidget>

#include "guard/forecast/forecast.h"
#include "guard/forecast/verdict.h"

class QCheckBox;
class QLabel;

namespace stageload::app {

class ForecastPanel : public QWidget {
    Q_OBJECT

public:
    explicit ForecastPanel(QWidget* parent = nullptr);

    /// Every earlier run the forecast learns from (replaces the previous ones).
    void setHistory(std::vector<stageload::RunPoint> history);
    /// Adds one finished run.
    void addRun(const stageload::RunPoint& run);
    /// The run about to start; `held`: what its process already holds (the app, for a
    /// built-in run; 0 for a generator, a new process).
    void setRun(const stageload::RunKey& key, std::int64_t held);
    /// Judges the forecast again against the memory available now.
    void refreshMemory();

    const stageload::Forecast& forecast() const { return forecast_; }
    const stageload::FitVerdict& verdict() const { return verdict_; }
    /// What the guard should wait for: the forecast peak and margin, less what is held;
    /// nullopt without a forecast.
    std::optional<std::int64_t> need() const;

    bool waitForFit() const;
    void setWaitForFit(bool wait);
    /// Whether the guard is on (then the checkbox can be used) and its stop level (--kill-free,
    /// % of the machine's memory): a run whose forecast peak would take available memory under
    /// it is one the guard will stop, and the verdict says so.
    void setGuard(bool enabled, double killFree);

    QLabel* verdictLabel() const { return verdictLabel_; }
    QLabel* stagesLabel() const { return stagesLabel_; }
    QCheckBox* waitBox() const { return wait_; }

signals:
    void waitForFitToggled(bool wait);

private:
    void showForecast();

    std::vector<stageload::RunPoint> history_;
    stageload::RunKey key_;
    std::int64_t held_ = 0;
    double stopLevel_ = 0.0;  ///< the guard's --kill-free while it is on, else 0
    stageload::Forecast forecast_;
    stageload::FitVerdict verdict_;
    QLabel* verdictLabel_ = nullptr;
    QLabel* stagesLabel_ = nullptr;
    QCheckBox* wait_ = nullptr;
};

}  // namespace stageload::app
