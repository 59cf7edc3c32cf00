#include "engine/api/generator_job.h"

#include "engine/api/run_meta.h"

#include "engine/media/mesh_files.h"
#include "engine/media/mesh_formats.h"
#include "guard/base/units.h"

namespace stageload {
namespace {

std::string lastLines(const std::vector<std::string>& lines, std::size_t n) {
    std::string out;
    const std::size_t from = lines.size() > n ? lines.size() - n : 0;
    for (std::size_t i = from; i < lines.size(); ++i) out += "\n  " + lines[i];
    return out;
}

}  // namespace

std::string generatorMeshProblem(const GeneratorDef& def) {
    const auto where = def.source.empty() ? std::string("the definition") : def.source.string();
    if (!meshFormatNamed(def.format))
        return where + ": \"format\": '" + def.format + "' is not a mesh format Stageload reads; use one of " +
               readableMeshExtensions();
    if (!def.result.empty() && !meshFormatOf(def.result))
        return where + ": \"result\": '" + def.result + "' is not a mesh file Stageload reads (" +
               readableMeshExtensions() + ")";
    return {};
}

int GeneratorJobResult::exitCode() const {
    switch (end) {
        case GeneratorEnd::Done: return 0;
        case GeneratorEnd::StoppedByGuard: return run.exitCode;  // 3, 5 (stalled) or 6 (pressure)
        case GeneratorEnd::NoRoom: return kExitNoRoom;
        case GeneratorEnd::NotSetUp:
        case GeneratorEnd::CannotStart: return kExitCannotStart;
        case GeneratorEnd::Cancelled: return kExitCancelled;
        case GeneratorEnd::Invalid: return 2;
        case GeneratorEnd::Failed: return run.exitCode != 0 ? run.exitCode : 1;
    }
    return 1;
}

GeneratorJobResult runGeneratorJob(const GeneratorRunParams& p) noexcept {
    GeneratorJobResult j;
    const std::string name = "'" + p.def.name + "'";
    if (auto problem = generatorMeshProblem(p.def); !problem.empty()) {
        j.end = GeneratorEnd::Invalid;
        j.message = std::move(problem);
        return j;
    }
    try {
        GeneratorRunParams withPicture = p;
        addPictureSize(withPicture.meta, p.values.input);
        j.run = runGenerator(withPicture);
    } catch (const std::exception& e) {
        j.end = GeneratorEnd::Invalid;
        j.message = e.what();
        return j;
    }
    const auto& r = j.run;
    if (!r.commandTrace.empty()) {
        if (!r.commandTraceFound)
            j.notices.push_back(name + " wrote no trace at " + r.commandTrace.string() +
                                "; the chart shows its group's memory and the stages its output "
                                "names");
        else if (r.badTraceLines > 0)
            j.notices.push_back(name + "'s trace " + r.commandTrace.string() + " had " +
                                std::to_string(r.badTraceLines) +
                                " line(s) that are not trace lines, skipped (first: " +
                                r.firstBadTraceLine + ")");
    }
    if (!r.traceProblem.empty()) j.notices.push_back(r.traceProblem);
    // The guard's codes (3, 5, 6) only when the guard did stop it: a command may exit 5 itself.
    if (!r.guardStop.empty() &&
        (r.exitCode == kExitStoppedByGuard || r.exitCode == kExitStalled || r.exitCode == kExitMemoryPressure)) {
        j.end = GeneratorEnd::StoppedByGuard;
        j.message = name + " was stopped by the guard: " + r.guardStop + ". Its whole process group is gone.";
        return j;
    }
    switch (r.exitCode) {
        case kExitNoRoom:
            j.end = GeneratorEnd::NoRoom;
            j.message = name + " never started: no room within the start timeout";
            return j;
        case kExitCannotStart:
            if (!r.missing.empty()) {
                j.end = GeneratorEnd::NotSetUp;
                j.message = r.missing.front().message;
                for (std::size_t i = 1; i < r.missing.size(); ++i) j.message += "\n" + r.missing[i].message;
                return j;
            }
            j.end = GeneratorEnd::CannotStart;
            // The reason is in the message, not only in the log ("No such file or directory").
            j.message = name + " could not start" + (r.startError.empty() ? std::string() : ": " + r.startError) +
                        (r.stderrTail.empty() ? std::string(r.startError.empty() ? "." : "")
                                              : ":" + lastLines(r.stderrTail, 3));
            return j;
        case kExitCancelled:
            j.end = GeneratorEnd::Cancelled;
            if (const std::string why = p.cancelReason ? p.cancelReason() : std::string(); !why.empty())
                j.message = name + " was stopped (" + why + "); its whole process group is gone";
            else
                j.message = name + " was cancelled; its whole process group is gone";
            return j;
        case 0: break;
        default:
            j.end = GeneratorEnd::Failed;
            j.message = name + " exited with code " + std::to_string(r.exitCode) +
                        (r.stderrTail.empty() ? std::string(" and printed nothing on stderr")
                                              : "; its last lines:" + lastLines(r.stderrTail, 6)) +
                        "\n(everything it printed: " + r.log.string() + ")";
            return j;
    }
    j.meshFile = r.result.empty() ? p.values.output : r.result;
    std::error_code ec;
    const bool stale = r.resultBefore && std::filesystem::last_write_time(j.meshFile, ec) == *r.resultBefore;
    if (!std::filesystem::exists(j.meshFile, ec) || stale) {
        j.end = GeneratorEnd::Failed;
        j.message = name + " exited 0 but wrote no " + (stale ? "new " : "") + "mesh at " + j.meshFile.string() +
                    (p.def.result.empty() ? "; its command must write the file {output} names"
                                          : "; its definition's \"result\" says it leaves it there") +
                    " (log: " + r.log.string() + ")";
        return j;
    }
    try {
        j.mesh = readMeshFile(j.meshFile);
    } catch (const std::exception& e) {
        j.end = GeneratorEnd::Failed;
        j.message = name + " wrote " + j.meshFile.string() + ", but it does not read as a mesh: " +
                    e.what();
        return j;
    }
    j.end = GeneratorEnd::Done;
    j.message = name + ": " + std::to_string(j.mesh.vertexCount()) + " vertices, " +
                std::to_string(j.mesh.triangleCount()) + " triangles in " +
                formatDuration(r.seconds);
    return j;
}

}  // namespace stageload
