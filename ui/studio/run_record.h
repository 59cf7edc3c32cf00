#pragma once
// One run of the app as it is kept on disk: what went in, how it ended, what came out. A
// RunHistory creates, saves and lists them; the EtaModel learns stage durations from them.
//
//   RunRecord r = history.create(picture, "character", "staged", settingsJson);
//   r.output = r.filePath("mesh.glb");          // files of the run live in its folder
//   r.trace = r.filePath("trace.jsonl");
//   r.status = RunRecord::statusDone();
//   r.stageSeconds = {{"preprocess", 1.2}, {"structure", 8.4}};
//   history.save(r);                             // run.json, atomically
//
// In memory every path is absolute. In run.json, paths inside the run's folder are stored
// relative to it (so a history can be moved or copied) and resolved again by fromJson(); paths
// outside it stay absolute. The folder itself (`dir`) is not stored: it is where run.json lies.
// Plain data; nothing here throws; all functions are reentrant.

#include <optional>

#include <QDateTime>
#include <QJsonObject>
#include <QList>
#include <QPair>
#include <QString>
#include <QStringList>

namespace stageload::studio {

struct RunRecord {
    QString id;                        ///< the folder's name, e.g. "20250102T030405.678Z" (unique)
    QString dir;                       ///< the folder, absolute (set by RunHistory; not stored)
    QDateTime createdUtc;              ///< when the run was created, UTC, milliseconds
    QString pipeline;                  ///< "character", ...
    QString loadMode;                  ///< "staged" or "eager"
    QString input;                     ///< the picture (or an external command's input)
    QJsonObject settings;              ///< the run's settings as the app chose to record them
    QString status = statusRunning();  ///< one of statuses()
    QString message;                   ///< why it failed / was stopped, or notices
    QString output;                    ///< the mesh file
    QString trace;                     ///< the memory trace (trace.jsonl)
    QString cutout;                    ///< the subject's cut-out (PNG)
    QJsonObject summary;               ///< the trace's summary, as the app computed it
    QList<QPair<QString, double>> stageSeconds;  ///< stage name and seconds, in run order
    qint64 vertices = 0;
    qint64 triangles = 0;
    double seconds = 0.0;  ///< the whole run's wall time
    /// The app process that runs it (pid and start time in clock ticks, to tell it from a later
    /// process given the same pid): a "running" record whose app is gone was interrupted.
    qint64 appPid = 0;
    qint64 appStartTicks = -1;

    static QString statusRunning() { return QStringLiteral("running"); }
    static QString statusDone() { return QStringLiteral("done"); }
    static QString statusFailed() { return QStringLiteral("failed"); }
    static QString statusCancelled() { return QStringLiteral("cancelled"); }
    static QString statusStopped() { return QStringLiteral("stopped"); }  ///< by the guard
    /// The app was ended while it ran (a signal, its window closed, killed or crashed).
    static QString statusInterrupted() { return QStringLiteral("interrupted"); }
    /// {"running", "done", "failed", "cancelled", "stopped", "interrupted"}
    static QStringList statuses();

    /// `name` inside the run's folder: dir + "/" + name.
    QString filePath(const QString& name) const;

    /// The run.json object; paths inside `dir` relative. Includes "format": 1.
    QJsonObject toJson() const;
    /// Reads a run.json object of the run folder `dir` (id = the folder's name; relative paths
    /// resolved against it). Nullopt, with `error` set, when "created" is not a UTC time, the
    /// status is unknown, a stage entry is malformed or the format is newer than this app.
    static std::optional<RunRecord> fromJson(const QJsonObject& json, const QString& dir,
                                             QString* error = nullptr);
};

}  // namespace stageload::studio
