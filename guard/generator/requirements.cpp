#include "guard/generator/requirements.h"

#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>

namespace stageload {
namespace {

std::string defaultWhat(Requirement::Kind kind) {
    switch (kind) {
        case Requirement::Kind::Program: return "the program";
        case Requirement::Kind::Folder: return "the folder";
        case Requirement::Kind::File: return "the file";
        case Requirement::Kind::Any: break;
    }
    return "the path";
}

// What is wrong with `path` as a `kind`, or "" when it is fine.
std::string problemWith(const std::filesystem::path& path, Requirement::Kind kind) {
    std::error_code ec;
    const auto status = std::filesystem::status(path, ec);
    if (!std::filesystem::exists(status)) return "does not exist";
    switch (kind) {
        case Requirement::Kind::Program:
            if (std::filesystem::is_directory(status)) return "is a folder, not a program";
            if (::access(path.c_str(), X_OK) != 0) return "is not executable (chmod +x it)";
            return "";
        case Requirement::Kind::Folder:
            return std::filesystem::is_directory(status) ? "" : "is not a folder";
        case Requirement::Kind::File:
            return std::filesystem::is_regular_file(status) ? "" : "is not a file";
        case Requirement::Kind::Any: break;
    }
    return "";
}

}  // namespace

std::string findInPath(const std::string& program) {
    const char* path = std::getenv("PATH");
    if (!path || program.empty() || program.find('/') != std::string::npos) return {};
    std::string dirs(path);
    std::size_t from = 0;
    while (from <= dirs.size()) {
        const auto colon = std::min(dirs.find(':', from), dirs.size());
        const std::filesystem::path dir = dirs.substr(from, colon - from);
        const auto candidate = (dir.empty() ? std::filesystem::path(".") : dir) / program;
        std::error_code ec;
        if (std::filesystem::is_regular_file(candidate, ec) && ::access(candidate.c_str(), X_OK) == 0)
            return candidate.string();
        from = colon + 1;
    }
    return {};
}

std::vector<MissingRequirement> missingRequirements(const GeneratorDef& def, const GeneratorValues& values) {
    std::vector<Requirement> all = def.requirements;
    if (!def.workdir.empty()) all.push_back({def.workdir, Requirement::Kind::Folder, "its working folder"});
    std::vector<MissingRequirement> missing;
    // A program that a param leaves empty cannot start: said like any other missing path.
    if (expandText(def, values, def.command.front()).empty()) {
        MissingRequirement m;
        m.kind = Requirement::Kind::Program;
        m.what = "the program";
        m.problem = "is empty";
        m.params = paramsIn(def, def.command.front());
        m.message = "'" + def.name + "' is not set up: its program (command[0]) is empty" +
                    (m.params.empty() ? std::string() : " (set '" + m.params.front() + "': --param " + m.params.front() + "=PATH)");
        missing.push_back(std::move(m));
    }
    for (const auto& r : all) {
        MissingRequirement m;
        m.path = expandText(def, values, r.path);
        m.kind = r.kind;
        m.what = r.what.empty() ? defaultWhat(r.kind) : r.what;
        m.params = paramsIn(def, r.path);
        if (r.kind == Requirement::Kind::Program && m.path.find('/') == std::string::npos) {
            if (!findInPath(m.path).empty()) continue;
            m.problem = "is not in PATH";
        } else {
            m.problem = problemWith(m.path, r.kind);
            if (m.problem.empty()) continue;
        }
        // Under a folder already missing: that one says it all.
        if (std::any_of(missing.begin(), missing.end(), [&](const MissingRequirement& earlier) {
                return m.path == earlier.path || m.path.rfind(earlier.path + "/", 0) == 0;
            }))
            continue;
        m.message = "'" + def.name + "' is not set up: " + m.what + " " + m.path + " " + m.problem;
        if (!m.params.empty()) {
            std::string names, flags;
            for (const auto& p : m.params) {
                names += (names.empty() ? "'" : ", '") + p + "'";
                flags += (flags.empty() ? "--param " : " --param ") + p + "=…";
            }
            m.message += " (set " + names + ": " + flags + ", or Set up in the app)";
        } else if (&r == &all.back() && !def.workdir.empty()) {
            m.message += " (fix \"workdir\" in " + def.source.string() + ")";
        }
        missing.push_back(std::move(m));
    }
    return missing;
}

std::vector<std::pair<std::string, Requirement::Kind>> setupParams(const GeneratorDef& def) {
    std::vector<std::pair<std::string, Requirement::Kind>> out;
    for (const auto& r : def.requirements) {
        for (const auto& name : paramsIn(def, r.path)) {
            if (std::any_of(out.begin(), out.end(), [&](const auto& p) { return p.first == name; })) continue;
            // "{name}" alone is the thing itself; "{name}/…" is the folder it lives in.
            const bool alone = r.path == "{" + name + "}";
            out.emplace_back(name, alone ? r.kind : Requirement::Kind::Folder);
        }
    }
    return out;
}

}  // namespace stageload
