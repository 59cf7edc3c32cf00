#include "ui/app/forecast_panel.h"

#include <algorithm>

#include <QCheckBox>
#include <QLabel>
#include <QVBoxLayout>

#include "guard/base/error.h"
#include "guard/memory/system_memory.h"
#include "guard/policy/guard_options.h"
#include "guard/process/process_list.h"
#include "ui/chart/display_units.h"

namespace stageload::app {
namespace {

QString colourOf(Fit fit) {
    switch (fit) {
        case Fit::Fits: return QStringLiteral("#2e7d32");
        case Fit::Tight: return QStringLiteral("#b26a00");
        case Fit::WillNotFit:
        case Fit::GuardStops: return QStringLiteral("#c62828");
        case Fit::Unknown: break;
    }
    return QStringLiteral("#546e7a");
}

QString waitTip(bool guardOn) {
    QString tip = ForecastPanel::tr("The guard starts the run only when the forecast peak and a "
                                    "%1 % margin are available (a run without a forecast starts "
                                    "as usual)")
                      .arg(kForecastMargin * 100);
    if (!guardOn) tip += ForecastPanel::tr("\nThe guard is off: turn it on to wait.");
    return tip;
}

}  // namespace

ForecastPanel::ForecastPanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("forecastPanel"));
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    auto* title = new QLabel(tr("<b>Memory forecast</b>"), this);
    verdictLabel_ = new QLabel(this);
    verdictLabel_->setObjectName(QStringLiteral("forecastVerdict"));
    verdictLabel_->setWordWrap(true);
    verdictLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    stagesLabel_ = new QLabel(this);
    stagesLabel_->setObjectName(QStringLiteral("forecastStages"));
    stagesLabel_->setTextFormat(Qt::RichText);
    wait_ = new QCheckBox(tr("Wait until the forecast fits"), this);
    wait_->setObjectName(QStringLiteral("waitForForecast"));
    wait_->setToolTip(waitTip(true));
    connect(wait_, &QCheckBox::toggled, this, &ForecastPanel::waitForFitToggled);
    layout->addWidget(title);
    layout->addWidget(verdictLabel_);
    layout->addWidget(stagesLabel_);
    layout->addWidget(wait_);
    showForecast();
}

void ForecastPanel::setHistory(std::vector<RunPoint> history) {
    history_ = std::move(history);
    setRun(key_, held_);
}

void ForecastPanel::addRun(const RunPoint& run) {
    history_.push_back(run);
    setRun(key_, held_);
}

void ForecastPanel::setRun(const RunKey& key, std::int64_t held) {
    key_ = key;
    held_ = held;
    forecast_ = key_.pipeline.empty() ? Forecast{} : forecastRun(history_, key_, held_);
    refreshMemory();
}

void ForecastPanel::refreshMemory() {
    std::optional<std::int64_t> available;
    std::int64_t total = 0;
    try {
        const auto memory = readSystemMemory();
        available = memory.available;
        total = memory.total;
    } catch (const Error&) {
    }
    if (!available) {
        verdict_ = {};
        verdict_.text = "unknown: this system does not say how much memory is available";
        showForecast();
        return;
    }
    // Judged bare first: the other programs (every process's memory read) and a smaller setting
    // are looked for only for a run that does not simply fit.
    const auto judge = [&](const std::vector<ProgramMemory>& others, const std::string& smaller) {
        const ByteUnits units = chart::displayUnits();
        return judgeAgainstGuard(judgeFit(forecast_, *available, others, held_, smaller, units), total, stopLevel_,
                                 others, units);
    };
    verdict_ = judge({}, {});
    if (verdict_.fit != Fit::Fits && verdict_.fit != Fit::Unknown) {
        std::vector<ProgramMemory> others;
        try {
            const auto processes = listProcesses(false);
            others = largestPrograms(processes, selfAndAncestors(processes), 5);
        } catch (const Error&) {
        }
        verdict_ = judge(others, smallerSettingThatFits(history_, key_, *available, held_, chart::displayUnits()));
    }
    showForecast();
}

std::optional<std::int64_t> ForecastPanel::need() const {
    if (!forecast_.peak()) return std::nullopt;
    return std::max<std::int64_t>(0, needWithMargin(*forecast_.peak()) - held_);
}

bool ForecastPanel::waitForFit() const { return wait_->isChecked(); }

void ForecastPanel::setWaitForFit(bool wait) { wait_->setChecked(wait); }

void ForecastPanel::setGuard(bool enabled, double killFree) {
    wait_->setEnabled(enabled);
    wait_->setToolTip(waitTip(enabled));
    const double level = enabled ? killFree : 0.0;
    if (level == stopLevel_) return;  // another threshold was edited: the verdict stands
    stopLevel_ = level;
    refreshMemory();
}

void ForecastPanel::showForecast() {
    QString text = QString::fromStdString(guardReasonInWords(verdict_.text));  // the panel's words
    if (!text.isEmpty()) text[0] = text[0].toUpper();
    verdictLabel_->setText(text);
    verdictLabel_->setStyleSheet(QStringLiteral("color: %1;").arg(colourOf(verdict_.fit)));
    if (forecast_.stages.empty()) {
        stagesLabel_->clear();
        stagesLabel_->hide();
        return;
    }
    // One row per stage; the peak's stage in bold.
    QString rows;
    for (const auto& s : forecast_.stages) {
        const bool peak = s.stage == verdict_.stage;
        QString value = s.peak ? chart::sizeText(*s.peak) : tr("unknown");
        if (s.lowerBound) value = tr("≥ %1").arg(value);
        QString note = s.rough ? tr("&nbsp;rough") : QString();
        if (s.lowerBound) note = tr("&nbsp;its weights; not run yet");
        else if (s.weights) note += tr("&nbsp;(weights %1)").arg(chart::sizeText(*s.weights));
        rows += QStringLiteral("<tr><td>%1%2%3</td><td align='right'>%1%4%3</td><td>%5</td></tr>")
                    .arg(peak ? QStringLiteral("<b>") : QString(), QString::fromStdString(s.stage),
                         peak ? QStringLiteral("</b>") : QString(), value, note);
    }
    stagesLabel_->setText(QStringLiteral("<table cellspacing='0' cellpadding='1'>%1</table>").arg(rows));
    QString tip = tr("From %n earlier run(s) with the same choices", nullptr, forecast_.runs);
    if (std::any_of(forecast_.stages.begin(), forecast_.stages.end(), [](const auto& s) { return s.weights; }))
        tip += tr("; each stage's weights counted exactly from the files its generator lists");
    stagesLabel_->setToolTip(tip);
    stagesLabel_->show();
}

}  // namespace stageload::app
