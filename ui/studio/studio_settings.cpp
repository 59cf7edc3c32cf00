#include "ui/studio/studio_settings.h"

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <QSettings>
#include <QVariant>

#include "guard/core/error.h"
#include "guard/core/units.h"
#include "guard/policy/busy_patterns.h"

namespace stageload::studio {
namespace {

// The keys, grouped as the header says.
constexpr auto kPipeline = "run/pipeline";
constexpr auto kSeed = "run/seed";
constexpr auto kTextureSize = "run/textureSize";
constexpr auto kTriangles = "run/triangles";
constexpr auto kStaged = "run/staged";
constexpr auto kDevice = "run/device";
constexpr auto kThreads = "run/threads";
constexpr auto kRemover = "run/remover";
constexpr auto kGuardEnabled = "guard/enabled";
constexpr auto kWaitFree = "guard/waitFree";
constexpr auto kKillFree = "guard/killFree";
constexpr auto kSwapBudget = "guard/swapBudget";
constexpr auto kSwapLimit = "guard/swapLimit";
constexpr auto kQuietFor = "guard/quietFor";
constexpr auto kStartTimeout = "guard/startTimeout";
constexpr auto kPoll = "guard/poll";
constexpr auto kBusy = "guard/busy";
constexpr auto kRecentFiles = "files/recent";
constexpr auto kLastOpenDir = "files/lastOpenDir";
constexpr auto kExportFormat = "export/format";
constexpr auto kWindowGeometry = "window/geometry";
constexpr auto kWindowState = "window/state";

QString shown(const QVariant& v) {
    if (v.typeId() == QMetaType::QStringList) return v.toStringList().join(QStringLiteral(", "));
    return v.toString();
}

std::optional<qint64> asInt64(const QVariant& v) {
    switch (v.typeId()) {
        case QMetaType::Int:
        case QMetaType::LongLong:
        case QMetaType::UInt:
            return v.toLongLong();
        case QMetaType::QString: {
            bool ok = false;
            const qint64 n = v.toString().trimmed().toLongLong(&ok);
            return ok ? std::optional<qint64>(n) : std::nullopt;
        }
        default:
            return std::nullopt;
    }
}

std::optional<double> asDouble(const QVariant& v) {
    bool ok = false;
    double d = 0.0;
    if (v.typeId() == QMetaType::QString)
        d = v.toString().trimmed().toDouble(&ok);
    else if (v.canConvert<double>())
        d = v.toDouble(&ok);
    return ok && std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

std::optional<bool> asBool(const QVariant& v) {
    if (v.typeId() == QMetaType::Bool) return v.toBool();
    const QString s = v.toString().trimmed().toLower();
    if (s == QLatin1String("true") || s == QLatin1String("1")) return true;
    if (s == QLatin1String("false") || s == QLatin1String("0")) return false;
    return std::nullopt;
}

/// Reads keys one at a time; a present value that fails its check keeps the default and adds a
/// warning.
class Reader {
public:
    Reader(const QSettings& settings, QStringList* warnings)
        : settings_(settings), warnings_(warnings) {}

    /// The stored value, or nullopt when the key is absent (or stored as an invalid variant).
    std::optional<QVariant> raw(const char* key) const {
        if (!settings_.contains(QLatin1String(key))) return std::nullopt;
        QVariant v = settings_.value(QLatin1String(key));
        if (!v.isValid()) return std::nullopt;
        return v;
    }

    template <typename T>
    void read(const char* key, T& field,
              const std::function<std::optional<T>(const QVariant&)>& parse,
              const QString& expected, const QString& fallback) {
        const auto v = raw(key);
        if (!v) return;
        if (auto parsed = parse(*v)) {
            field = std::move(*parsed);
            return;
        }
        warn(key, *v, expected, fallback);
    }

    void warn(const char* key, const QVariant& v, const QString& expected,
              const QString& fallback) const {
        if (!warnings_) return;
        warnings_->append(QStringLiteral("Settings: %1 = '%2' ignored (expected %3); using %4")
                              .arg(QLatin1String(key), shown(v), expected, fallback));
    }

    void note(const QString& text) const {
        if (warnings_) warnings_->append(text);
    }

private:
    const QSettings& settings_;
    QStringList* warnings_;
};

std::function<std::optional<QString>(const QVariant&)> oneOf(const QStringList& allowed) {
    return [allowed](const QVariant& v) -> std::optional<QString> {
        const QString s = v.toString().trimmed();
        return allowed.contains(s) ? std::optional<QString>(s) : std::nullopt;
    };
}

std::function<std::optional<int>(const QVariant&)> intIn(qint64 lo, qint64 hi) {
    return [lo, hi](const QVariant& v) -> std::optional<int> {
        const auto n = asInt64(v);
        if (!n || *n < lo || *n > hi) return std::nullopt;
        return static_cast<int>(*n);
    };
}

std::function<std::optional<double>(const QVariant&)> doubleIn(double lo, double hi,
                                                               bool loExclusive = false) {
    return [=](const QVariant& v) -> std::optional<double> {
        const auto d = asDouble(v);
        if (!d || *d > hi || *d < lo || (loExclusive && *d == lo)) return std::nullopt;
        return d;
    };
}

std::optional<qint64> nonNegativeBytes(const QVariant& v) {
    const auto n = asInt64(v);
    return n && *n >= 0 ? n : std::nullopt;
}

QString seconds(double s) {
    return QString::number(s) + QStringLiteral(" s");
}

QString bytes(std::int64_t b) {
    return QString::number(b) + QStringLiteral(" bytes (") +
           QString::fromStdString(formatBytes(b)) + QLatin1Char(')');
}

void readGuard(Reader& r, GuardParams& g, QStringList* warnings) {
    const GuardParams d;
    constexpr double kDay = 86400.0 * 365.0;  // a sanity ceiling for stored durations
    r.read<double>(kWaitFree, g.waitFree, doubleIn(0, 100), QStringLiteral("0 to 100"),
                   QString::number(d.waitFree));
    r.read<double>(kKillFree, g.killFree, doubleIn(0, 100), QStringLiteral("0 to 100"),
                   QString::number(d.killFree));
    r.read<std::int64_t>(
        kSwapBudget, g.swapBudget,
        [](const QVariant& v) -> std::optional<std::int64_t> { return nonNegativeBytes(v); },
        QStringLiteral("a number of bytes >= 0"), bytes(d.swapBudget));
    if (const auto v = r.raw(kSwapLimit)) {
        if (v->toString().trimmed().isEmpty())
            g.swapLimit.reset();
        else if (const auto n = nonNegativeBytes(*v))
            g.swapLimit = *n;
        else
            r.warn(kSwapLimit, *v, QStringLiteral("a number of bytes >= 0, or empty for unset"),
                   QStringLiteral("unset"));
    }
    r.read<double>(kQuietFor, g.quietFor, doubleIn(0, kDay), QStringLiteral("seconds >= 0"),
                   seconds(d.quietFor));
    r.read<double>(kStartTimeout, g.startTimeout, doubleIn(0, kDay), QStringLiteral("seconds >= 0"),
                   seconds(d.startTimeout));
    r.read<double>(kPoll, g.poll, doubleIn(0, kDay, true), QStringLiteral("seconds > 0"),
                   seconds(d.poll));
    if (const auto v = r.raw(kBusy)) {
        g.busy.clear();
        for (const QString& p : v->toStringList()) {
            if (p.isEmpty()) continue;  // an empty list may read back as one empty string
            try {
                BusyPatterns one({p.toStdString()});
                g.busy.push_back(p.toStdString());
            } catch (const Error& e) {
                r.note(QStringLiteral("Settings: guard/busy pattern '%1' ignored: %2")
                           .arg(p, QString::fromStdString(e.what())));
            }
        }
    }
    try {
        validate(g);
    } catch (const Error& e) {  // a rule the per-field checks above do not know yet
        if (warnings)
            warnings->append(
                QStringLiteral("Settings: the stored guard thresholds are refused (%1); using "
                               "the defaults")
                    .arg(QString::fromStdString(e.what())));
        g = GuardParams{};
    }
}

}  // namespace

QStringList StudioSettings::pipelines() {
    return {QStringLiteral("character")};
}

QStringList StudioSettings::devices() {
    return {QStringLiteral("cpu"), QStringLiteral("cuda"), QStringLiteral("mps")};
}

QStringList StudioSettings::removers() {
    return {QStringLiteral("auto"), QStringLiteral("u2netp"), QStringLiteral("isnet"),
            QStringLiteral("classical")};
}

QStringList StudioSettings::exportFormats() {
    return {QStringLiteral("glb"), QStringLiteral("obj")};
}

QList<int> StudioSettings::textureSizes() {
    return {1024, 2048, 4096};
}

void StudioSettings::addRecentFile(const QString& path) {
    if (path.isEmpty()) return;
    recentFiles.removeAll(path);
    recentFiles.prepend(path);
    while (recentFiles.size() > kMaxRecentFiles) recentFiles.removeLast();
}

StudioSettings loadSettings(const QSettings& settings, QStringList* warnings) {
    StudioSettings s;
    const StudioSettings d;
    Reader r(settings, warnings);
    const QString one = QStringLiteral("one of ");
    const QString comma = QStringLiteral(", ");

    r.read<QString>(kPipeline, s.pipeline, oneOf(StudioSettings::pipelines()),
                    one + StudioSettings::pipelines().join(comma), d.pipeline);
    r.read<qint64>(
        kSeed, s.seed,
        [](const QVariant& v) -> std::optional<qint64> {
            const auto n = asInt64(v);
            return n && *n >= 0 ? n : std::nullopt;
        },
        QStringLiteral("a whole number >= 0"), QString::number(d.seed));
    r.read<int>(
        kTextureSize, s.textureSize,
        [](const QVariant& v) -> std::optional<int> {
            const auto n = asInt64(v);
            if (!n || *n < 0 || *n > 4096 ||
                !StudioSettings::textureSizes().contains(static_cast<int>(*n)))
                return std::nullopt;
            return static_cast<int>(*n);
        },
        QStringLiteral("1024, 2048 or 4096"), QString::number(d.textureSize));
    r.read<int>(kTriangles, s.triangles,
                intIn(StudioSettings::kMinTriangles, StudioSettings::kMaxTriangles),
                QStringLiteral("%1 to %2")
                    .arg(StudioSettings::kMinTriangles)
                    .arg(StudioSettings::kMaxTriangles),
                QString::number(d.triangles));
    r.read<bool>(kStaged, s.staged, asBool, QStringLiteral("true or false"),
                 QStringLiteral("true"));
    r.read<QString>(kDevice, s.device, oneOf(StudioSettings::devices()),
                    one + StudioSettings::devices().join(comma), d.device);
    r.read<int>(kThreads, s.threads, intIn(0, StudioSettings::kMaxThreads),
                QStringLiteral("0 (all cores) to %1").arg(StudioSettings::kMaxThreads),
                QString::number(d.threads));
    r.read<QString>(kRemover, s.remover, oneOf(StudioSettings::removers()),
                    one + StudioSettings::removers().join(comma), d.remover);

    r.read<bool>(kGuardEnabled, s.guardEnabled, asBool, QStringLiteral("true or false"),
                 QStringLiteral("true"));
    readGuard(r, s.guard, warnings);

    if (const auto v = r.raw(kRecentFiles)) {
        const QStringList stored = v->toStringList();
        for (auto it = stored.crbegin(); it != stored.crend(); ++it) s.addRecentFile(*it);
    }
    if (const auto v = r.raw(kLastOpenDir)) s.lastOpenDir = v->toString();
    r.read<QString>(kExportFormat, s.exportFormat, oneOf(StudioSettings::exportFormats()),
                    one + StudioSettings::exportFormats().join(comma), d.exportFormat);
    if (const auto v = r.raw(kWindowGeometry)) s.windowGeometry = v->toByteArray();
    if (const auto v = r.raw(kWindowState)) s.windowState = v->toByteArray();
    return s;
}

void saveSettings(QSettings& settings, const StudioSettings& s) {
    const auto set = [&](const char* key, const QVariant& v) {
        settings.setValue(QLatin1String(key), v);
    };
    set(kPipeline, s.pipeline);
    set(kSeed, s.seed);
    set(kTextureSize, s.textureSize);
    set(kTriangles, s.triangles);
    set(kStaged, s.staged);
    set(kDevice, s.device);
    set(kThreads, s.threads);
    set(kRemover, s.remover);

    const GuardParams& g = s.guard;
    set(kGuardEnabled, s.guardEnabled);
    set(kWaitFree, g.waitFree);
    set(kKillFree, g.killFree);
    set(kSwapBudget, static_cast<qint64>(g.swapBudget));
    set(kSwapLimit,
        g.swapLimit ? QVariant(static_cast<qint64>(*g.swapLimit)) : QVariant(QString()));
    set(kQuietFor, g.quietFor);
    set(kStartTimeout, g.startTimeout);
    set(kPoll, g.poll);
    QStringList busy;
    for (const auto& p : g.busy) busy << QString::fromStdString(p);
    set(kBusy, busy);

    set(kRecentFiles, s.recentFiles);
    set(kLastOpenDir, s.lastOpenDir);
    set(kExportFormat, s.exportFormat);
    set(kWindowGeometry, s.windowGeometry);
    set(kWindowState, s.windowState);
}

}  // namespace stageload::studio
