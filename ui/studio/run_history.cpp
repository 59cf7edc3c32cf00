#include "ui/studio/run_history.h"

#include <algorithm>
#include <utility>

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QJsonParseError>
#include <QSaveFile>
#include <QStandardPaths>

#include <spdlog/spdlog.h>
#include <unistd.h>

#include "guard/base/error.h"
#include "guard/process/process_list.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"

namespace stageload::studio {
namespace {

constexpr int kMaxSameName = 100000;  // runs created within one millisecond, far beyond reach

/// A run id names a folder directly under the root: no separators, no "." or "..".
bool isPlainName(const QString& id) {
    return !id.isEmpty() && id != QLatin1String(".") && id != QLatin1String("..") &&
           !id.contains(QLatin1Char('/')) && !id.contains(QLatin1Char('\\'));
}

/// The "-N" that made an id unique (1 when there is none), for ordering within a millisecond.
int sequence(const QString& id) {
    const qsizetype dash = id.lastIndexOf(QLatin1Char('-'));
    if (dash < 0) return 1;
    bool ok = false;
    const int n = id.mid(dash + 1).toInt(&ok);
    return ok ? n : 1;
}

FileError writeError(const QString& what, const QString& path, const QString& why) {
    return FileError(QStringLiteral("Cannot write %1 '%2': %3 (check that the folder is writable "
                                    "and the disk is not full)")
                         .arg(what, path, why)
                         .toStdString());
}

std::optional<RunRecord> readRun(const QString& dir, QString* error) {
    const QString file = QDir(dir).filePath(RunHistory::runFileName());
    const auto fail = [&](const QString& why) -> std::optional<RunRecord> {
        if (error) *error = QStringLiteral("Run '%1' skipped: %2").arg(file, why);
        return std::nullopt;
    };
    QFile f(file);
    if (!f.exists()) return fail(QStringLiteral("no such file"));
    if (!f.open(QIODevice::ReadOnly)) return fail(f.errorString());
    QJsonParseError parse;
    const QJsonDocument doc = QJsonDocument::fromJson(f.readAll(), &parse);
    if (parse.error != QJsonParseError::NoError)
        return fail(
            QStringLiteral("not JSON (%1 at byte %2)").arg(parse.errorString()).arg(parse.offset));
    if (!doc.isObject()) return fail(QStringLiteral("not a JSON object"));
    QString why;
    auto r = RunRecord::fromJson(doc.object(), dir, &why);
    if (!r) return fail(why);
    return r;
}

}  // namespace

QString RunHistory::defaultRoot() {
    return QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) +
           QStringLiteral("/runs");
}

RunHistory::RunHistory(QString root) : root_(QDir::cleanPath(QDir(root).absolutePath())) {}

QJsonObject traceSummary(const QString& tracePath) {
    if (tracePath.isEmpty()) return {};
    try {
        const auto json = toJson(summarize(readTrace(tracePath.toStdString())));
        return QJsonDocument::fromJson(QByteArray::fromStdString(json.dump())).object();
    } catch (const stageload::Error& e) {  // no trace: the run failed before the meter started
        spdlog::debug("no summary for {}: {}", tracePath.toStdString(), e.what());
        return {};
    }
}

QList<RunRecord> RunHistory::markInterrupted() const {
    QList<RunRecord> marked;
    for (RunRecord r : list()) {
        if (r.status != RunRecord::statusRunning()) continue;
        if (r.appPid > 0 && processRuns(static_cast<pid_t>(r.appPid), r.appStartTicks)) continue;
        r.status = RunRecord::statusInterrupted();
        r.summary = traceSummary(r.trace);
        const QString reason = r.summary.value(QStringLiteral("stop_reason")).toString();
        r.message = QStringLiteral("The app ended while this run was going (it was killed, it crashed or the "
                                   "machine stopped)") +
                    (isInterruption(reason.toStdString()) ? QStringLiteral("; ") + reason : QString()) +
                    QLatin1Char('.');
        r.seconds = r.summary.value(QStringLiteral("duration")).toDouble(r.seconds);
        try {
            save(r);
            marked << r;
        } catch (const Error& e) {
            spdlog::warn("history: {}", e.what());
        }
    }
    return marked;
}

