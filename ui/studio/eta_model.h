#pragma once
// How long the rest of a run will take, learned from earlier runs ("an ETA learned from
// earlier runs").
//
//   stageload::studio::EtaModel eta;
//   eta.learn(history.list(), "character", "staged");     // only runs with status "done" count
//   auto left = eta.remaining(stages, 2, 3.5);            // stage 2 running for 3.5 s
//   label->setText(left ? formatDuration(*left) : "ETA: learning");
//   ... when the run ends:  eta.record(finishedRun);      // no reload needed
//
// Per stage the estimate is the median of that stage's seconds in the last kWindow completed runs
// of the same pipeline; of the same load mode (staged/eager) when at least kEnoughSameMode such
// runs have the stage, else of any mode. remaining() = max(0, expected(current) - seconds in it)
// + the expected seconds of every later stage; nullopt when one of them was never seen.
// Nothing throws. Not thread-safe for writes (learn, record, setLoadMode); const calls may run
// concurrently with each other.

#include <optional>

#include <QDateTime>
#include <QHash>
#include <QList>
#include <QString>
#include <QStringList>

#include "ui/studio/run_record.h"

namespace stageload::studio {

class EtaModel {
public:
    static constexpr int kWindow = 10;         ///< the last this many runs count, per stage
    static constexpr int kEnoughSameMode = 3;  ///< same-mode runs needed to ignore the others

    /// Forgets what it knew and learns from `runs` of `pipeline` with status "done", in any
    /// order. `loadMode` ("staged" / "eager") is the mode of the runs to estimate; empty: any.
    void learn(const QList<RunRecord>& runs, const QString& pipeline,
               const QString& loadMode = QString());
    /// Adds one run as learn() would (ignored unless "done" and of the learned pipeline).
    void record(const RunRecord& run);
    /// The mode of the runs to estimate from now on; nothing is forgotten.
    void setLoadMode(const QString& loadMode) { loadMode_ = loadMode; }

    /// The median seconds of `stage`, or nullopt when no completed run has it.
    std::optional<double> expected(const QString& stage) const;
    /// Seconds left when stage `currentIndex` of `stages` has run for `secondsInCurrent`.
    /// currentIndex < 0: not started (every stage counts); >= stages.size(): done (0).
    std::optional<double> remaining(const QStringList& stages, int currentIndex,
                                    double secondsInCurrent) const;

    const QString& pipeline() const { return pipeline_; }
    const QString& loadMode() const { return loadMode_; }
    int runsLearned() const { return runs_; }  ///< completed runs of the pipeline taken in

private:
    struct Sample {
        QDateTime created;
        QString loadMode;
        double seconds = 0.0;
    };

    QString pipeline_;
    QString loadMode_;
    QHash<QString, QList<Sample>> samples_;  ///< per stage, newest first
    int runs_ = 0;
};

}  // namespace stageload::studio
