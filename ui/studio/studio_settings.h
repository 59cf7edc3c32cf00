#pragma once
// What Stageload Studio remembers between sessions:
// the run's settings, the guard's thresholds, recent files and the window's layout.
//
//   QSettings qs;                                        // the app's organisation + name
//   QStringList ignored;
//   stageload::studio::StudioSettings s = stageload::studio::loadSettings(qs, &ignored);
//   for (const auto& w : ignored) log(w);                // "run/textureSize = '3000' ignored ..."
//   s.addRecentFile("/pictures/hero.png");
//   stageload::studio::saveSettings(qs, s);
//
// Keys are grouped: "run/<key>" for each row of runFields() (as its text: "run/load" = "eager"),
// "guard/<key>" for each row of guardOptions() that the panel shows (sizes as bytes, durations
// as seconds, busy patterns as a string list), "generators/<generator>/<param>",
// "files/recent", "display/units", "window/geometry". loadSettings() never
// throws and never returns something a run would refuse: each stored value that is missing,
// unreadable or out of range falls back to that field's default, and each one that was present
// but ignored adds a line to `warnings`. saveSettings() writes every field (it does not sync).
// Plain data: a StudioSettings is a value; the functions are reentrant (one QSettings per
// thread, as Qt requires).
//
// Guard defaults: the app keeps the CLI's defaults (poll 5 s, quiet-for 1 min, ...),
// so a run guarded in the app behaves like the same run under `stageload guard`. Quiet-for only
// matters once busy patterns are set, and a 5 s poll is what the CLI's two-readings-in-a-row
// kill rule was tuned for; users who want faster reactions lower the poll in the guard panel.

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

#include "engine/api/run_settings.h"
#include "guard/base/units.h"
#include "guard/policy/guard_params.h"

class QSettings;

namespace stageload::studio {

struct StudioSettings {
    static constexpr int kMaxRecentFiles = 10;

    // Run: the same settings, limits and defaults as `stageload run` (engine/api/run_settings.h).
    stageload::RunSettings run;
    /// The generator definition file to run instead of the built-in pipeline ("" = built-in).
    QString generator;
    /// Each generator's params as the user set them (Set up, the settings panel): only the
    /// values that differ from the definition's defaults, by generatorKey() of its file.
    /// Stored as "generators/<key>/<param>".
    QMap<QString, QMap<QString, QString>> generatorParams;

    /// The key a definition file's params are kept under: its name without ".json"
    /// ("trellis-cpp"), so a shipped preset and the user's copy of it share them.
    static QString generatorKey(const QString& definitionFile);

    // Guard. Only the thresholds are stored; stopGrace, tracePath and traceInterval
    // are per run and keep GuardParams' defaults.
    bool guardEnabled = true;
    stageload::GuardParams guard;
    /// The guard also waits until the forecast peak and its margin are available.
    bool waitForForecast = false;

    // Files and window.
    QStringList recentFiles;  ///< most recent first, no duplicates, at most kMaxRecentFiles
    QString lastOpenDir;    ///< where Open dialogs start: the folder of the last file the user opened
    QString lastExportDir;  ///< where Export and Save dialogs start: the folder last saved to
    QString exportFormat = QStringLiteral("glb");  ///< a word of meshFormats() that writes
    /// The unit family sizes are shown in (Preferences): "display/units" = binary or decimal.
    stageload::ByteUnits units = stageload::ByteUnits::Binary;
    QByteArray windowGeometry;                     ///< QWidget::saveGeometry()
    QByteArray windowState;                        ///< QMainWindow::saveState()

    static QStringList exportFormats();  ///< the words of meshFormats() that write

    /// Puts `path` first, drops an earlier entry of the same path and keeps at most
    /// kMaxRecentFiles. Empty paths are ignored.
    void addRecentFile(const QString& path);
};

/// The folder a file dialog starts in: `remembered` while it is a folder, else the user's
/// Documents (their home where there is none).
QString dialogStartFolder(const QString& remembered);

/// Remembers `file`'s folder in `slot`, unless it lies under `runsRoot`: a run reopened from the
/// history opens files in the app's own hidden folders, where no dialog should start.
void rememberFolder(QString& slot, const QString& file, const QString& runsRoot);

/// Reads every field; see the header comment for what happens to invalid values. `warnings`
/// (optional) gets one line per stored value that was ignored. Never throws.
StudioSettings loadSettings(const QSettings& settings, QStringList* warnings = nullptr);

/// Writes every field under its grouped key. An unset swap limit is written as an empty value.
void saveSettings(QSettings& settings, const StudioSettings& values);

}  // namespace stageload::studio
