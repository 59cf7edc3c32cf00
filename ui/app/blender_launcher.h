#pragma once
// "Open in Blender": starts the `blender` found on PATH with a script that imports the mesh.
//
//   if (!stageload::studio::blenderExecutable().isEmpty())
//       stageload::studio::openInBlender("run/mesh.glb", &error);
//
// Debian's Blender 3.4 glTF importer trips over numpy 1.24 (`numpy.bool` was removed); the
// script puts the alias back before importing (FACTS.md). Thread-safe; throws nothing.

#include <QString>
#include <QStringList>

namespace stageload::studio {

/// The blender executable on PATH, or "" when there is none.
QString blenderExecutable();

/// The arguments that open Blender with an empty scene and `meshFile` (.glb/.gltf/.obj)
/// imported. `background`: run headless and quit after importing (for checks).
QStringList blenderArguments(const QString& meshFile, bool background = false);

/// Starts Blender detached. False with a message naming the file or the missing program.
bool openInBlender(const QString& meshFile, QString* error);

}  // namespace stageload::studio
