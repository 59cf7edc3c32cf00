#pragma once
// Between the settings and a run, both ways, without the window: what a Generate turns into (its
// history record and the worker's request), what keeps a generator from starting, and the
// record once the run has ended.
//
//   std::map<std::string, std::string> params;
//   if (generator) params = generatorRunParams(settings, *generator, scriptParams);
//   if (generator && !missingSetup(*generator, params).isEmpty()) return;  // refuse: set it up
//   auto run = launchRun(history, settings, picture, generator, params, stageloadCli);
//   controller.start(run.request);                 // the worker runs it
//   ...
//   recordOutcome(run.record, outcome);            // when it has ended, any way
//   history.save(run.record);
//
// No Torch here.

#include <map>
#include <string>

#include <QMap>
#include <QString>
#include <QStringList>

#include "guard/generator/generator_def.h"
#include "ui/studio/generate_request.h"
#include "ui/studio/run_history.h"
#include "ui/studio/run_record.h"
#include "ui/studio/studio_settings.h"

namespace stageload::studio {

/// The params a run of `generator` gets: those saved for it in `settings` (values of params the
/// definition no longer has are left out), then `overrides` (a script's --param), then Loading as
/// its "load" param where it has one and `overrides` does not set it.
std::map<std::string, std::string> generatorRunParams(const StudioSettings& settings,
                                                      const GeneratorDef& generator,
                                                      const std::map<std::string, std::string>& overrides = {});

/// The `stageload` a generator's {stageload} runs: the one beside the app (installed, or in the
/// build tree), else the one on PATH.
QString stageloadCommand();

/// What keeps `generator` from starting with `params` (and stageloadCommand() for its
/// {stageload}): one sentence each, naming the missing path and the param that sets it, or why
/// a value is refused. Empty: it is set up.
QStringList missingSetup(const GeneratorDef& generator, const std::map<std::string, std::string>& params);
/// The same for values saved in the settings: those of params `generator` no longer has are left
/// out.
QStringList missingSetup(const GeneratorDef& generator, const QMap<QString, QString>& saved);

/// A run about to start: its history record (saved, status "running") and the worker's request.
struct LaunchedRun {
    RunRecord record;
    GenerateRequest request;
};

/// Creates the history record of a run of `picture` with `settings` — the built-in pipeline, or
/// `generator` with `params` (generatorRunParams) — and the request for it: the mesh, the trace
/// and the cut-out in the record's folder. The record keeps what the run is given (a built-in
/// run's settings as the trace's meta keys; a generator's name, file, params, seed and texture
/// size where its command uses them) and its load mode ("" for a generator without a "load"
/// param: it has its own). `stageloadCommand`: this project's CLI, for a generator's
/// {stageload}. Throws stageload::Error when the history cannot keep the record.
LaunchedRun launchRun(RunHistory& history, const StudioSettings& settings, const QString& picture,
                      const GeneratorDef* generator, const std::map<std::string, std::string>& params,
                      const QString& stageloadCommand);

/// `record` once its run has ended with `outcome`: status, message (a run that succeeded keeps
/// its notes), seconds and per-stage seconds, the mesh's counts, the trace's summary, a
/// generator's command as it ran; output and cut-out cleared where no file was written.
void recordOutcome(RunRecord& record, const GenerateOutcome& outcome);

}  // namespace stageload::studio
