// The generator file format: every key of a definition is one row of kKeys, with how it is read,
// how it is written and how the app's editor shows it, so a new key is a member of GeneratorDef
// and one row here. The checks that span keys (placeholders, regex groups) follow.
#include "guard/generator/generator_def.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "guard/base/atomic_file.h"
#include "guard/generator/placeholders.h"

namespace stageload {
namespace {

using json = nlohmann::json;
using generator_detail::kBuiltinPlaceholders;
using generator_detail::scan;

/// Throws GeneratorDefError for the field; never returns.
using Fail = std::function<void(const std::string& field, const std::string& problem)>;

// "requires"'s "is": the names a file uses for each kind, in Requirement::Kind's order.
constexpr std::array<std::pair<Requirement::Kind, const char*>, 4> kRequirementKinds{
    {{Requirement::Kind::Any, "any"},
     {Requirement::Kind::Program, "program"},
     {Requirement::Kind::Folder, "folder"},
     {Requirement::Kind::File, "file"}}};

const char* kindName(Requirement::Kind kind) {
    for (const auto& [k, name] : kRequirementKinds)
        if (k == kind) return name;
    return "any";
}

// A number where a string is asked for is taken as its text ("steps": 25).
std::string textOf(const json& value, const std::string& field, const Fail& fail) {
    if (value.is_string()) return value.get<std::string>();
    if (value.is_number()) return value.dump();
    fail(field, "must be a string");
    return {};
}

// --- the plain string keys ---------------------------------------------------------------------

template <std::string GeneratorDef::*Member>
void readString(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v) return;
    if (!v->is_string()) fail(key, "must be a string");
    d.*Member = v->get<std::string>();
}

template <std::string GeneratorDef::*Member>
void writeString(const char* key, const GeneratorDef& d, json& j) {
    if (!(d.*Member).empty()) j[key] = d.*Member;
}

void readName(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    readString<&GeneratorDef::name>(key, v, d, fail);
    if (d.name.empty()) fail(key, "missing: every generator needs a name");
}

void readFormat(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    readString<&GeneratorDef::format>(key, v, d, fail);
    // Which formats Stageload reads is the mesh table's to say (generatorMeshProblem(), above
    // the guard); here only that it is a file extension's word.
    if (d.format.empty() ||
        !std::all_of(d.format.begin(), d.format.end(), [](unsigned char c) { return std::isalnum(c); }))
        fail(key, "'" + d.format + "' is not a mesh format's extension, such as glb or obj");
}

void writeFormat(const char* key, const GeneratorDef& d, json& j) { j[key] = d.format; }

void readResult(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    readString<&GeneratorDef::result>(key, v, d, fail);
    if (!d.result.empty() && std::filesystem::path(d.result).extension().string().size() < 2)
        fail(key, "'" + d.result + "' must name a mesh file with its extension, such as .glb (the mesh the program leaves)");
}

// --- the structured keys -----------------------------------------------------------------------

void readCommand(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v || !v->is_array() || v->empty())
        fail(key, "missing: a list of the program and its arguments, e.g. "
                  "[\"python3\", \"run.py\", \"--image\", \"{input}\"]");
    for (std::size_t i = 0; i < v->size(); ++i) {
        if (!(*v)[i].is_string()) fail("command[" + std::to_string(i) + "]", "must be a string");
        d.command.push_back((*v)[i].get<std::string>());
    }
    if (d.command[0].empty()) fail("command[0]", "the program is empty");
}

void writeCommand(const char* key, const GeneratorDef& d, json& j) { j[key] = d.command; }

void readEnv(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v) return;
    if (!v->is_object()) fail(key, "must be an object of strings, e.g. {\"KEY\": \"value\"}");
    for (const auto& [k, value] : v->items()) d.env.emplace_back(k, textOf(value, std::string(key) + "." + k, fail));
}

void writeEnv(const char* key, const GeneratorDef& d, json& j) {
    if (d.env.empty()) return;
    json env = json::object();
    for (const auto& [k, value] : d.env) env[k] = value;
    j[key] = env;
}

