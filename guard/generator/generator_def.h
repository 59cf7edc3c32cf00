#pragma once
// A generator: any program that turns a picture into a mesh, described by one small JSON file,
// so the app and `stageload run --generator` can run it under the guard, chart its memory and
// show the mesh it writes.
//
//   {"name": "Pixal3D (stageload)",
//    "command": ["python3", "run.py", "--image", "{input}", "--out", "{output}",
//                "--seed", "{seed}", "--trace", "{trace}"],
//    "workdir": "~/src/pixal3d-mac", "env": {"PYTORCH_ENABLE_MPS_FALLBACK": "1"},
//    "format": "glb", "trace": "{trace}",
//    "stage_pattern": "^\\[stage\\] (\\w+)", "progress_pattern": "(\\d+)%\\|",
//    "params": {"steps": "25"},
//    "stage_weights": {"shape": ["ckpt/shape/*.safetensors"], "texture": "ckpt/texture.safetensors"}}
//
//   auto def = stageload::readGeneratorDef("pixal3d.json");        // GeneratorDefError
//   GeneratorValues v{.input = "hero.png", .output = "run/mesh.glb", .runDir = "run", ...};
//   auto cmd = stageload::expandGenerator(def, v);                 // argv, workdir, env, trace
//
// Placeholders: {input} {output} {seed} {texture_size} {trace} {run_dir} {stageload} (this
// project's own command-line tool) and one per key of "params" (a value the user may change,
// with its default). "{{" and "}}" are literal braces. "stage_weights" names the weight files
// each stage loads, which the memory forecast counts exactly (engine/api/stage_weights.h).
// Only "name" and "command" are required.
// Every file is checked on load: the error names the file and the field (an unknown placeholder,
// a bad regex, a missing command, an unknown format, a key that is not known).
// Pure functions, thread-safe.

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "engine/base/error.h"

namespace stageload {

/// A generator file that cannot be used. field() is the JSON key ("command[2]", "stage_pattern").
class GeneratorDefError : public UsageError {
public:
    GeneratorDefError(std::string file, std::string field, const std::string& problem);
    const std::string& file() const { return file_; }
    const std::string& field() const { return field_; }

private:
    std::string file_;
    std::string field_;
};

struct GeneratorDef {
    std::string name;
    std::string description;
    std::vector<std::string> command;  ///< argv, with placeholders
    std::string workdir;               ///< "~" and placeholders allowed; empty: the run's folder
    std::vector<std::pair<std::string, std::string>> env;
    std::string format = "glb";        ///< "glb" or "obj": the extension of {output}
    std::string trace;                 ///< where the command writes a stageload trace ("{trace}")
    std::string stagePattern;          ///< regex over output lines; group 1 = the stage's name
    std::string progressPattern;       ///< regex over output lines; group 1 = percent
    std::vector<std::pair<std::string, std::string>> params;  ///< user placeholders, defaults
    /// The weight files each stage loads ("stage_weights"), for the memory forecast: names with
    /// placeholders, "~", and * or ? in the file name; relative to the workdir, else to `source`.
    std::vector<std::pair<std::string, std::vector<std::string>>> stageWeights;
    std::filesystem::path source;      ///< the file it was read from (empty: not from a file)
};

/// Parses and checks a definition; `source` names it in messages. GeneratorDefError.
GeneratorDef parseGeneratorDef(const std::string& json, const std::filesystem::path& source);
/// Reads and checks a file. GeneratorDefError (also for a missing or unreadable file).
GeneratorDef readGeneratorDef(const std::filesystem::path& file);
/// The definition as JSON text (what parseGeneratorDef() reads back), pretty-printed.
std::string generatorDefJson(const GeneratorDef& def);
/// Writes generatorDefJson() atomically (AtomicWriteError).
void writeGeneratorDef(const GeneratorDef& def, const std::filesystem::path& file);

/// The values placeholders are replaced with for one run.
struct GeneratorValues {
    std::filesystem::path input;
    std::filesystem::path output;   ///< with the format's extension
    std::int64_t seed = 1;
    int textureSize = 2048;
    std::filesystem::path trace;    ///< where the command's own trace goes (inside runDir)
    std::filesystem::path runDir;
    std::filesystem::path stageload;  ///< this project's CLI
    std::map<std::string, std::string> params;  ///< overrides of the definition's params
};

/// One run's command, placeholders replaced.
struct GeneratorCommand {
    std::vector<std::string> argv;
    std::string workdir;  ///< "~" expanded
    std::vector<std::pair<std::string, std::string>> env;
    std::string trace;    ///< the command's own trace file; empty: it writes none
};

/// Replaces the placeholders. GeneratorDefError for a param override the definition lacks.
GeneratorCommand expandGenerator(const GeneratorDef& def, const GeneratorValues& values);

/// Each stage of "stage_weights" with its file names for a run, placeholders and "~" replaced,
/// relative names made absolute (globs are left as they are). Throws as expandGenerator() does.
std::vector<std::pair<std::string, std::vector<std::filesystem::path>>> expandStageWeights(
    const GeneratorDef& def, const GeneratorValues& values);

/// `argv` as one line a POSIX shell would run: arguments with anything but [A-Za-z0-9_./=:,+@%-]
/// in single quotes ("python3 run.py --image '/p/my hero.png'"). For showing, never for running.
std::string shellCommandLine(const std::vector<std::string>& argv);

/// The folders generators are looked up in, in order: $STAGELOAD_GENERATORS_DIR (if set),
/// ${XDG_CONFIG_HOME:-~/.config}/stageload/generators, then `shipped` (the project's own).
std::vector<std::filesystem::path> generatorDirs(const std::filesystem::path& shipped);

struct GeneratorCatalog {
    std::vector<GeneratorDef> generators;  ///< valid ones; a name found twice: the first wins
    std::vector<std::string> problems;     ///< one message per file that was refused
};

/// Every *.json file directly in `dirs` (missing folders are skipped), checked.
GeneratorCatalog findGenerators(const std::vector<std::filesystem::path>& dirs);

}  // namespace stageload
