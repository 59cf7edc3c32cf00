#include "guard/generator/generator_def.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <regex>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

#include "engine/base/atomic_file.h"

namespace stageload {
namespace {

using json = nlohmann::json;

const std::set<std::string> kBuiltinPlaceholders{"input",  "output",  "seed",     "texture_size",
                                                 "trace",  "run_dir", "stageload"};
const std::set<std::string> kKeys{"name",          "description",      "command", "workdir",
                                  "env",           "format",           "trace",   "stage_pattern",
                                  "progress_pattern", "params", "stage_weights"};

// Calls `onName` for every {placeholder} of `text`; throws `bad` for an unclosed brace.
template <typename OnName, typename OnText>
void scan(const std::string& text, OnName&& onName, OnText&& onText,
          const std::function<void(const std::string&)>& bad) {
    std::size_t i = 0;
    while (i < text.size()) {
        const char c = text[i];
        if ((c == '{' || c == '}') && i + 1 < text.size() && text[i + 1] == c) {
            onText(std::string(1, c));
            i += 2;
        } else if (c == '{') {
            const auto end = text.find('}', i);
            if (end == std::string::npos) bad("an unclosed '{' in '" + text + "' (write {{ for a brace)");
            onName(text.substr(i + 1, end - i - 1));
            i = end + 1;
        } else if (c == '}') {
            bad("a '}' without '{' in '" + text + "' (write }} for a brace)");
        } else {
            onText(std::string(1, c));
            ++i;
        }
    }
}

std::string expandHome(const std::string& path) {
    if (path == "~" || path.rfind("~/", 0) == 0) {
        const char* home = std::getenv("HOME");
        if (home && *home) return std::string(home) + path.substr(1);
    }
    return path;
}

// `text` with every placeholder replaced by its value for the run `v` of `d`.
class Expander {
public:
    Expander(const GeneratorDef& d, const GeneratorValues& v) : source_(d.source.string()) {
        for (const auto& [k, def] : d.params) values_[k] = expandHome(def);
        for (const auto& [k, value] : v.params) {
            if (!values_.count(k))
                throw GeneratorDefError(source_, "params", "has no parameter '" + k + "' to set");
            values_[k] = expandHome(value);
        }
        values_["input"] = v.input.string();
        values_["output"] = v.output.string();
        values_["seed"] = std::to_string(v.seed);
        values_["texture_size"] = std::to_string(v.textureSize);
        values_["trace"] = v.trace.string();
        values_["run_dir"] = v.runDir.string();
        values_["stageload"] = v.stageload.string();
    }

