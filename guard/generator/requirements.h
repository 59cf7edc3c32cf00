#pragma once
// Whether a generator can run here: every file its definition "requires" (the program, the
// checkout, the weights folder) and its working folder, checked before anything starts, so a run
// that cannot work is refused with the path that is missing and the parameter that sets it
// instead of failing minutes later inside the program.
//
//   const auto missing = stageload::missingRequirements(def, values);
//   if (!missing.empty()) { std::puts(missing.front().message.c_str()); return 127; }
//   //  "'trellis.cpp' is not set up: the program ~/trellis.cpp/build/bin/trellis-cli does
//   //   not exist (set param 'trellis_cli': --param trellis_cli=PATH, or Set up in the app)"
//
// Reads the file system only; thread-safe. Throws what expandGenerator() throws for a bad
// placeholder or param value (GeneratorDefError).

#include <string>
#include <vector>

#include "guard/generator/generator_def.h"

namespace stageload {

struct MissingRequirement {
    std::string path;                 ///< as it was looked for (placeholders and "~" replaced)
    Requirement::Kind kind = Requirement::Kind::Any;
    std::string what;                 ///< "the program", "the GGUF weights folder"
    std::string problem;              ///< "does not exist", "is not executable", "is a file"
    std::vector<std::string> params;  ///< the params that set it, in the order the path names them
    std::string message;              ///< one sentence naming the generator, path and params
};

/// What of `def`'s "requires" (and its "workdir", which must be a folder) is not there for the
/// run `values` describes; empty when it can start.
std::vector<MissingRequirement> missingRequirements(const GeneratorDef& def, const GeneratorValues& values);

/// The params that say where the tool lives: those a "requires" path names, each with the kind of
/// file it picks (a path that goes on below the param, "{checkout}/run.py", makes it a folder).
/// The app's Set up form asks for these.
std::vector<std::pair<std::string, Requirement::Kind>> setupParams(const GeneratorDef& def);

/// A program named without a '/' ("python3") found in $PATH; empty when not there.
std::string findInPath(const std::string& program);

}  // namespace stageload
