#include "guard/trace/trace_reader.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <optional>

namespace stageload {
namespace {

using json = nlohmann::json;

class LineError {
public:
    explicit LineError(std::string what) : what_(std::move(what)) {}
    const std::string& what() const { return what_; }

private:
    std::string what_;
};

double number(const json& j, const char* key, bool required) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) {
        if (required) throw LineError(std::string("missing \"") + key + "\"");
        return 0.0;
    }
    if (!it->is_number()) throw LineError(std::string("\"") + key + "\" is not a number");
    return it->get<double>();
}

std::int64_t integer(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return 0;
    if (it->is_number_integer()) return it->get<std::int64_t>();
    if (it->is_number()) return static_cast<std::int64_t>(it->get<double>());
    throw LineError(std::string("\"") + key + "\" is not a number");
}

std::string text(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return {};
    if (it->is_string()) return it->get<std::string>();
    return it->dump();
}

MemorySample parseSample(const json& j) {
    MemorySample s;
    s.t = number(j, "t", true);
    s.footprint = integer(j, "footprint");
    s.swapUsed = integer(j, "swap_used");
    s.level = number(j, "level", false);
    s.available = integer(j, "available");
    for (const auto& [key, value] : j.items()) {
        if (key == "type" || key == "t" || key == "footprint" || key == "swap_used" ||
            key == "level" || key == "available" || !value.is_number())
            continue;
        s.extra.emplace_back(key, value.get<double>());
    }
    return s;
}

std::optional<Event> parseEvent(const json& j) {
    const std::string kindName = text(j, "kind");
    EventKind kind;
    try {
        kind = eventKindFromString(kindName);
    } catch (const EventError&) {
        return std::nullopt;
    }
    Event e;
    e.kind = kind;
    e.t = number(j, "t", true);
    e.stage = text(j, "stage");
    e.name = text(j, "name");
    if (kind == EventKind::Stage && e.name.empty()) e.name = e.stage;
    e.nbytes = integer(j, "nbytes");
    e.seconds = number(j, "seconds", false);
    e.note = text(j, "note");
    return e;
}

}  // namespace

double Trace::interval() const {
    const auto it = start.find("interval");
    return it != start.end() && it->is_number() ? it->get<double>() : 0.0;
}

std::string Trace::utc() const {
    const auto it = start.find("utc");
    return it != start.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Trace parseTrace(std::istream& in, const std::string& name) {
    Trace trace;
    std::string line;
    std::string pendingError;  // a broken line is only fatal if another line follows it
    int pendingLine = 0;
    int lineNo = 0;
    while (std::getline(in, line)) {
        ++lineNo;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        if (line.find_first_not_of(" \t") == std::string::npos) continue;
        if (!pendingError.empty())
            throw TraceFormatError(name + ": line " + std::to_string(pendingLine) + ": " +
                                   pendingError);
        json j;
        try {
            j = json::parse(line);
        } catch (const json::parse_error&) {
            pendingError = "not a JSON line: '" + line.substr(0, 80) + "'";
            pendingLine = lineNo;
            continue;
        }
        try {
            if (!j.is_object()) throw LineError("not a JSON object");
            const std::string type = text(j, "type");
            if (type == "sample")
                trace.samples.push_back(parseSample(j));
            else if (type == "event") {
                if (auto e = parseEvent(j))
                    trace.events.push_back(std::move(*e));
                else
                    ++trace.skippedLines;
            } else if (type == "start") {
                if (trace.start.empty()) trace.start = j;
            } else if (type == "error") {
                trace.errors.push_back({number(j, "t", false), text(j, "error")});
            } else if (type == "end") {
                trace.ended = true;
            } else {
                ++trace.skippedLines;
            }
        } catch (const LineError& e) {
            throw TraceFormatError(name + ": line " + std::to_string(lineNo) + ": " + e.what());
        } catch (const json::exception& e) {
            throw TraceFormatError(name + ": line " + std::to_string(lineNo) + ": " + e.what());
        }
    }
    if (!pendingError.empty()) trace.truncated = true;  // the half-written last line
    return trace;
}

Trace readTrace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FileError("cannot read trace '" + path + "': " + std::strerror(errno));
    return parseTrace(in, path);
}

}  // namespace stageload