void readParams(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v) return;
    if (!v->is_object())
        fail(key, "must be an object of names to defaults, e.g. {\"scale\": \"4\"} or "
                  "{\"res\": {\"default\": \"1024\", \"choices\": [\"512\", \"1024\"]}}");
    for (const auto& [k, e] : v->items()) {
        const std::string field = "params." + k;
        GeneratorParam param{k, {}, {}, {}};
        if (e.is_object()) {
            for (const auto& [name, value] : e.items())
                if (name != "default" && name != "choices" && name != "help")
                    fail(field + "." + name, "not a key of a param; use default, choices and help");
            if (const auto def = e.find("default"); def != e.end()) param.value = textOf(*def, field + ".default", fail);
            if (const auto help = e.find("help"); help != e.end()) param.help = textOf(*help, field + ".help", fail);
            if (const auto choices = e.find("choices"); choices != e.end()) {
                if (!choices->is_array() || choices->empty()) fail(field + ".choices", "must be a list of the values allowed");
                for (std::size_t i = 0; i < choices->size(); ++i)
                    param.choices.push_back(textOf((*choices)[i], field + ".choices[" + std::to_string(i) + "]", fail));
                if (e.find("default") == e.end()) param.value = param.choices.front();
                if (std::find(param.choices.begin(), param.choices.end(), param.value) == param.choices.end())
                    fail(field + ".default", "'" + param.value + "' is not one of its choices");
            }
        } else {
            param.value = textOf(e, field, fail);
        }
        d.params.push_back(std::move(param));
    }
}

void writeParams(const char* key, const GeneratorDef& d, json& j) {
    if (d.params.empty()) return;
    json params = json::object();
    for (const auto& p : d.params) {
        if (p.choices.empty() && p.help.empty()) {
            params[p.name] = p.value;
            continue;
        }
        json e = {{"default", p.value}};
        if (!p.choices.empty()) e["choices"] = p.choices;
        if (!p.help.empty()) e["help"] = p.help;
        params[p.name] = e;
    }
    j[key] = params;
}

void readStagePatterns(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v) return;
    if (!v->is_array()) fail(key, "must be a list of {\"pattern\": REGEX, \"stage\": NAME}, first match first");
    for (std::size_t i = 0; i < v->size(); ++i) {
        const auto& e = (*v)[i];
        const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
        if (!e.is_object() || !e.contains("pattern") || !e["pattern"].is_string())
            fail(field, "must be {\"pattern\": REGEX, \"stage\": NAME} (without \"stage\", group 1 names it)");
        for (const auto& [name, value] : e.items())
            if (name != "pattern" && name != "stage") fail(field + "." + name, "not a key; use pattern and stage");
        StagePattern sp{e["pattern"].get<std::string>(), {}};
        if (e.contains("stage")) {
            if (!e["stage"].is_string() || e["stage"].get<std::string>().empty())
                fail(field + ".stage", "must be the stage's name");
            sp.stage = e["stage"].get<std::string>();
        }
        d.stagePatterns.push_back(std::move(sp));
    }
}

void writeStagePatterns(const char* key, const GeneratorDef& d, json& j) {
    if (d.stagePatterns.empty()) return;
    json list = json::array();
    for (const auto& sp : d.stagePatterns) {
        json e = {{"pattern", sp.pattern}};
        if (!sp.stage.empty()) e["stage"] = sp.stage;
        list.push_back(e);
    }
    j[key] = list;
}

void readRequires(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v) return;
    if (!v->is_array()) fail(key, "must be a list of paths, or {\"path\": P, \"is\": \"program\"|\"folder\"|\"file\"}");
    for (std::size_t i = 0; i < v->size(); ++i) {
        const auto& e = (*v)[i];
        const std::string field = std::string(key) + "[" + std::to_string(i) + "]";
        Requirement r;
        if (e.is_string()) {
            r.path = e.get<std::string>();
        } else if (e.is_object() && e.contains("path") && e["path"].is_string()) {
            r.path = e["path"].get<std::string>();
            for (const auto& [name, value] : e.items()) {
                if (name != "path" && name != "is" && name != "what") fail(field + "." + name, "not a key; use path, is and what");
                if (name != "path" && !value.is_string()) fail(field + "." + name, "must be a string");
            }
            if (e.contains("what")) r.what = e["what"].get<std::string>();
            if (e.contains("is")) {
                const std::string is = e["is"].get<std::string>();
                const auto k = std::find_if(kRequirementKinds.begin(), kRequirementKinds.end(),
                                            [&](const auto& kv) { return is == kv.second; });
                if (k == kRequirementKinds.end())
                    fail(field + ".is", "'" + is + "' is not a kind; use program, folder, file or any");
                r.kind = k->first;
            }
        } else {
            fail(field, "must be a path, or {\"path\": P, \"is\": \"program\"|\"folder\"|\"file\"}");
        }
        if (r.path.empty()) fail(field, "an empty path");
        d.requirements.push_back(std::move(r));
    }
}

void writeRequires(const char* key, const GeneratorDef& d, json& j) {
    if (d.requirements.empty()) return;
    json list = json::array();
    for (const auto& r : d.requirements) {
        if (r.kind == Requirement::Kind::Any && r.what.empty()) {
            list.push_back(r.path);
            continue;
        }
        json e = {{"path", r.path}};
        if (r.kind != Requirement::Kind::Any) e["is"] = kindName(r.kind);
        if (!r.what.empty()) e["what"] = r.what;
        list.push_back(e);
    }
    j[key] = list;
}

