// Placeholders and params of a generator: a definition expanded into the command a run starts,
// and the params a front end sets. The file format is generator_format.cpp; where definitions
// are found, generator_files.cpp.
#include "guard/generator/generator_def.h"

#include <algorithm>
#include <cctype>
#include <map>
#include <string_view>

#include "guard/generator/placeholders.h"

namespace stageload {
namespace {

using generator_detail::expandHome;
using generator_detail::scan;

// `text` with every placeholder replaced by its value for the run `v` of `d`.
class Expander {
public:
    Expander(const GeneratorDef& d, const GeneratorValues& v) : source_(d.source.string()) {
        for (const auto& param : d.params) values_[param.name] = expandHome(param.value);
        for (const auto& [k, value] : v.params) {
            const GeneratorParam* param = findParam(d, k);
            if (!param) {
                std::string known;
                for (const auto& q : d.params) known += (known.empty() ? "" : ", ") + q.name;
                throw GeneratorDefError(source_, "params",
                                        "has no parameter '" + k + "' to set" +
                                            (known.empty() ? std::string(" (it has none)") : "; it has " + known));
            }
            if (!param->choices.empty() &&
                std::find(param->choices.begin(), param->choices.end(), value) == param->choices.end()) {
                std::string list;
                for (const auto& c : param->choices) list += (list.empty() ? "'" : ", '") + c + "'";
                throw GeneratorDefError(source_, "params." + k, "'" + value + "' is not one of " + list);
            }
            values_[k] = expandHome(value);
        }
        values_["input"] = v.input.string();
        values_["output"] = v.output.string();
        values_["seed"] = std::to_string(v.seed);
        values_["texture_size"] = std::to_string(v.textureSize);
        values_["trace"] = v.trace.string();
        values_["run_dir"] = v.runDir.string();
        values_["stageload"] = v.stageload.string();
        values_["wrappers"] = (v.wrappers.empty() ? shippedGeneratorDir() / "wrappers" : v.wrappers).string();
    }

    /// Whether `text` is one placeholder alone whose value is empty (an optional flag left out).
    bool emptyAlone(const std::string& text) const {
        if (text.size() < 3 || text.front() != '{' || text.back() != '}' || text[1] == '{') return false;
        const auto it = values_.find(text.substr(1, text.size() - 2));
        return it != values_.end() && it->second.empty();
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

GeneratorCommand expandGenerator(const GeneratorDef& d, const GeneratorValues& v) {
    const Expander expand(d, v);
    GeneratorCommand c;
    for (std::size_t i = 0; i < d.command.size(); ++i)
        if (i == 0 || !expand.emptyAlone(d.command[i])) c.argv.push_back(expand(d.command[i]));
    c.workdir = expandHome(expand(d.workdir));
    for (const auto& [k, value] : d.env) c.env.emplace_back(k, expand(value));
    c.trace = expand(d.trace);
    c.result = d.result.empty() ? v.output : std::filesystem::path(expandHome(expand(d.result)));
    return c;
}

std::string expandText(const GeneratorDef& d, const GeneratorValues& v, const std::string& text) {
    return expandHome(Expander(d, v)(text));
}

std::vector<std::string> paramsIn(const GeneratorDef& d, const std::string& text) {
    std::vector<std::string> names;
    scan(
        text,
        [&](const std::string& name) {
            if (findParam(d, name) && std::find(names.begin(), names.end(), name) == names.end())
                names.push_back(name);
        },
        [](const std::string&) {}, [](const std::string&) {});
    return names;
}

bool usesPlaceholder(const GeneratorDef& d, const std::string& name) {
    bool found = false;
    const auto look = [&](const std::string& text) {
        scan(
            text, [&](const std::string& n) { found = found || n == name; }, [](const std::string&) {},
            [](const std::string&) {});
    };
    for (const auto& a : d.command) look(a);
    look(d.workdir);
    for (const auto& [k, value] : d.env) look(value);
    return found;
}

const GeneratorParam* findParam(const GeneratorDef& d, const std::string& name) {
    for (const auto& p : d.params)
        if (p.name == name) return &p;
    return nullptr;
}

void setLoadMode(const GeneratorDef& def, std::map<std::string, std::string>& params, const std::string& mode) {
    if (!findParam(def, kLoadParam))
        throw UsageError("--load " + mode + ": '" + def.name + "' has no loading mode of its own (its definition " +
                         def.source.string() + " has no \"load\" param); leave --load out");
    const auto it = params.find(kLoadParam);
    if (it != params.end() && it->second != mode)
        throw UsageError("--load " + mode + " and --param load=" + it->second + " say different things; give one");
    params[kLoadParam] = mode;
}

std::map<std::string, std::string> parseParamAssignments(const std::vector<std::string>& assignments) {
    std::map<std::string, std::string> out;
    for (const auto& kv : assignments) {
        const auto eq = kv.find('=');
        if (eq == std::string::npos || eq == 0)
            throw UsageError("--param " + kv + ": use KEY=VALUE, e.g. --param scale=4");
        out[kv.substr(0, eq)] = kv.substr(eq + 1);
    }
    return out;
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

}  // namespace stageload