    std::string operator()(const std::string& text) const {
        std::string out;
        scan(
            text, [&](const std::string& name) { out += values_.at(name); },
            [&](const std::string& t) { out += t; },
            [&](const std::string& why) { throw GeneratorDefError(source_, "", why); });
        return out;
    }

private:
    std::string source_;
    std::map<std::string, std::string> values_;
};

}  // namespace

GeneratorDefError::GeneratorDefError(std::string file, std::string field, const std::string& problem)
    : UsageError(file + ": " + (field.empty() ? "" : "\"" + field + "\": ") + problem),
      file_(std::move(file)),
      field_(std::move(field)) {}

GeneratorDef parseGeneratorDef(const std::string& text, const std::filesystem::path& source) {
    const std::string file = source.string();
    const auto fail = [&](const std::string& field, const std::string& problem) {
        throw GeneratorDefError(file, field, problem);
    };
    json j;
    try {
        j = json::parse(text);
    } catch (const json::exception& e) {
        fail("", std::string("not valid JSON (") + e.what() + ")");
    }
    if (!j.is_object()) fail("", "a generator file is one JSON object with \"name\" and \"command\"");
    for (const auto& [key, value] : j.items())
        if (!kKeys.count(key)) fail(key, "not a key of a generator file");

    GeneratorDef d;
    d.source = source;
    const auto string = [&](const char* key, std::string& out) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null()) return;
        if (!it->is_string()) fail(key, "must be a string");
        out = it->get<std::string>();
    };
    const auto stringMap = [&](const char* key, std::vector<std::pair<std::string, std::string>>& out) {
        const auto it = j.find(key);
        if (it == j.end() || it->is_null()) return;
        if (!it->is_object()) fail(key, "must be an object of strings, e.g. {\"KEY\": \"value\"}");
        for (const auto& [k, v] : it->items()) {
            if (v.is_string()) out.emplace_back(k, v.get<std::string>());
            else if (v.is_number()) out.emplace_back(k, v.dump());
            else fail(std::string(key) + "." + k, "must be a string");
        }
    };
    string("name", d.name);
    if (d.name.empty()) fail("name", "missing: every generator needs a name");
    string("description", d.description);
    const auto cmd = j.find("command");
    if (cmd == j.end() || !cmd->is_array() || cmd->empty())
        fail("command", "missing: a list of the program and its arguments, e.g. "
                        "[\"python3\", \"run.py\", \"--image\", \"{input}\"]");
    for (std::size_t i = 0; i < cmd->size(); ++i) {
        if (!(*cmd)[i].is_string()) fail("command[" + std::to_string(i) + "]", "must be a string");
        d.command.push_back((*cmd)[i].get<std::string>());
    }
    if (d.command[0].empty()) fail("command[0]", "the program is empty");
    string("workdir", d.workdir);
    stringMap("env", d.env);
    string("format", d.format);
    if (d.format != "glb" && d.format != "obj")
        fail("format", "'" + d.format + "' is not a mesh format; use glb or obj");
    string("trace", d.trace);
    string("stage_pattern", d.stagePattern);
    string("progress_pattern", d.progressPattern);
    stringMap("params", d.params);
    if (const auto it = j.find("stage_weights"); it != j.end() && !it->is_null()) {
        if (!it->is_object())
            fail("stage_weights", "must be an object of stage names to weight files, e.g. "
                                  "{\"texture\": [\"~/ckpt/texture/*.safetensors\"]}");
        for (const auto& [stage, files] : it->items()) {
            const std::string field = "stage_weights." + stage;
            if (stage.empty()) fail(field, "a stage needs a name");
            std::vector<std::string> list;
            if (files.is_string()) list.push_back(files.get<std::string>());
            else if (files.is_array())
                for (std::size_t i = 0; i < files.size(); ++i) {
                    if (!files[i].is_string()) fail(field + "[" + std::to_string(i) + "]", "must be a file name");
                    list.push_back(files[i].get<std::string>());
                }
            else fail(field, "must be a file name or a list of them");
            for (const auto& f : list)
                if (f.empty()) fail(field, "an empty file name");
            d.stageWeights.emplace_back(stage, std::move(list));
        }
    }

    std::set<std::string> known = kBuiltinPlaceholders;
    for (const auto& [name, value] : d.params) {
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
    for (std::size_t i = 0; i < d.command.size(); ++i)
        check("command[" + std::to_string(i) + "]", d.command[i]);
    check("workdir", d.workdir);
    check("trace", d.trace);
    for (const auto& [k, v] : d.env) check("env." + k, v);
    for (const auto& [stage, files] : d.stageWeights)
        for (const auto& f : files) check("stage_weights." + stage, f);
    for (const auto& [key, pattern] : {std::pair<const char*, std::string>{"stage_pattern", d.stagePattern},
                                       {"progress_pattern", d.progressPattern}}) {
        if (pattern.empty()) continue;
        try {
            const std::regex re(pattern);
            if (re.mark_count() < 1)
                fail(key, "needs a group: (…) around the " +
                              std::string(key == std::string("stage_pattern") ? "stage's name" : "percent"));
        } catch (const std::regex_error& e) {
            fail(key, "bad regex '" + pattern + "': " + e.what());
        }
    }
    return d;
}

GeneratorDef readGeneratorDef(const std::filesystem::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw GeneratorDefError(file.string(), "", "cannot be read; check the path");
    std::ostringstream text;
    text << in.rdbuf();
    return parseGeneratorDef(text.str(), file);
}