void readStageWeights(const char* key, const json* v, GeneratorDef& d, const Fail& fail) {
    if (!v) return;
    if (!v->is_object())
        fail(key, "must be an object of stage names to weight files, e.g. "
                  "{\"texture\": [\"~/ckpt/texture/*.safetensors\"]}");
    for (const auto& [stage, files] : v->items()) {
        const std::string field = std::string(key) + "." + stage;
        if (stage.empty()) fail(field, "a stage needs a name");
        std::vector<std::string> list;
        if (files.is_string()) {
            list.push_back(files.get<std::string>());
        } else if (files.is_array()) {
            for (std::size_t i = 0; i < files.size(); ++i) {
                if (!files[i].is_string()) fail(field + "[" + std::to_string(i) + "]", "must be a file name");
                list.push_back(files[i].get<std::string>());
            }
        } else {
            fail(field, "must be a file name or a list of them");
        }
        for (const auto& f : list)
            if (f.empty()) fail(field, "an empty file name");
        d.stageWeights.emplace_back(stage, std::move(list));
    }
}

void writeStageWeights(const char* key, const GeneratorDef& d, json& j) {
    if (d.stageWeights.empty()) return;
    json weights = json::object();
    for (const auto& [stage, files] : d.stageWeights) weights[stage] = files;
    j[key] = weights;
}

// --- the table -------------------------------------------------------------------------------

struct Key {
    GeneratorKey info;
    /// Reads the key's value into the definition; `value` is null when the key is absent (or
    /// null), so a required key says it is missing.
    void (*read)(const char* key, const json* value, GeneratorDef& d, const Fail& fail);
    /// Adds the key to the file when the definition has it.
    void (*write)(const char* key, const GeneratorDef& d, json& j);
};

// In the order they are read (and their errors found), with the editor's field for each.
constexpr std::array<Key, 14> kKeys{{
    {{"name", KeyField::Line, "Name", "e.g. Pixal3D (stageload)"},
     readName, writeString<&GeneratorDef::name>},
    {{"description", KeyField::Line, "Description", "one line: what it is, what it needs"},
     readString<&GeneratorDef::description>, writeString<&GeneratorDef::description>},
    {{"command", KeyField::Lines, "Command",
      "one argument per line, e.g.\npython3\nrun.py\n--image\n{input}\n--out\n{output}"},
     readCommand, writeCommand},
    {{"workdir", KeyField::Line, "Folder", "the folder it runs in, e.g. ~/src/pixal3d (empty: the run's folder)"},
     readString<&GeneratorDef::workdir>, writeString<&GeneratorDef::workdir>},
    {{"env", KeyField::KeyValues, "Environment", "KEY=VALUE per line, e.g. PYTORCH_ENABLE_MPS_FALLBACK=1"},
     readEnv, writeEnv},
    {{"format", KeyField::Choice, "Mesh format", ""}, readFormat, writeFormat},
    {{"trace", KeyField::Line, "Trace", "{trace} when it writes a stageload trace there; else empty"},
     readString<&GeneratorDef::trace>, writeString<&GeneratorDef::trace>},
    {{"stage_pattern", KeyField::Line, "Stage pattern", "e.g. ^\\[stage\\] (\\w+)  (group 1: the stage)"},
     readString<&GeneratorDef::stagePattern>, writeString<&GeneratorDef::stagePattern>},
    {{"progress_pattern", KeyField::Line, "Progress pattern",
      "e.g. (\\d+)%\\|  (group 1: percent), or (\\d+)/(\\d+)  (N/M)"},
     readString<&GeneratorDef::progressPattern>, writeString<&GeneratorDef::progressPattern>},
    {{"result", KeyField::Line, "Result",
      "where a program that picks its own output leaves the mesh, e.g. {run_dir}/out/0/mesh.glb"},
     readResult, writeString<&GeneratorDef::result>},
    {{"params", KeyField::ParamDefaults, "Parameters", "your own placeholders, NAME=default per line, e.g. steps=25"},
     readParams, writeParams},
    {{"stage_patterns", KeyField::None, "", ""}, readStagePatterns, writeStagePatterns},
    {{"requires", KeyField::None, "", ""}, readRequires, writeRequires},
    {{"stage_weights", KeyField::None, "", ""}, readStageWeights, writeStageWeights},
}};

