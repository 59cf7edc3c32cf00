#include "ui/studio/studio_settings.h"

#include <cmath>
#include <functional>
#include <optional>
#include <string>
#include <utility>

#include <QDir>
#include <QFileInfo>
#include <QSettings>
#include <QStandardPaths>
#include <QVariant>

#include "guard/base/error.h"
#include "engine/media/mesh_formats.h"
#include "guard/policy/guard_options.h"
#include "ui/chart/display_units.h"

namespace stageload::studio {
namespace {

// The keys, grouped as the header says; run settings and guard thresholds take theirs from
// their tables ("run/" + runField.key, "guard/" + guardOption.key).
constexpr auto kGenerator = "run/generator";
constexpr auto kGeneratorParams = "generators";
constexpr auto kGuardEnabled = "guard/enabled";
constexpr auto kWaitForForecast = "guard/waitForForecast";
constexpr auto kRecentFiles = "files/recent";
constexpr auto kLastOpenDir = "files/lastOpenDir";
constexpr auto kLastExportDir = "files/lastExportDir";
constexpr auto kExportFormat = "export/format";
constexpr auto kUnits = "display/units";
constexpr auto kWindowGeometry = "window/geometry";
constexpr auto kWindowState = "window/state";

QString runKey(const RunFieldInfo& f) {
    return QStringLiteral("run/") + QString::fromUtf8(f.key.data(), qsizetype(f.key.size()));
}

QString guardKey(const GuardOption& o) {
    return QStringLiteral("guard/") + QString::fromUtf8(o.key.data(), qsizetype(o.key.size()));
}

QString shown(const QVariant& v) {
    if (v.typeId() == QMetaType::QStringList) return v.toStringList().join(QStringLiteral(", "));
    return v.toString();
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
    std::optional<QVariant> raw(const QString& key) const {
        if (!settings_.contains(key)) return std::nullopt;
        QVariant v = settings_.value(key);
        if (!v.isValid()) return std::nullopt;
        return v;
    }

    template <typename T>
    void read(const QString& key, T& field,
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

    void warn(const QString& key, const QVariant& v, const QString& expected,
              const QString& fallback) const {
        if (!warnings_) return;
        warnings_->append(QStringLiteral("Settings: %1 = '%2' ignored (expected %3); using %4")
                              .arg(key, shown(v), expected, fallback));
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

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// Each stored run setting through the settings table: a value the table refuses (or that
// validate() refuses) keeps the default and adds a warning.
void readRun(Reader& r, RunSettings& run) {
    const RunSettings defaults;
    for (const auto& f : runFields()) {
        const QString key = runKey(f);
        const auto v = r.raw(key);
        if (!v) continue;
        RunSettings next = run;
        try {
            setSetting(next, f.field, v->toString().toStdString());
            validate(next);
            run = next;
        } catch (const SettingError& e) {
            r.warn(key, *v, QString::fromStdString(e.problem()),
                   QString::fromStdString(settingText(defaults, f.field)));
        }
    }
}

// The same for the guard's thresholds; a bad busy pattern drops that pattern alone.
void readGuard(Reader& r, GuardParams& g) {
    const GuardParams defaults;
    for (const auto& o : guardOptions()) {
        if (!o.inPanel) continue;
        const QString key = guardKey(o);
        const auto v = r.raw(key);
        if (!v) continue;
        if (o.kind == GuardValueKind::Patterns) {
            g.busy.clear();
            for (const QString& p : v->toStringList()) {
                if (p.trimmed().isEmpty()) continue;  // an empty list may read back as ""
                GuardParams one;
                try {
                    setGuardValue(one, o, p.toStdString());
                    g.busy.push_back(p.trimmed().toStdString());
                } catch (const SettingError& e) {
                    r.note(QStringLiteral("Settings: guard/busy pattern '%1' ignored: %2")
                               .arg(p, QString::fromStdString(e.problem())));
                }
            }
            continue;
        }
        GuardParams next = g;
        try {
            setGuardValue(next, o, v->toString().toStdString());
            validate(next);
            g = next;
        } catch (const SettingError& e) {
            const std::string fallback = guardValueText(defaults, o);
            r.warn(key, *v, QString::fromStdString(e.problem()),
                   fallback.empty() ? QStringLiteral("unset") : QString::fromStdString(fallback));
        }
    }
}

QVariant storedGuardValue(const GuardParams& g, const GuardOption& o) {
    switch (o.kind) {
        case GuardValueKind::Percent:
        case GuardValueKind::Duration: return g.*o.real;
        case GuardValueKind::Size: return static_cast<qint64>(g.*o.size);
        case GuardValueKind::OptionalSize:
            if (o.wordFlag && g.*o.wordFlag) return QString::fromUtf8(o.word.data(), static_cast<qsizetype>(o.word.size()));
            return g.*o.limit ? QVariant(static_cast<qint64>(*(g.*o.limit))) : QVariant(QString());
        case GuardValueKind::Patterns: {
            QStringList list;
            for (const auto& p : g.*o.patterns) list << QString::fromStdString(p);
            return list;
        }
        case GuardValueKind::OptionalPercent:
        case GuardValueKind::OptionalDuration:
        case GuardValueKind::PercentFor: return QString::fromStdString(guardValueText(g, o));  // "" when unset
    }
    return {};
}

}  // namespace

QStringList StudioSettings::exportFormats() {
    QStringList formats;
    for (const auto& f : meshFormats())
        if (f.write) formats << text(f.word);
    return formats;
}

QString StudioSettings::generatorKey(const QString& definitionFile) {
    QString name = definitionFile.section(QLatin1Char('/'), -1);
    if (name.endsWith(QLatin1String(".json"))) name.chop(5);
    return name;
}

QString dialogStartFolder(const QString& remembered) {
    if (!remembered.isEmpty() && QFileInfo(remembered).isDir()) return remembered;
    const QString documents = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    return !documents.isEmpty() && QFileInfo(documents).isDir() ? documents : QDir::homePath();
}

void rememberFolder(QString& slot, const QString& file, const QString& runsRoot) {
    const QString folder = QDir::cleanPath(QFileInfo(file).absolutePath());
    const QString root = QDir::cleanPath(QFileInfo(runsRoot).absoluteFilePath());
    if (!runsRoot.isEmpty() && (folder == root || folder.startsWith(root + QLatin1Char('/')))) return;
    slot = folder;
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

    readRun(r, s.run);
    if (const auto v = r.raw(kGenerator)) s.generator = v->toString();
    for (const QString& key : settings.allKeys()) {
        const QStringList parts = key.split(QLatin1Char('/'));
        if (parts.size() == 3 && parts[0] == QLatin1String(kGeneratorParams) && !parts[1].isEmpty() &&
            !parts[2].isEmpty())
            s.generatorParams[parts[1]][parts[2]] = settings.value(key).toString();
    }

    r.read<bool>(kGuardEnabled, s.guardEnabled, asBool, QStringLiteral("true or false"),
                 QStringLiteral("true"));
    r.read<bool>(kWaitForForecast, s.waitForForecast, asBool, QStringLiteral("true or false"),
                 QStringLiteral("false"));
    readGuard(r, s.guard);
    try {
        validate(s.guard);
    } catch (const Error& e) {  // a rule between thresholds that one value alone cannot break
        r.note(QStringLiteral("Settings: the stored guard thresholds are refused (%1); using the "
                              "defaults")
                   .arg(QString::fromStdString(e.what())));
        s.guard = GuardParams{};
    }

    if (const auto v = r.raw(kRecentFiles)) {
        const QStringList stored = v->toStringList();
        for (auto it = stored.crbegin(); it != stored.crend(); ++it) s.addRecentFile(*it);
    }
    if (const auto v = r.raw(kLastOpenDir)) s.lastOpenDir = v->toString();
    if (const auto v = r.raw(kLastExportDir)) s.lastExportDir = v->toString();
    r.read<QString>(kExportFormat, s.exportFormat, oneOf(StudioSettings::exportFormats()),
                    one + StudioSettings::exportFormats().join(comma), d.exportFormat);
    r.read<ByteUnits>(kUnits, s.units, [](const QVariant& v) { return chart::unitsFromWord(v.toString().trimmed()); },
                      one + chart::unitsWord(ByteUnits::Binary) + comma + chart::unitsWord(ByteUnits::Decimal),
                      chart::unitsWord(d.units));
    if (const auto v = r.raw(kWindowGeometry)) s.windowGeometry = v->toByteArray();
    if (const auto v = r.raw(kWindowState)) s.windowState = v->toByteArray();
    return s;
}

void saveSettings(QSettings& settings, const StudioSettings& s) {
    const auto set = [&](const char* key, const QVariant& v) {
        settings.setValue(QLatin1String(key), v);
    };
    for (const auto& f : runFields())
        settings.setValue(runKey(f), QString::fromStdString(settingText(s.run, f.field)));
    set(kGenerator, s.generator);
    settings.remove(QLatin1String(kGeneratorParams));
    for (auto g = s.generatorParams.begin(); g != s.generatorParams.end(); ++g)
        for (auto p = g.value().begin(); p != g.value().end(); ++p)
            settings.setValue(QLatin1String(kGeneratorParams) + QLatin1Char('/') + g.key() + QLatin1Char('/') + p.key(),
                              p.value());
    set(kGuardEnabled, s.guardEnabled);
    set(kWaitForForecast, s.waitForForecast);
    for (const auto& o : guardOptions())
        if (o.inPanel) settings.setValue(guardKey(o), storedGuardValue(s.guard, o));

    set(kRecentFiles, s.recentFiles);
    set(kLastOpenDir, s.lastOpenDir);
    set(kLastExportDir, s.lastExportDir);
    set(kExportFormat, s.exportFormat);
    set(kUnits, chart::unitsWord(s.units));
    set(kWindowGeometry, s.windowGeometry);
    set(kWindowState, s.windowState);
}

}  // namespace stageload::studio
