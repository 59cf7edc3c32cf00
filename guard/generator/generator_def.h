#pragma once
// A generator: any program that turns a picture into a mesh, described by one small JSON file,
// so the app and `stageload run --generator` can run it under the guard, chart its memory and
// show the mesh it writes.
//
//   {"name": "trellis.cpp",
//    "command": ["{trellis_cli}", "{input}", "{output}", "-m", "{models}", "-s", "{seed}"],
//    "params": {"trellis_cli": "~/trellis.cpp/build/bin/trellis-cli",
//               "models": {"default": "~/trellis.cpp/models", "help": "the GGUF folder"},
//               "res": {"default": "1024", "choices": ["512", "1024", "1536"]}},
//    "requires": [{"path": "{trellis_cli}", "is": "program"}, {"path": "{models}", "is": "folder"}],
//    "stage_patterns": [{"pattern": "^\\[\\d+/\\d+\\] preprocess", "stage": "preprocess"}],
//    "progress_pattern": "\\[flow\\].*?(\\d+)/(\\d+)",
//    "stage_weights": {"structure": ["{models}/ss_flow.gguf", "{models}/ss_dec.gguf"]}}
//
//   auto def = stageload::readGeneratorDef("trellis-cpp.json");   // GeneratorDefError
//   GeneratorValues v{.input = "hero.png", .output = "run/mesh.glb", .runDir = "run", ...};
//   auto cmd = stageload::expandGenerator(def, v);                 // argv, workdir, env, trace
//
// Placeholders: {input} {output} {seed} {texture_size} {trace} {run_dir} {stageload} (this
// project's own command-line tool), {wrappers} (the shipped wrapper scripts' folder) and one per
// key of "params" (a value the user may change, with its default). "{{" and "}}" are literal
// braces. An argument that is one placeholder alone and comes out empty is left out, so a param
// can be an optional flag ("low_vram": {"default": "--low_vram", "choices": ["--low_vram", ""]}).
// "stage_weights" names the weight files each stage loads, which the memory forecast counts
// exactly (engine/api/stage_weights.h); "requires" the files the run needs before it can start
// (guard/generator/requirements.h); "result" where a program that picks its own output path
// leaves its mesh. Only "name" and "command" are required.
// Every file is checked on load: the error names the file and the field (an unknown placeholder,
// a bad regex, a missing command, an unknown format, a key that is not known).
// Pure functions, thread-safe.

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "guard/base/error.h"

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

/// A value the user may set ("params"): a placeholder of its own with its default.
struct GeneratorParam {
    std::string name;
    std::string value;                 ///< the default
    std::vector<std::string> choices;  ///< the only values allowed; empty: any
    std::string help;                  ///< one line for the settings panel and --help
    bool operator==(const GeneratorParam&) const = default;
};

/// Lines of its output that begin a stage ("stage_patterns"): a regex, and the stage's name,
/// or (empty `stage`) group 1 of the match.
struct StagePattern {
    std::string pattern;
    std::string stage;
    bool operator==(const StagePattern&) const = default;
};

/// What must be there before a run can start ("requires").
struct Requirement {
    enum class Kind { Any, Program, Folder, File };
    std::string path;  ///< placeholders and "~" allowed; a program without '/' is looked up in PATH
    Kind kind = Kind::Any;
    std::string what;  ///< what it is, for the message ("the GGUF weights folder")
    bool operator==(const Requirement&) const = default;
};

struct GeneratorDef {
    std::string name;
    std::string description;
    std::vector<std::string> command;  ///< argv, with placeholders
    std::string workdir;               ///< "~" and placeholders allowed; empty: the run's folder
    std::vector<std::pair<std::string, std::string>> env;
    std::string format = "glb";        ///< the extension of {output}: a word of meshFormats() that reads
    std::string trace;                 ///< where the command writes a stageload trace ("{trace}")
    std::string stagePattern;          ///< regex over output lines; group 1 = the stage's name
    std::vector<StagePattern> stagePatterns;  ///< more, each naming its stage; first match wins
    /// Regex over output lines: group 1 a percent, or groups 1 and 2 "N/M" (steps done, steps).
    std::string progressPattern;
    std::vector<GeneratorParam> params;  ///< user placeholders, defaults
    std::vector<Requirement> requirements;  ///< "requires"
    std::string result;                ///< where it leaves its mesh; empty: {output}
    /// The weight files each stage loads ("stage_weights"), for the memory forecast: names with
    /// placeholders, "~", and * or ? in the file name; relative to the workdir, else to `source`.
    std::vector<std::pair<std::string, std::vector<std::string>>> stageWeights;
    std::filesystem::path source;      ///< the file it was read from (empty: not from a file)
};

