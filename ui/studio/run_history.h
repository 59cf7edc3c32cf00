#pragma once
// Every run of the app kept in a folder of its own under one root: run.json (a RunRecord) next
// to the run's mesh, trace and cut-out.
//
//   stageload::studio::RunHistory history;              // <AppDataLocation>/runs
//   RunRecord r = history.create(picture, "character", "staged", settingsJson);
//   ... run, writing r.filePath("trace.jsonl") ...
//   r.status = RunRecord::statusDone();
//   history.save(r);
//   QStringList skipped;
//   for (const RunRecord& old : history.list(&skipped)) ...   // newest first
//
// Folders are named by the UTC creation time ("20250102T030405.678Z"), with "-2", "-3" ...
// appended when that name is taken, so ids are unique even within one millisecond (mkdir is the
// arbiter, so this holds across threads and processes too).
// Throws: create() and save() throw stageload::FileError naming the folder or file; remove()
// throws FileError for an id that is not a run folder's name or a folder it cannot delete.
// list() and load() never throw: broken entries are skipped and described.
// Thread-safety: reentrant; concurrent create() calls are safe, saving the same record from two
// threads at once is not (the last one wins, never a torn file: QSaveFile).

#include <optional>

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

#include "ui/studio/run_record.h"

namespace stageload::studio {

/// The summary of the trace at `tracePath` as JSON for RunRecord::summary; {} without a
/// readable trace.
QJsonObject traceSummary(const QString& tracePath);

class RunHistory {
public:
    /// The record's file in each run folder.
    static QString runFileName() { return QStringLiteral("run.json"); }

    /// QStandardPaths::AppDataLocation + "/runs" (set the application's name first).
    static QString defaultRoot();

    /// `root` need not exist yet: create() makes it.
    explicit RunHistory(QString root = defaultRoot());

    const QString& root() const { return root_; }

    /// Makes a new run folder and saves its run.json with status "running". `createdUtc`
    /// defaults to now. Throws FileError when the folder or file cannot be written.
    RunRecord create(const QString& input, const QString& pipeline, const QString& loadMode,
                     const QJsonObject& settings = {}, const QDateTime& createdUtc = {});

    /// Writes the record's run.json atomically. Throws FileError (naming the file) when the
    /// record has no folder or the file cannot be written.
    void save(const RunRecord& record) const;

    /// Marks the runs left "running" by an app process that is gone (killed, crashed, the
    /// machine stopped) as "interrupted", saying so and what their trace says (the keeper's
    /// stop mark); their summary is read from the trace. Returns the records it marked, as
    /// saved. A run of another app still going is left alone. Never throws (a record it cannot
    /// save stays "running", and is not returned).
    QList<RunRecord> markInterrupted() const;

    /// Every readable run, newest first. Folders without a readable, valid run.json are
    /// skipped; `warnings` (optional) gets one line per skipped folder naming it and why.
    QList<RunRecord> list(QStringList* warnings = nullptr) const;

    /// The run `id`, or nullopt (with `error` set) when it is missing or its run.json is broken.
    std::optional<RunRecord> load(const QString& id, QString* error = nullptr) const;

    /// Deletes the run's folder and everything in it; an id that does not exist is a no-op.
    /// Throws FileError for an id that is not a plain folder name, or when deleting fails.
    void remove(const QString& id);

private:
    QString root_;
};

}  // namespace stageload::studio
