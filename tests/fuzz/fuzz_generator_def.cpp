// Generator definitions: refused with GeneratorDefError naming the field, or accepted, expanded
// with default values, and written out as JSON that reads back to the same definition.
#include <string>

#include "guard/generator/generator_def.h"
#include "tests/fuzz/fuzz_target.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    stageload::GeneratorDef def;
    try {
        def = stageload::parseGeneratorDef(text, "fuzz.json");
    } catch (const stageload::GeneratorDefError&) {
        return 0;
    }
    FUZZ_CHECK(!def.name.empty() && !def.command.empty());
    stageload::GeneratorValues values;
    values.input = "in.png";
    values.output = "run/mesh." + def.format;
    values.trace = "run/command.trace.jsonl";
    values.runDir = "run";
    values.stageload = "/usr/bin/stageload";
    const auto command = stageload::expandGenerator(def, values);
    // An argument that is one placeholder alone and comes out empty is left out; the program stays.
    FUZZ_CHECK(!command.argv.empty() && command.argv.size() <= def.command.size());
    FUZZ_CHECK(!stageload::shellCommandLine(command.argv).empty());
    const auto again = stageload::parseGeneratorDef(stageload::generatorDefJson(def), "again.json");
    FUZZ_CHECK(again.name == def.name && again.command == def.command && again.env == def.env);
    FUZZ_CHECK(again.params == def.params && again.stagePattern == def.stagePattern);
    FUZZ_CHECK(again.stagePatterns == def.stagePatterns && again.requirements == def.requirements &&
               again.result == def.result && again.stageWeights == def.stageWeights);
    return 0;
}
