#pragma once
// Installs the learned background remover from the app: runs the project's
// install-weights.sh (packaging/ in the sources, shipped in <prefix>/share/stageload) (which fetches, checks by hash and converts the weights) into the
// folder the engine reads, with its progress in a dialog that can cancel it.
//
//   if (stageload::app::RemoverInstaller::run(this, stageload::RemoverChoice::U2NetP))
//       settingsPanel->updateRemovers();
//
// GUI thread only. Throws nothing: failures are shown and reported through the result.

#include <QString>
#include <QStringList>

#include "engine/api/choices.h"

class QWidget;

namespace stageload::app {

class RemoverInstaller {
public:
    /// The installer script: $STAGELOAD_INSTALL_WEIGHTS when set (tests), else the one shipped
    /// beside the program (dataDir()/install-weights.sh).
    static QString script();
    /// The script's arguments for `remover` (U2NetP or ISNet), into defaultWeightsDir().
    static QStringList arguments(RemoverChoice remover);

    /// Runs it with a progress dialog over `parent`; true when it finished and the remover's
    /// weights are there. `quiet`: no message boxes (scripted mode and tests).
    static bool run(QWidget* parent, RemoverChoice remover, bool quiet = false);
};

}  // namespace stageload::app