std::string generatorDefJson(const GeneratorDef& d) {
    json j = json::object();
    j["name"] = d.name;
    if (!d.description.empty()) j["description"] = d.description;
    j["command"] = d.command;
    if (!d.workdir.empty()) j["workdir"] = d.workdir;
    if (!d.env.empty()) {
        json env = json::object();
        for (const auto& [k, v] : d.env) env[k] = v;
        j["env"] = env;
    }
    j["format"] = d.format;
    if (!d.trace.empty()) j["trace"] = d.trace;
    if (!d.stagePattern.empty()) j["stage_pattern"] = d.stagePattern;
    if (!d.progressPattern.empty()) j["progress_pattern"] = d.progressPattern;
    if (!d.params.empty()) {
        json params = json::object();
        for (const auto& [k, v] : d.params) params[k] = v;
        j["params"] = params;
    }
    if (!d.stageWeights.empty()) {
        json weights = json::object();
        for (const auto& [stage, files] : d.stageWeights) weights[stage] = files;
        j["stage_weights"] = weights;
    }
    return j.dump(2) + "\n";
}

void writeGeneratorDef(const GeneratorDef& def, const std::filesystem::path& file) {
    writeFileAtomically(file, generatorDefJson(def));
}

GeneratorCommand expandGenerator(const GeneratorDef& d, const GeneratorValues& v) {
    const Expander expand(d, v);
    GeneratorCommand c;
    for (const auto& a : d.command) c.argv.push_back(expand(a));
    c.workdir = expandHome(expand(d.workdir));
    for (const auto& [k, value] : d.env) c.env.emplace_back(k, expand(value));
    c.trace = expand(d.trace);
    return c;
}

std::vector<std::pair<std::string, std::vector<std::filesystem::path>>> expandStageWeights(
    const GeneratorDef& d, const GeneratorValues& v) {
    const Expander expand(d, v);
    // Relative names are the generator's: its working folder, else the definition's own.
    const std::filesystem::path workdir = expandHome(expand(d.workdir));
    const std::filesystem::path base = !d.workdir.empty() ? workdir : d.source.parent_path();
    std::vector<std::pair<std::string, std::vector<std::filesystem::path>>> out;
    for (const auto& [stage, files] : d.stageWeights) {
        std::vector<std::filesystem::path> paths;
        for (const auto& f : files) {
            const std::filesystem::path file = expandHome(expand(f));
            paths.push_back(file.is_absolute() || base.empty() ? file : base / file);
        }
        out.emplace_back(stage, std::move(paths));
    }
    return out;
}

std::string shellCommandLine(const std::vector<std::string>& argv) {
    std::string line;
    for (const auto& a : argv) {
        if (!line.empty()) line += ' ';
        const bool plain = !a.empty() && std::all_of(a.begin(), a.end(), [](char c) {
            return std::isalnum(static_cast<unsigned char>(c)) ||
                   std::string_view("_./=:,+@%-").find(c) != std::string_view::npos;
        });
        if (plain) {
            line += a;
            continue;
        }
        line += '\'';
        for (char c : a) line += c == '\'' ? std::string("'\\''") : std::string(1, c);
        line += '\'';
    }
    return line;
}

std::vector<std::filesystem::path> generatorDirs(const std::filesystem::path& shipped) {
    std::vector<std::filesystem::path> dirs;
    if (const char* dir = std::getenv("STAGELOAD_GENERATORS_DIR"); dir && *dir) dirs.emplace_back(dir);
    if (const char* xdg = std::getenv("XDG_CONFIG_HOME"); xdg && *xdg)
        dirs.push_back(std::filesystem::path(xdg) / "stageload" / "generators");
    else if (const char* home = std::getenv("HOME"); home && *home)
        dirs.push_back(std::filesystem::path(home) / ".config" / "stageload" / "generators");
    if (!shipped.empty()) dirs.push_back(shipped);
    return dirs;
}

GeneratorCatalog findGenerators(const std::vector<std::filesystem::path>& dirs) {
    GeneratorCatalog catalog;
    std::set<std::string> names;
    for (const auto& dir : dirs) {
        std::error_code ec;
        if (!std::filesystem::is_directory(dir, ec)) continue;
        std::vector<std::filesystem::path> files;
        for (const auto& entry : std::filesystem::directory_iterator(dir, ec))
            if (entry.path().extension() == ".json") files.push_back(entry.path());
        std::sort(files.begin(), files.end());
        for (const auto& f : files) {
            try {
                auto def = readGeneratorDef(f);
                if (names.insert(def.name).second) catalog.generators.push_back(std::move(def));
            } catch (const GeneratorDefError& e) {
                catalog.problems.push_back(e.what());
            }
        }
    }
    return catalog;
}

}  // namespace stageload
