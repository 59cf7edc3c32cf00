#include "engine/api/generator_job.h"

#include "engine/api/run_meta.h"

#include "engine/media/mesh_files.h"
#include "engine/base/units.h"

namespace stageload {
namespace {

std::string lastLines(const std::vector<std::string>& lines, std::size_t n) {
    std::string out;
    const std::size_t from = lines.size() > n ? lines.size() - n : 0;
    for (std::size_t i = from; i < lines.size(); ++i) out += "\n  " + lines[i];
    return out;
}

}  // namespace

int GeneratorJobResult::exitCode() const {
    switch (end) {
        case GeneratorEnd::Done: return 0;
        case GeneratorEnd::StoppedByGuard: return kExitStoppedByGuard;
        case GeneratorEnd::NoRoom: return kExitNoRoom;
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
    switch (r.exitCode) {
        case kExitStoppedByGuard:
            j.end = GeneratorEnd::StoppedByGuard;
            j.message = name + " was stopped by the guard: " + r.guardStop +
                        ". Its whole process group is gone.";
            return j;
        case kExitNoRoom:
            j.end = GeneratorEnd::NoRoom;
            j.message = name + " never started: no room within the start timeout";
            return j;
        case kExitCannotStart:
            j.end = GeneratorEnd::CannotStart;
            j.message = name + " could not start" +
                        (r.stderrTail.empty() ? std::string(".") : ":" + lastLines(r.stderrTail, 3));
            return j;
        case kExitCancelled:
            j.end = GeneratorEnd::Cancelled;
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
    j.meshFile = p.values.output;
    std::error_code ec;
    if (!std::filesystem::exists(j.meshFile, ec)) {
        j.end = GeneratorEnd::Failed;
        j.message = name + " exited 0 but wrote no mesh at " + j.meshFile.string() +
                    "; its command must write the file {output} names (log: " + r.log.string() + ")";
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
