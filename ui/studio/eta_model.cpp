#include "ui/studio/eta_model.h"

#include <algorithm>
#include <vector>

namespace stageload::studio {
namespace {

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const std::size_t n = v.size();
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2.0;
}

}  // namespace

void EtaModel::learn(const QList<RunRecord>& runs, const QString& pipeline,
                     const QString& loadMode) {
    pipeline_ = pipeline;
    loadMode_ = loadMode;
    samples_.clear();
    runs_ = 0;
    for (const RunRecord& r : runs) record(r);
}

void EtaModel::record(const RunRecord& run) {
    if (run.status != RunRecord::statusDone() || run.pipeline != pipeline_) return;
    // A stage that ran twice in one run counts once, with its total.
    QList<QPair<QString, double>> perStage;
    for (const auto& [name, secs] : run.stageSeconds) {
        auto it = std::find_if(perStage.begin(), perStage.end(),
                               [&](const auto& p) { return p.first == name; });
        if (it == perStage.end())
            perStage.append({name, secs});
        else
            it->second += secs;
    }
    for (const auto& [name, secs] : perStage) {
        QList<Sample>& list = samples_[name];
        const Sample s{run.createdUtc, run.loadMode, secs};
        // Newest first; a run as old as one already there goes after it.
        auto at = std::find_if(list.begin(), list.end(),
                               [&](const Sample& o) { return o.created < s.created; });
        list.insert(at, s);
        // Only the newest kWindow of each mode can ever count.
        int sameMode = 0;
        for (auto it = list.begin(); it != list.end();) {
            if (it->loadMode == s.loadMode && ++sameMode > kWindow)
                it = list.erase(it);
            else
                ++it;
        }
    }
    ++runs_;
}

std::optional<double> EtaModel::expected(const QString& stage) const {
    const auto found = samples_.constFind(stage);
    if (found == samples_.constEnd() || found->isEmpty()) return std::nullopt;
    std::vector<double> same, any;
    for (const Sample& s : *found) {
        if (static_cast<int>(any.size()) < kWindow) any.push_back(s.seconds);
        if (!loadMode_.isEmpty() && s.loadMode == loadMode_ &&
            static_cast<int>(same.size()) < kWindow)
            same.push_back(s.seconds);
    }
    return median(static_cast<int>(same.size()) >= kEnoughSameMode ? same : any);
}

std::optional<double> EtaModel::remaining(const QStringList& stages, int currentIndex,
                                          double secondsInCurrent) const {
    if (currentIndex >= stages.size()) return 0.0;
    double left = 0.0;
    const int first = std::max(currentIndex, 0);
    for (int i = first; i < stages.size(); ++i) {
        const auto e = expected(stages.at(i));
        if (!e) return std::nullopt;
        left += i == currentIndex ? std::max(0.0, *e - secondsInCurrent) : *e;
    }
    return left;
}

}  // namespace stageload::studio