/// How the app's generator editor shows one key of a generator file.
enum class KeyField {
    None,           ///< no field: kept as the file has it
    Line,           ///< one line of text; the key is left out when it is empty
    Lines,          ///< a list of strings, one per line
    Choice,         ///< one of a list the app knows (for "format": the mesh formats)
    KeyValues,      ///< an object of strings, as KEY=VALUE lines
    ParamDefaults,  ///< params as NAME=default lines; each keeps its choices and help
};

/// One key of a generator file, as the editor shows it.
struct GeneratorKey {
    const char* name;   ///< as the file spells it
    KeyField field;
    const char* label;  ///< the field's label ("" without a field)
    const char* hint;   ///< its placeholder text
};

/// Every key of a generator file, in the order they are read (the one table that parses and
/// writes them).
std::vector<GeneratorKey> generatorKeys();

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
    std::filesystem::path wrappers;   ///< the wrapper scripts; empty: <dataDir>/generators/wrappers
    std::map<std::string, std::string> params;  ///< overrides of the definition's params
};

/// One run's command, placeholders replaced.
struct GeneratorCommand {
    std::vector<std::string> argv;
    std::string workdir;  ///< "~" expanded
    std::vector<std::pair<std::string, std::string>> env;
    std::string trace;    ///< the command's own trace file; empty: it writes none
    std::filesystem::path result;  ///< the mesh it leaves: "result" expanded, else the output
};

/// Replaces the placeholders. GeneratorDefError for a param override the definition lacks or a
/// value that is not one of a param's choices.
GeneratorCommand expandGenerator(const GeneratorDef& def, const GeneratorValues& values);

/// `text` (a path, a name) with the run's placeholders and a leading "~" replaced. Throws as
/// expandGenerator() does.
std::string expandText(const GeneratorDef& def, const GeneratorValues& values, const std::string& text);

/// The params whose placeholders `text` names ("{checkout}/.venv/bin/python" → {"checkout"}).
std::vector<std::string> paramsIn(const GeneratorDef& def, const std::string& text);

/// Whether the command, workdir or env of `def` names the placeholder {name} (a definition that
/// never says {seed} takes no seed).
bool usesPlaceholder(const GeneratorDef& def, const std::string& name);

/// The param called `name`, or null.
const GeneratorParam* findParam(const GeneratorDef& def, const std::string& name);

/// The param a definition's runs take their Loading mode from (staged/eager), where it has one:
/// the app's Loading setting and `stageload run --load` set it.
inline constexpr const char* kLoadParam = "load";

/// Sets `params`' load param to `mode` ("staged" or "eager"), so the Loading setting reaches a
/// generator that has one. UsageError when `def` has no load param, or `params` sets it to
/// something else already.
void setLoadMode(const GeneratorDef& def, std::map<std::string, std::string>& params, const std::string& mode);

/// "KEY=VALUE" texts (--param) as a map. UsageError for one without '=' or a key.
std::map<std::string, std::string> parseParamAssignments(const std::vector<std::string>& assignments);

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

/// The folder of the generators this project ships: <dataDir>/generators.
std::filesystem::path shippedGeneratorDir();

/// readGeneratorDef() of resolveGeneratorFile(nameOrPath, generatorDirs(shippedGeneratorDir())):
/// what `--generator trellis-cpp` means.
GeneratorDef readGeneratorNamed(const std::string& nameOrPath);

/// The definition file `nameOrPath` means: an existing file as it is; else, for a bare name
/// ("trellis-cpp" or "trellis-cpp.json"), the first file of that name in `dirs`. GeneratorDefError
/// naming where it looked when there is none.
std::filesystem::path resolveGeneratorFile(const std::string& nameOrPath,
                                           const std::vector<std::filesystem::path>& dirs);

}  // namespace stageload
