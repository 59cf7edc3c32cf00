#pragma once
// A generator run from start to mesh: runGenerator() (guarded child process, merged trace), then
// the mesh it wrote read back, and whatever went wrong said in one sentence with its kind. The
// CLI's `run --generator` and the app's worker both go through here.
//
//   stageload::GeneratorRunParams p = ...;               // see guard/generator/generator_run.h
//   auto job = stageload::runGeneratorJob(p);
//   if (!job.ok()) { fprintf(stderr, "%s\n", job.message.c_str()); return job.exitCode(); }
//   show(job.mesh);                                       // read back from job.meshFile
//
// No Torch and no Qt here. Never throws: every failure is in the result.

#include <filesystem>
#include <string>
#include <vector>

#include "engine/media/mesh.h"
#include "guard/generator/generator_run.h"

namespace stageload {

enum class GeneratorEnd {
    Done,           ///< the command exited 0 and its mesh reads back
    StoppedByGuard, ///< exit 3, 5 or 6: a budget breach, a stall or memory pressure stopped the group
    NoRoom,         ///< exit 4: no room to start in time
    NotSetUp,       ///< exit 127: what its definition "requires" is missing (run.missing)
    CannotStart,    ///< exit 127: not found, not executable, no such folder
    Cancelled,      ///< exit 130
    Failed,         ///< the command failed, wrote no mesh, or a mesh that does not read
    Invalid,        ///< the definition or the run folder is not usable (nothing was started)
};

struct GeneratorJobResult {
    GeneratorEnd end = GeneratorEnd::Failed;
    GeneratorRunResult run;
    std::string message;                 ///< what happened, naming the generator and files
    std::vector<std::string> notices;    ///< things to know even when it worked (a garbage trace)
    std::filesystem::path meshFile;      ///< the file it wrote (its "result", else {output})
    TexturedMesh mesh;                   ///< read back (Done)

    bool ok() const { return end == GeneratorEnd::Done; }
    /// The guard's codes (3, 4, 127 also for NotSetUp, 130), 2 for Invalid, the command's own code for Failed
    /// (1 when it exited 0 but its mesh is missing or broken), 0 for Done.
    int exitCode() const;
};

/// Checks before a run starts: runGeneratorJob() ends Invalid with this message.
GeneratorJobResult runGeneratorJob(const GeneratorRunParams& params) noexcept;

/// What makes `def`'s mesh unreadable for Stageload: its "format" or its "result" names no format
/// of meshFormats() that reads. "" when both do. (The guard's parser only checks their form.)
std::string generatorMeshProblem(const GeneratorDef& def);

}  // namespace stageload