// The checks across keys: every placeholder is known, every regex has the groups it needs.
void checkPlaceholdersAndPatterns(const GeneratorDef& d, const Fail& fail) {
    std::set<std::string> known = kBuiltinPlaceholders;
    for (const auto& [name, value, choices, help] : d.params) {
        if (kBuiltinPlaceholders.count(name)) fail("params." + name, "is a built-in placeholder");
        if (name.empty() || !std::all_of(name.begin(), name.end(), [](char c) {
                return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
            }))
            fail("params." + name, "a parameter's name is letters, digits and '_'");
        known.insert(name);
    }
    const auto check = [&](const std::string& field, const std::string& value) {
        scan(
            value,
            [&](const std::string& name) {
                if (!known.count(name)) {
                    std::string list;
                    for (const auto& k : known) list += (list.empty() ? "{" : ", {") + k + "}";
                    fail(field, "unknown placeholder {" + name + "}; known: " + list);
                }
            },
            [](const std::string&) {}, [&](const std::string& why) { fail(field, why); });
    };
    for (std::size_t i = 0; i < d.command.size(); ++i) check("command[" + std::to_string(i) + "]", d.command[i]);
    check("workdir", d.workdir);
    check("trace", d.trace);
    for (const auto& [k, v] : d.env) check("env." + k, v);
    for (const auto& [stage, files] : d.stageWeights)
        for (const auto& f : files) check("stage_weights." + stage, f);
    for (std::size_t i = 0; i < d.requirements.size(); ++i)
        check("requires[" + std::to_string(i) + "]", d.requirements[i].path);
    check("result", d.result);
    // Each regex with the groups it needs: a stage pattern without a stage of its own names it
    // by group 1; a progress pattern has a percent (1 group) or N/M (2 groups).
    const auto regex = [&](const std::string& field, const std::string& pattern, unsigned groups,
                           const std::string& what) {
        try {
            const std::regex re(pattern);
            if (re.mark_count() < groups) fail(field, "needs a group: (…) around " + what);
            return re.mark_count();
        } catch (const std::regex_error& e) {
            fail(field, "bad regex '" + pattern + "': " + e.what());
        }
        return 0u;
    };
    if (!d.stagePattern.empty()) regex("stage_pattern", d.stagePattern, 1, "the stage's name");
    for (std::size_t i = 0; i < d.stagePatterns.size(); ++i)
        regex("stage_patterns[" + std::to_string(i) + "].pattern", d.stagePatterns[i].pattern,
              d.stagePatterns[i].stage.empty() ? 1 : 0, "the stage's name, or give \"stage\"");
    if (!d.progressPattern.empty() &&
        regex("progress_pattern", d.progressPattern, 1, "the percent, or two: N/M") > 2)
        fail("progress_pattern", "has more than two groups: one for a percent, two for N/M (use (?:…) for others)");
}

}  // namespace

GeneratorDefError::GeneratorDefError(std::string file, std::string field, const std::string& problem)
    : UsageError(file + ": " + (field.empty() ? "" : "\"" + field + "\": ") + problem),
      file_(std::move(file)),
      field_(std::move(field)) {}

GeneratorDef parseGeneratorDef(const std::string& text, const std::filesystem::path& source) {
    const std::string file = source.string();
    const Fail fail = [&](const std::string& field, const std::string& problem) {
        throw GeneratorDefError(file, field, problem);
    };
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        fail("", std::string("not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object()) fail("", "a generator file is one JSON object with \"name\" and \"command\"");
    for (const auto& item : j.items()) {
        const std::string& key = item.key();  // a named copy: clang 14 cannot capture a binding
        if (std::none_of(kKeys.begin(), kKeys.end(), [&](const Key& k) { return key == k.info.name; }))
            fail(key, "not a key of a generator file");
    }

    GeneratorDef d;
    d.source = source;
    for (const Key& key : kKeys) {
        const auto it = j.find(key.info.name);
        key.read(key.info.name, it == j.end() || it->is_null() ? nullptr : &*it, d, fail);
    }
    checkPlaceholdersAndPatterns(d, fail);
    return d;
}

GeneratorDef readGeneratorDef(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw GeneratorDefError(file.string(), "", "cannot be read; check the path");
    std::ostringstream text;
    text << in.rdbuf();
    return parseGeneratorDef(text.str(), file);
}

std::vector<GeneratorKey> generatorKeys() {
    std::vector<GeneratorKey> keys;
    for (const Key& key : kKeys) keys.push_back(key.info);
    return keys;
}

std::string generatorDefJson(const GeneratorDef& d) {
    json j = json::object();
    for (const Key& key : kKeys) key.write(key.info.name, d, j);
    return j.dump(2) + "\n";
}

void writeGeneratorDef(const GeneratorDef& def, const std::filesystem::path& file) {
    writeFileAtomically(file, generatorDefJson(def));
}

}  // namespace stageload
