// `stageload run IMAGE -o OUT.glb`: the built-in character pipeline, headless (SPEC §5.2).
// Progress goes to stderr, the per-stage table and the result to stdout.
//
// Exit codes (for scripts): 0 written; 2 bad flags; 65 the picture cannot be used (not an
// image, corrupt, too large, no subject); 66 the picture does not exist; 73 the output cannot
// be written (nothing half-written is left); 78 the learned remover's weights are broken;
// 130 interrupted (Ctrl+C); 1 anything else.
#include <csignal>
#include <cstdio>
#include <memory>
#include <optional>

#include <CLI/CLI.hpp>

#include "engine/core/errors.h"
#include "engine/image/image.h"
#include "engine/pipelines/character/character_run.h"
#include "guard/core/atomic_file.h"
#include "guard/meter/meter.h"
#include "ui/cli/commands.h"

namespace stageload::cli {
namespace {

constexpr int kExitPicture = 65, kExitNoInput = 66, kExitCannotWrite = 73, kExitWeights = 78,
              kExitInterrupted = 130;

struct RunOptions {
    std::string input;
    std::string output;
    std::string pipeline = "character";
    std::string load = "staged";
    std::int64_t seed = 1;
    int textureSize = 2048;
    int triangles = 40000;
    double height = 1.8;
    double thickness = 1.0;
    std::string remover = "auto";
    std::string weights;
    std::string device = "cpu";
    int threads = 0;
    std::string trace;
    std::string cutout;
};

std::atomic<bool> interrupted{false};
extern "C" void onInterrupt(int) { interrupted.store(true); }

double mib(std::int64_t bytes) { return static_cast<double>(bytes) / (1 << 20); }

int runCharacterCommand(const RunOptions& o) {
    CharacterParams p;
    p.input = o.input;
    p.output = o.output;
    p.mode = o.load == "eager" ? LoadMode::Eager : LoadMode::Staged;
    p.seed = o.seed;
    p.textureSize = o.textureSize;
    p.triangles = o.triangles;
    p.heightMeters = o.height;
    p.thickness = o.thickness;
    p.remover = o.remover == "u2netp"      ? RemoverChoice::U2NetP
                : o.remover == "isnet"     ? RemoverChoice::ISNet
                : o.remover == "classical" ? RemoverChoice::Classical
                                           : RemoverChoice::Auto;
    p.weightsDir = o.weights;
    p.device = o.device;
    p.threads = o.threads;
    validateCharacterParams(p);  // before the meter starts: a bad flag leaves no trace file

    std::optional<Meter> meter;
    if (!o.trace.empty()) {
        MeterParams mp;
        mp.tracePath = o.trace;
        mp.interval = 0.05;
        mp.meta = {{"pipeline", o.pipeline},  {"load", o.load},
                   {"seed", o.seed},          {"input", o.input},
                   {"texture_size", o.textureSize}, {"triangles", o.triangles}};
        meter.emplace(std::move(mp));
        p.events = meter->eventSink();
    }
    const auto stages = characterStages();
    std::size_t index = 0;
    p.onStage = [&](const std::string& stage, bool begins) {
        if (begins) std::fprintf(stderr, "[%zu/%zu] %s...\n", ++index, stages.size(), stage.c_str());
    };
    p.cancel = &interrupted;
    auto previous = std::signal(SIGINT, onInterrupt);
    CharacterResult r;
    try {
        r = runCharacter(p);
    } catch (...) {
        std::signal(SIGINT, previous);
        if (meter) meter->stop();
        throw;
    }
    std::signal(SIGINT, previous);
    if (meter) meter->stop();

    for (const auto& notice : r.notices) std::fprintf(stderr, "stageload: note: %s\n", notice.c_str());
    std::printf("\n%-11s %8s %10s %12s %6s %9s\n", "stage", "seconds", "peak MiB", "objects MiB",
                "loads", "releases");
    for (const auto& s : r.stages)
        std::printf("%-11s %8.2f %10.1f %12.1f %6d %9d\n", s.name.c_str(), s.seconds, mib(s.peakRss),
                    mib(s.weightBytes), s.loads, s.releases);
    std::printf("total %.2f s; picture %d×%d, subject from %s\n", r.seconds, r.inputWidth,
                r.inputHeight, maskSourceName(r.maskSource));
    std::printf("mesh: %zu vertices, %zu triangles (%s), texture %d×%d\n", r.mesh.vertexCount(),
                r.mesh.triangleCount(), r.meshReport.describe().c_str(), r.mesh.texture.width,
                r.mesh.texture.height);
    for (const auto& f : r.files) std::printf("wrote %s\n", f.c_str());
    if (!o.cutout.empty()) {
        writePngFile(o.cutout, r.cutout);
        std::printf("wrote %s (the cut-out)\n", o.cutout.c_str());
    }
    if (!o.trace.empty()) std::printf("trace written to %s\n", o.trace.c_str());
    return 0;
}

// Maps what went wrong to the documented exit codes; prints the message.
int fail(const std::exception& e, int code) {
    std::fprintf(stderr, "stageload: error: %s\n", e.what());
    return code;
}

int runGuarded(const RunOptions& o) {
    try {
        return runCharacterCommand(o);
    } catch (const Cancelled& e) {
        return fail(e, kExitInterrupted);
    } catch (const UsageError& e) {
        return fail(e, 2);
    } catch (const NoSubjectError& e) {
        return fail(e, kExitPicture);
    } catch (const ImageError& e) {
        std::error_code ec;
        return fail(e, std::filesystem::exists(o.input, ec) ? kExitPicture : kExitNoInput);
    } catch (const WeightFileError& e) {
        return fail(e, kExitWeights);
    } catch (const AtomicWriteError& e) {
        return fail(e, kExitCannotWrite);
    } catch (const FileError& e) {
        // The remaining file errors are about the output folder (checked before any work).
        return fail(e, kExitCannotWrite);
    }
}

}  // namespace

void addRunCommand(CLI::App& app, Selected& selected) {
    auto o = std::make_shared<RunOptions>();
    auto* cmd = app.add_subcommand(
        "run", "Turn one picture of a character into a textured mesh (.glb, or .obj + .mtl + .png)");
    cmd->footer("Exit codes: 0 written, 2 bad flags, 65 unusable picture (corrupt, too large, no "
                "subject), 66 no such picture, 73 output not writable, 78 broken weights, "
                "130 interrupted, 1 other errors.");
    cmd->add_option("image", o->input, "The picture: PNG, JPEG, WebP, BMP, TGA or GIF")->required();
    cmd->add_option("-o,--output", o->output, "The mesh to write: .glb, or .obj")->required();
    cmd->add_option("--pipeline", o->pipeline, "The pipeline to run")
        ->check(CLI::IsMember({"character"}));
    cmd->add_option("--load", o->load, "staged: each model only while a stage needs it; eager: all up front")
        ->check(CLI::IsMember({"staged", "eager"}));
    cmd->add_option("--seed", o->seed, "Seed of the global generator (the back texture's grain)");
    cmd->add_option("--texture-size", o->textureSize, "Texture atlas size: 1024, 2048 or 4096")
        ->check(CLI::IsMember({1024, 2048, 4096}));
    cmd->add_option("--triangles", o->triangles, "Triangle budget of the mesh (1000 to 2000000)")
        ->check(CLI::Range(1000, 2'000'000));
    cmd->add_option("--height", o->height, "The character's height in metres")
        ->check(CLI::Range(0.01, 1000.0));
    cmd->add_option("--thickness", o->thickness, "Front-to-back depth relative to the default (0.1 to 3)")
        ->check(CLI::Range(0.1, 3.0));
    cmd->add_option("--remover", o->remover,
                    "Background removal when the picture has no alpha: auto (U²-Netp, else "
                    "ISNet, whichever is installed), u2netp, isnet, classical")
        ->check(CLI::IsMember({"auto", "u2netp", "isnet", "classical"}));
    cmd->add_option("--weights", o->weights,
                    "Folder of installed weights (default $STAGELOAD_WEIGHTS_DIR or "
                    "~/.local/share/stageload/weights)");
    cmd->add_option("--device", o->device, "Where LibTorch runs: cpu, cuda or mps (where built)")
        ->check(CLI::IsMember({"cpu", "cuda", "mps"}));
    cmd->add_option("--threads", o->threads, "LibTorch threads (0: all cores)")->check(CLI::Range(0, 1024));
    cmd->add_option("--trace", o->trace, "Write the memory trace (JSONL) with every stage event here");
    cmd->add_option("--cutout", o->cutout, "Also save the subject's cut-out (RGBA PNG) here");
    cmd->callback([o, &selected] {
        selected = [o] {
            // Run in a function of its own so exit codes stay in one place.
            return runGuarded(*o);
        };
    });
}

}  // namespace stageload::cli
