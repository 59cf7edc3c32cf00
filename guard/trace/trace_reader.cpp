#include "guard/trace/trace_reader.h"

#include <cerrno>
#include <climits>
#include <cmath>
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
    const double d = it->get<double>();
    if (!std::isfinite(d)) throw LineError(std::string("\"") + key + "\" is out of range");
    return d;
}

// A byte count: a whole, non-negative number that fits an int64 (sums of them are saturated).
std::int64_t byteCount(const json& j, const char* key) {
    const auto it = j.find(key);
    if (it == j.end() || it->is_null()) return 0;
    const auto outOfRange = [key] {
        return LineError(std::string("\"") + key + "\" is out of range (a byte count must be 0 to " +
                         std::to_string(INT64_MAX) + ")");
    };
    if (it->is_number_unsigned()) {
        if (it->get<std::uint64_t>() > std::uint64_t(INT64_MAX)) throw outOfRange();
        return it->get<std::int64_t>();
    }
    if (it->is_number_integer()) {
        if (it->get<std::int64_t>() < 0) throw outOfRange();
        return it->get<std::int64_t>();
    }
    if (it->is_number()) {
        // 2^63 is the first double past INT64_MAX; comparing before the cast keeps it defined.
        const double d = it->get<double>();
        if (!std::isfinite(d) || d < 0.0 || d >= 9223372036854775808.0) throw outOfRange();
        return static_cast<std::int64_t>(d);
    }
    throw LineError(std::string("\"") + key + "\" is not a number");
}

// nlohmann's "[json.exception.out_of_range.406] number overflow parsing '1e400'" without the
// bracketed code, which means nothing to a reader of the message.
std::string plainJsonMessage(const json::exception& e) {
    std::string text = e.what();
    if (!text.empty() && text[0] == '[') {
        const auto close = text.find("] ");
        if (close != std::string::npos) text.erase(0, close + 2);
    }
    return text;
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
    s.footprint = byteCount(j, "footprint");
    s.swapUsed = byteCount(j, "swap_used");
    s.level = number(j, "level", false);
    s.available = byteCount(j, "available");
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
    e.nbytes = byteCount(j, "nbytes");
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

TraceLine parseTraceLine(std::string_view text_) {
    std::string_view line = text_;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    TraceLine out;
    if (line.find_first_not_of(" \t") == std::string_view::npos) return out;
    try {
        const json j = json::parse(line);
        if (!j.is_object()) throw LineError("not a JSON object");
        const std::string type = text(j, "type");
        if (type == "sample") {
            out.kind = TraceLine::Kind::Sample;
            out.sample = parseSample(j);
        } else if (type == "event") {
            if (auto e = parseEvent(j)) {
                out.kind = TraceLine::Kind::Event;
                out.event = std::move(*e);
            } else {
                out.kind = TraceLine::Kind::Unknown;
            }
        } else if (type == "start") {
            out.kind = TraceLine::Kind::Start;
            out.start = j;
        } else if (type == "error") {
            out.kind = TraceLine::Kind::Error;
            out.error = {number(j, "t", false), text(j, "error")};
        } else if (type == "end") {
            out.kind = TraceLine::Kind::End;
        } else {
            out.kind = TraceLine::Kind::Unknown;
        }
    } catch (const json::parse_error&) {
        throw TraceLineError("not a JSON line: '" + std::string(line.substr(0, 80)) + "'", true);
    } catch (const json::out_of_range& e) {
        throw TraceLineError("a number does not fit (" + plainJsonMessage(e) + ")", false);
    } catch (const LineError& e) {
        throw TraceLineError(e.what(), false);
    } catch (const json::exception& e) {
        throw TraceLineError(plainJsonMessage(e), false);
    }
    return out;
}

Trace parseTrace(std::istream& in, const std::string& name) {
    Trace trace;
    std::string line;
    std::string pendingError;  // a line that is not JSON is only fatal if another line follows it
    int pendingLine = 0;
    int lineNo = 0;
    bool followed = false;  // a line came after the pending one
    while (!followed && std::getline(in, line)) {
        ++lineNo;
        TraceLine parsed;
        try {
            parsed = parseTraceLine(line);
        } catch (const TraceLineError& e) {
            followed = !pendingError.empty();
            if (followed) break;
            if (!e.notJson())
                throw TraceFormatError(name + ": line " + std::to_string(lineNo) + ": " + e.what());
            pendingError = e.what();
            pendingLine = lineNo;
            continue;
        }
        if (parsed.kind == TraceLine::Kind::Blank) continue;
        followed = !pendingError.empty();
        if (followed) break;
        switch (parsed.kind) {
            case TraceLine::Kind::Sample: trace.samples.push_back(std::move(parsed.sample)); break;
            case TraceLine::Kind::Event: trace.events.push_back(std::move(parsed.event)); break;
            case TraceLine::Kind::Start:
                if (trace.start.empty()) trace.start = std::move(parsed.start);
                break;
            case TraceLine::Kind::Error: trace.errors.push_back(std::move(parsed.error)); break;
            case TraceLine::Kind::End: trace.ended = true; break;
            case TraceLine::Kind::Unknown: ++trace.skippedLines; break;
            case TraceLine::Kind::Blank: break;
        }
    }
    if (followed)
        throw TraceFormatError(name + ": line " + std::to_string(pendingLine) + ": " + pendingError);
    trace.truncated = !pendingError.empty();  // the half-written last line was dropped
    return trace;
}

Trace readTrace(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw FileError("cannot read trace '" + path + "': " + std::strerror(errno));
    return parseTrace(in, path);
}

}  // namespace stageload
