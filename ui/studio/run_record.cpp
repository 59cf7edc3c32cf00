#include "ui/studio/run_record.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QJsonValue>

namespace stageload::studio {
namespace {

constexpr int kFormat = 1;

/// Relative to `dir` when `path` lies inside it, else unchanged.
QString stored(const QString& path, const QString& dir) {
    if (path.isEmpty() || dir.isEmpty() || QDir::isRelativePath(path)) return path;
    const QString rel = QDir(dir).relativeFilePath(path);
    if (rel == QLatin1String("..") || rel.startsWith(QLatin1String("../")) ||
        QDir::isAbsolutePath(rel))
        return QDir::cleanPath(path);
    return rel;
}

/// Absolute: relative paths are inside `dir`.
QString resolved(const QString& path, const QString& dir) {
    if (path.isEmpty() || QDir::isAbsolutePath(path)) return path;
    return QDir::cleanPath(QDir(dir).absoluteFilePath(path));
}

QString timeText(const QDateTime& t) {
    return t.toUTC().toString(Qt::ISODateWithMs);
}

}  // namespace

QStringList RunRecord::statuses() {
    return {statusRunning(), statusDone(), statusFailed(), statusCancelled(), statusStopped(),
            statusInterrupted()};
}

QString RunRecord::filePath(const QString& name) const {
    return QDir(dir).filePath(name);
}

QJsonObject RunRecord::toJson() const {
    QJsonArray stages;
    for (const auto& [name, secs] : stageSeconds)
        stages.append(
            QJsonObject{{QStringLiteral("name"), name}, {QStringLiteral("seconds"), secs}});
    return QJsonObject{
        {QStringLiteral("format"), kFormat},
        {QStringLiteral("id"), id},
        {QStringLiteral("created"), timeText(createdUtc)},
        {QStringLiteral("pipeline"), pipeline},
        {QStringLiteral("load"), loadMode},
        {QStringLiteral("input"), stored(input, dir)},
        {QStringLiteral("settings"), settings},
        {QStringLiteral("status"), status},
        {QStringLiteral("message"), message},
        {QStringLiteral("output"), stored(output, dir)},
        {QStringLiteral("trace"), stored(trace, dir)},
        {QStringLiteral("cutout"), stored(cutout, dir)},
        {QStringLiteral("summary"), summary},
        {QStringLiteral("stages"), stages},
        {QStringLiteral("vertices"), static_cast<double>(vertices)},
        {QStringLiteral("triangles"), static_cast<double>(triangles)},
        {QStringLiteral("seconds"), seconds},
        {QStringLiteral("app"), QJsonObject{{QStringLiteral("pid"), static_cast<double>(appPid)},
                                            {QStringLiteral("start_ticks"), static_cast<double>(appStartTicks)}}},
    };
}

std::optional<RunRecord> RunRecord::fromJson(const QJsonObject& json, const QString& dir,
                                             QString* error) {
    const auto fail = [&](const QString& why) -> std::optional<RunRecord> {
        if (error) *error = why;
        return std::nullopt;
    };
    const int format = json.value(QStringLiteral("format")).toInt(kFormat);
    if (format > kFormat)
        return fail(QStringLiteral("format %1 is newer than this app reads (%2): update the app")
                        .arg(format)
                        .arg(kFormat));

    RunRecord r;
    r.dir = QDir::cleanPath(QDir(dir).absolutePath());
    r.id = QFileInfo(r.dir).fileName();
    const QString created = json.value(QStringLiteral("created")).toString();
    r.createdUtc = QDateTime::fromString(created, Qt::ISODateWithMs).toUTC();
    if (!r.createdUtc.isValid())
        return fail(QStringLiteral("\"created\" is not a time: '%1'").arg(created));
    r.status = json.value(QStringLiteral("status")).toString();
    if (!statuses().contains(r.status))
        return fail(QStringLiteral("unknown \"status\" '%1' (expected one of %2)")
                        .arg(r.status, statuses().join(QStringLiteral(", "))));

    r.pipeline = json.value(QStringLiteral("pipeline")).toString();
    r.loadMode = json.value(QStringLiteral("load")).toString();
    r.input = resolved(json.value(QStringLiteral("input")).toString(), r.dir);
    r.settings = json.value(QStringLiteral("settings")).toObject();
    r.message = json.value(QStringLiteral("message")).toString();
    r.output = resolved(json.value(QStringLiteral("output")).toString(), r.dir);
    r.trace = resolved(json.value(QStringLiteral("trace")).toString(), r.dir);
    r.cutout = resolved(json.value(QStringLiteral("cutout")).toString(), r.dir);
    r.summary = json.value(QStringLiteral("summary")).toObject();
    const QJsonArray stages = json.value(QStringLiteral("stages")).toArray();
    for (qsizetype i = 0; i < stages.size(); ++i) {
        const QJsonObject s = stages.at(i).toObject();
        const QJsonValue name = s.value(QStringLiteral("name"));
        const QJsonValue secs = s.value(QStringLiteral("seconds"));
        if (!name.isString() || name.toString().isEmpty() || !secs.isDouble() ||
            secs.toDouble() < 0)
            return fail(QStringLiteral("stages[%1] needs a \"name\" and \"seconds\" >= 0").arg(i));
        r.stageSeconds.append({name.toString(), secs.toDouble()});
    }
    r.vertices = static_cast<qint64>(json.value(QStringLiteral("vertices")).toDouble());
    r.triangles = static_cast<qint64>(json.value(QStringLiteral("triangles")).toDouble());
    r.seconds = json.value(QStringLiteral("seconds")).toDouble();
    const QJsonObject app = json.value(QStringLiteral("app")).toObject();
    r.appPid = static_cast<qint64>(app.value(QStringLiteral("pid")).toDouble(0));
    r.appStartTicks = static_cast<qint64>(app.value(QStringLiteral("start_ticks")).toDouble(-1));
    return r;
}

}  // namespace stageload::studio
