#include "guard/generator/trace_follower.h"

#include <fcntl.h>
#include <unistd.h>

namespace stageload {
namespace {

constexpr std::size_t kMaxPerPoll = std::size_t(4) << 20;

}  // namespace

TraceFollower::TraceFollower(std::filesystem::path path) : path_(std::move(path)) {}

void TraceFollower::take(std::string line, std::vector<TraceLine>& out) {
    ++lineNo_;
    try {
        auto parsed = parseTraceLine(line);
        if (parsed.kind == TraceLine::Kind::Blank) return;
        ++lines_;
        out.push_back(std::move(parsed));
    } catch (const TraceLineError& e) {
        ++badLines_;
        if (firstProblem_.empty()) firstProblem_ = "line " + std::to_string(lineNo_) + ": " + e.what();
    }
}

std::vector<TraceLine> TraceFollower::poll() {
    std::vector<TraceLine> out;
    const int fd = ::open(path_.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return out;
    found_ = true;
    std::string chunk(kMaxPerPoll, '\0');
    const ssize_t n = ::pread(fd, chunk.data(), chunk.size(), static_cast<off_t>(offset_));
    ::close(fd);
    if (n <= 0) return out;
    offset_ += static_cast<std::uint64_t>(n);
    pending_.append(chunk.data(), static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (std::size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
        take(pending_.substr(start, nl - start), out);
    pending_.erase(0, start);
    return out;
}

std::vector<TraceLine> TraceFollower::finish() {
    auto out = poll();
    while (true) {  // a file larger than one poll's read
        auto more = poll();
        if (more.empty()) break;
        out.insert(out.end(), std::make_move_iterator(more.begin()), std::make_move_iterator(more.end()));
    }
    if (!pending_.empty()) {
        const int before = badLines_;
        take(std::exchange(pending_, {}), out);
        halfWritten_ = badLines_ != before;
    }
    return out;
}

}  // namespace stageload
