#pragma once
// "Open in Blender": starts the `blender` found on PATH with a script that imports the mesh.
//
//   if (!stageload::app::blenderExecutable().isEmpty())
//       stageload::app::openInBlender("run/mesh.glb", &error, "blender.log");
//   ... later: if (auto r = blenderImportResult(logText); r && !r->ok) show(r->detail);
//
// Debian's Blender 3.4 glTF importer trips over numpy 1.24 (`numpy.bool` was removed); the
// script puts the alias back before importing (FACTS.md). Thread-safe; throws nothing.

#include <optional>

#include <QString>
#include <QStringList>

namespace stageload::app {

/// The blender executable on PATH, or "" when there is none.
QString blenderExecutable();

/// The arguments that open Blender with the user's own preferences, an empty scene and
/// `meshFile` (any format of meshFormats()) imported upright and unrotated, once its window is
/// up. `background`: run headless from the factory settings and quit after importing (for
/// checks); `quitAfterImport`: quit once imported with a window too (for checks under Xvfb).
/// Blender prints one line with the outcome (see blenderImportResult()), before it one with
/// the first mesh's size and rotation: "stageload: size 1.0000 2.0000 0.5000 rotation 0 0 0".
QStringList blenderArguments(const QString& meshFile, bool background = false,
                             bool quitAfterImport = false);

/// What the import printed: ok with "1 mesh object(s)", or not ok with Blender's error.
struct BlenderImport {
    bool ok = false;
    QString detail;
};
/// The outcome line in Blender's `output` so far; nullopt while there is none yet.
std::optional<BlenderImport> blenderImportResult(const QString& output);

/// Starts Blender detached, its output going to `logFile` (when given) for
/// blenderImportResult(). False with a message naming the file or the missing program.
bool openInBlender(const QString& meshFile, QString* error, const QString& logFile = {});

}  // namespace stageload::app