RunRecord RunHistory::create(const QString& input, const QString& pipeline, const QString& loadMode,
                             const QJsonObject& settings, const QDateTime& createdUtc) {
    QDir root(root_);
    if (!root.mkpath(QStringLiteral(".")))
        throw writeError(QStringLiteral("the run history folder"), root_,
                         QStringLiteral("cannot create it"));

    RunRecord r;
    r.createdUtc = createdUtc.isValid() ? createdUtc.toUTC() : QDateTime::currentDateTimeUtc();
    const QString base = r.createdUtc.toString(QStringLiteral("yyyyMMdd'T'HHmmss.zzz'Z'"));
    for (int n = 1; n <= kMaxSameName; ++n) {
        const QString id = n == 1 ? base : base + QLatin1Char('-') + QString::number(n);
        if (root.exists(id)) continue;
        if (root.mkdir(id)) {  // atomic: fails when another creator took the name first
            r.id = id;
            break;
        }
        if (!root.exists(id))
            throw writeError(QStringLiteral("a run folder"), root.filePath(id),
                             QStringLiteral("cannot create it"));
    }
    if (r.id.isEmpty())
        throw writeError(QStringLiteral("a run folder"), root.filePath(base),
                         QStringLiteral("too many runs in one millisecond"));
    r.dir = root.filePath(r.id);
    r.input = input;
    r.pipeline = pipeline;
    r.loadMode = loadMode;
    r.settings = settings;
    r.status = RunRecord::statusRunning();
    r.appPid = ::getpid();
    if (const auto self = readProcess(::getpid())) r.appStartTicks = self->startTicks;
    save(r);
    return r;
}

void RunHistory::save(const RunRecord& record) const {
    if (record.dir.isEmpty())
        throw FileError("Cannot save run '" + record.id.toStdString() +
                        "': the record has no folder (make records with RunHistory::create)");
    const QString file = QDir(record.dir).filePath(runFileName());
    QSaveFile f(file);
    if (!f.open(QIODevice::WriteOnly))
        throw writeError(QStringLiteral("run record"), file, f.errorString());
    const QByteArray bytes = QJsonDocument(record.toJson()).toJson(QJsonDocument::Indented);
    if (f.write(bytes) != bytes.size()) {
        const QString why = f.errorString();
        f.cancelWriting();
        throw writeError(QStringLiteral("run record"), file, why);
    }
    if (!f.commit()) throw writeError(QStringLiteral("run record"), file, f.errorString());
}

QList<RunRecord> RunHistory::list(QStringList* warnings) const {
    QList<RunRecord> runs;
    const QFileInfoList dirs =
        QDir(root_).entryInfoList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name);
    for (const QFileInfo& d : dirs) {
        QString why;
        if (auto r = readRun(d.absoluteFilePath(), &why))
            runs.append(std::move(*r));
        else if (warnings)
            warnings->append(why);
    }
    std::sort(runs.begin(), runs.end(), [](const RunRecord& a, const RunRecord& b) {
        if (a.createdUtc != b.createdUtc) return a.createdUtc > b.createdUtc;
        const int sa = sequence(a.id), sb = sequence(b.id);
        if (sa != sb) return sa > sb;
        return a.id > b.id;
    });
    return runs;
}

std::optional<RunRecord> RunHistory::load(const QString& id, QString* error) const {
    if (!isPlainName(id)) {
        if (error) *error = QStringLiteral("'%1' is not a run id").arg(id);
        return std::nullopt;
    }
    return readRun(QDir(root_).filePath(id), error);
}

void RunHistory::remove(const QString& id) {
    if (!isPlainName(id))
        throw FileError("Cannot remove run '" + id.toStdString() +
                        "': not a run id (a folder name under " + root_.toStdString() + ")");
    const QString path = QDir(root_).filePath(id);
    const QFileInfo info(path);
    if (info.isSymLink()) {  // remove the link, never what it points to
        if (!QFile::remove(path))
            throw FileError("Cannot remove run link '" + path.toStdString() +
                            "': check its folder's permissions");
        return;
    }
    if (!info.exists()) return;
    if (!QDir(path).removeRecursively())
        throw FileError("Cannot remove run folder '" + path.toStdString() +
                        "' completely: check its permissions and whether a file in it is open");
}

}  // namespace stageload::studio
