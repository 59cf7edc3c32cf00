#include "guard/keeper/keeper_watch.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <fstream>
#include <sstream>

#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include "guard/base/event.h"
#include "guard/process/group_command.h"
#include "guard/process/signal_block.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_writer.h"

namespace stageload {
namespace {

using Clock = std::chrono::steady_clock;

double secondsSince(long long epochNs) {
    const auto now = std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now().time_since_epoch()).count();
    return static_cast<double>(now - epochNs) / 1e9;
}

// "stageload-studio (pid 4242)", from the owner's /proc entry while it is still there.
std::string ownerName(pid_t owner) {
    std::ifstream in("/proc/" + std::to_string(owner) + "/comm");
    std::string comm;
    std::getline(in, comm);
    return (comm.empty() ? std::string("its owner") : comm) + " (pid " + std::to_string(owner) + ")";
}

// Appends `line` to the trace. A line the owner was writing when it died is dropped first, so
// the trace stays whole lines; without a line end in its last 64 KiB, the mark starts a new one.
std::string appendToTrace(const std::string& path, const std::string& line) {
    const int fd = ::open(path.c_str(), O_RDWR | O_APPEND | O_CLOEXEC);
    if (fd < 0) return "cannot open the trace '" + path + "': " + std::strerror(errno);
    std::string text = line + "\n";
    struct stat st {};
    if (::fstat(fd, &st) == 0 && st.st_size > 0) {
        std::string tail(static_cast<std::size_t>(std::min<off_t>(st.st_size, 64 * 1024)), '\0');
        const off_t from = st.st_size - static_cast<off_t>(tail.size());
        if (::pread(fd, tail.data(), tail.size(), from) == static_cast<ssize_t>(tail.size()) && tail.back() != '\n') {
            const auto eol = tail.rfind('\n');
            const off_t whole = eol == std::string::npos ? 0 : from + static_cast<off_t>(eol) + 1;
            if ((eol == std::string::npos && from != 0) || ::ftruncate(fd, whole) != 0)
                text.insert(text.begin(), '\n');
        }
    }
    const bool whole = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size());
    const int err = errno;
    ::close(fd);
    return whole ? "" : "cannot write the stop mark to the trace '" + path + "': " + std::strerror(err);
}

}  // namespace

std::optional<KeeperMessage> parseKeeperLine(const std::string& line) {
    std::istringstream in(line);
    std::string word;
    in >> word;
    KeeperMessage m;
    if (word == "done") {
        m.kind = KeeperMessage::Kind::Done;
        return m;
    }
    if (word == "group") {
        m.kind = KeeperMessage::Kind::Group;
        if (!(in >> m.pid >> m.grace) || m.pid <= 1 || !(m.grace >= 0.0 && m.grace <= 3600.0)) return std::nullopt;
        return m;
    }
    if (word == "escaped") {
        m.kind = KeeperMessage::Kind::Escaped;
        if (!(in >> m.pid >> m.ticks) || m.pid <= 1) return std::nullopt;
        return m;
    }
    if (word == "trace") {
        m.kind = KeeperMessage::Kind::Trace;
        if (!(in >> m.epochNs)) return std::nullopt;
        std::getline(in >> std::ws, m.path);
        if (m.path.empty()) return std::nullopt;
        return m;
    }
    return std::nullopt;
}

std::string keeperStopLine(const std::string& reason, double t) {
    Event e;
    e.kind = EventKind::Mark;
    e.note = stopMark(reason);
    return eventLine(e, t < 0.0 ? 0.0 : t).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

int keepWatch(int fd, const std::function<void(const std::string&)>& log) {
    SignalBlock signals;  // a logout's SIGTERM is seen here, not obeyed at once
    const pid_t owner = ::getppid();
    const std::string ownerText = ownerName(owner);

    std::optional<GroupCommand> group;
    double grace = 5.0;
    std::string tracePath;
    long long epochNs = 0;
    std::optional<Clock::time_point> deadline;  // after a termination signal
    int signal = 0;
    std::string buffer;
    bool open = true;
    while (open) {
        pollfd p{fd, POLLIN, 0};
        const int ready = ::poll(&p, 1, 200);
        if (ready > 0) {
            char chunk[4096];
            const ssize_t n = ::read(fd, chunk, sizeof chunk);
            if (n > 0) {
                buffer.append(chunk, static_cast<std::size_t>(n));
            } else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
                open = false;
            }
            for (std::size_t eol; (eol = buffer.find('\n')) != std::string::npos;) {
                const auto m = parseKeeperLine(buffer.substr(0, eol));
                buffer.erase(0, eol + 1);
                if (!m) continue;
                switch (m->kind) {
                    case KeeperMessage::Kind::Done: return 0;
                    case KeeperMessage::Kind::Group:
                        group.emplace(GroupCommand::Adopt{}, m->pid);
                        grace = m->grace;
                        break;
                    case KeeperMessage::Kind::Escaped:
                        if (group) group->addEscaped(m->pid, m->ticks);
                        break;
                    case KeeperMessage::Kind::Trace:
                        tracePath = m->path;
                        epochNs = m->epochNs;
                        break;
                }
            }
        }
        if (const int sig = signals.wait(0.0); SignalBlock::isTermination(sig) && !deadline) {
            signal = sig;
            deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                          std::chrono::duration<double>(grace + 10.0));
        }
        if (deadline && Clock::now() >= *deadline) break;
    }
    if (!group) return 0;  // the owner ended before it started anything

    const std::string pgid = std::to_string(group->pgid());
    const std::string reason =
        open ? "the keeper got " + SignalBlock::describe(signal) + " and " + ownerText +
                   " did not stop its run in time; the keeper stopped group " + pgid
             : ownerText + " ended without stopping its run; its keeper stopped group " + pgid;
    const auto sleep = [&](double s) { signals.wait(s); };
    try {
        group->track(listProcesses(false));
    } catch (const Error&) {
        // the process table cannot be read: the group and the escapes already told are stopped
    }
    const bool wasAlive = group->groupAlive() || !group->escaped().empty();
    if (wasAlive) log("interrupted: " + reason);
    const bool gone = group->stop(grace, sleep);
    if (wasAlive && !tracePath.empty()) {
        const double t = epochNs != 0 ? secondsSince(epochNs) : 0.0;
        const std::string problem = appendToTrace(tracePath, keeperStopLine(interruptedReason(reason), t));
        if (!problem.empty()) log(problem);
    }
    if (!gone) log("some processes of group " + pgid + " survived SIGKILL");
    return gone ? 0 : 1;
}

}  // namespace stageload
