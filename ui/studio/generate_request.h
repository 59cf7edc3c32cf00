#pragma once
// What one Generate asks for and what it gives back, as plain values that cross threads by
// queued signals.
//
//   stageload::studio::GenerateRequest r;
//   r.input = "hero.png";
//   r.output = record.filePath("mesh.glb");      // inside the run's history folder
//   r.trace = record.filePath("trace.jsonl");
//   r.run = settings.run;                        // seed, texture size, load mode, ...
//   r.guard = settings.guard;                    // the guard's thresholds
//   r.generator = catalog.generators[0];         // optional: an external generator
//
// No Torch here: the main window includes this header.

#include <QJsonObject>
#include <QList>
#include <QMetaType>
#include <QPair>
#include <QString>
#include <QStringList>
#include <map>
#include <memory>
#include <optional>

#include "engine/api/run_settings.h"
#include "guard/base/event.h"
#include "engine/media/image.h"
#include "engine/media/mesh.h"
#include "guard/generator/generator_def.h"
#include "guard/memory/readers.h"
#include "guard/policy/guard_params.h"

namespace stageload::studio {

struct GenerateRequest {
    QString input;             ///< the picture
    QString output;            ///< the mesh to write (.glb or .obj)
    QString trace;             ///< the memory trace to write (JSONL); empty: none
    QString cutout;            ///< where to save the cut-out PNG; empty: not saved
    QString weightsDir;        ///< empty: the engine's default folder
    RunSettings run;           ///< pipeline, seed, sizes, load mode, device, remover, threads
    /// Set: run this external generator as a guarded child process instead of the built-in
    /// pipeline (seed and texture size come from `run`); its log, own trace and mesh go to
    /// `runDir`, and `output` is where its mesh is (the format's extension).
    std::optional<GeneratorDef> generator;
    std::map<std::string, std::string> generatorParams;  ///< overrides of its params
    QString runDir;            ///< the run's folder (the history record's)
    QString stageloadCommand;  ///< this project's CLI, for {stageload}
    bool guardEnabled = true;  ///< wait for room and watch the budget
    GuardParams guard;         ///< the guard's thresholds
    double sampleInterval = 0.05;  ///< meter interval in seconds (20 Hz feeds a smooth chart)
    /// Added to the run's CPU niceness (Linux), so the window and the rest of the machine stay
    /// responsive while the pipeline uses every core. 0: same priority as the app.
    int niceness = 10;
};

/// Where a run ended. `Stopped` means the guard stopped it (or it never got room to start).
/// Stopped: by the guard; Interrupted: the app stopped it because it is being ended.
enum class RunEnd { Done, Failed, Cancelled, Stopped, Interrupted };

struct GenerateOutcome {
    RunEnd end = RunEnd::Done;
    QString title;    ///< short: "Cannot read the picture", "Stopped by the guard", ...
    QString message;  ///< the whole story, naming the file, stage or threshold
    std::shared_ptr<const TexturedMesh> mesh;  ///< set when Done
    QStringList files;                          ///< written files
    QStringList notices;                        ///< fallbacks the user should know about
    QString maskSource;                         ///< "alpha", "u2netp", ...
    QString meshCheck;                          ///< "closed, manifold, outward" or what is wrong
    QList<QPair<QString, double>> stageSeconds; ///< finished stages, in order
    QJsonObject summary;                        ///< the trace's summary (toJson), {} if none
    double seconds = 0.0;
    /// What `stageload run` would exit with: 0 done, 3 stopped by the guard, 4 no room, ...
    int exitCode = 0;
    bool notSetUp = false;  ///< a generator whose "requires" are missing: nothing started
    QStringList command;    ///< a generator's command line as it ran (expanded)
};

/// "done", "failed", "cancelled", "stopped" (the history's status words).
QString toStatus(RunEnd end);

}  // namespace stageload::studio

Q_DECLARE_METATYPE(stageload::MemorySample)
Q_DECLARE_METATYPE(stageload::Event)
Q_DECLARE_METATYPE(stageload::Image)
Q_DECLARE_METATYPE(stageload::studio::GenerateOutcome)
