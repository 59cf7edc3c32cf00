#include "guard/keeper/keeper_link.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <utility>

#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include "guard/base/data_dirs.h"
#include "guard/process/group_command.h"

extern char** environ;

namespace stageload {

std::filesystem::path keeperProgram() {
    if (const char* set = std::getenv("STAGELOAD_KEEPER"); set && *set) return set;
    const auto prefix = programPrefix();
    if (prefix.empty()) return {};
    return prefix / "libexec" / "stageload" / "stageload-keeper";
}

KeeperLink::KeeperLink(const std::filesystem::path& program) {
    if (program.empty()) throw StartError("no stageload-keeper: this program's own file cannot be read");
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0)
        throw StartError(std::string("cannot start stageload-keeper: no socket (") + std::strerror(errno) + ")");
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, fds[1], 0);  // dup2 clears close-on-exec
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 34)
    posix_spawn_file_actions_addclosefrom_np(&actions, 3);  // none of this program's files
#endif
    const std::string path = program.string();
    char* argv[] = {const_cast<char*>(path.c_str()), nullptr};
    pid_t pid = -1;
    const int rc = ::posix_spawn(&pid, path.c_str(), &actions, nullptr, argv, environ);
    posix_spawn_file_actions_destroy(&actions);
    ::close(fds[1]);
    if (rc != 0) {
        ::close(fds[0]);
        throw StartError("cannot start the keeper '" + path + "': " + std::strerror(rc));
    }
#if defined(__APPLE__)
    const int on = 1;
    ::setsockopt(fds[0], SOL_SOCKET, SO_NOSIGPIPE, &on, sizeof on);
#endif
    pid_ = pid;
    fd_ = fds[0];
}

KeeperLink::~KeeperLink() {
    if (fd_ >= 0) ::close(fd_);  // without "done": the keeper stops what it watches
    if (pid_ > 0) ::waitpid(pid_, nullptr, WNOHANG);
}

void KeeperLink::send(const std::string& line) {
    if (!alive()) return;
    const std::string text = line + "\n";
#if defined(MSG_NOSIGNAL)
    const int flags = MSG_NOSIGNAL;
#else
    const int flags = 0;
#endif
    for (std::size_t done = 0; done < text.size();) {
        const ssize_t n = ::send(fd_, text.data() + done, text.size() - done, flags);
        if (n < 0 && errno == EINTR) continue;
        if (n <= 0) {
            lost_ = true;
            return;
        }
        done += static_cast<std::size_t>(n);
    }
}

void KeeperLink::watch(pid_t pgid, double grace) {
    send("group " + std::to_string(pgid) + " " + std::to_string(grace));
}

void KeeperLink::trace(const std::filesystem::path& path, std::chrono::steady_clock::time_point epoch) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(epoch.time_since_epoch()).count();
    send("trace " + std::to_string(ns) + " " + path.string());
}

void KeeperLink::escaped(const std::map<pid_t, long long>& escaped) {
    for (const auto& [pid, ticks] : escaped)
        if (sent_.emplace(pid, ticks).second)
            send("escaped " + std::to_string(pid) + " " + std::to_string(ticks));
}

void KeeperLink::release() {
    send("done");
    if (fd_ >= 0) ::close(std::exchange(fd_, -1));
    // It leaves at once; reap it (bounded: a keeper that hangs is left, not waited for).
    for (int i = 0; i < 200 && pid_ > 0; ++i) {
        const pid_t got = ::waitpid(pid_, nullptr, WNOHANG);
        if (got == pid_ || (got < 0 && errno != EINTR)) pid_ = -1;
        else std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
}

}  // namespace stageload
