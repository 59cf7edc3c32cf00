#include "ui/app/termination_signals.h"

#include <QSocketNotifier>
#include <cerrno>
#include <csignal>
#include <cstring>

#include <spdlog/spdlog.h>
#include <sys/socket.h>
#include <unistd.h>

#include "guard/process/signal_block.h"

namespace stageload::app {
namespace {

constexpr int kSignals[] = {SIGTERM, SIGINT, SIGHUP};
int gSocket[2] = {-1, -1};  // [0] written by the handler, [1] read on the GUI thread

extern "C" void onTerminationSignal(int sig) {
    const int saved = errno;
    const unsigned char byte = static_cast<unsigned char>(sig);
    [[maybe_unused]] const auto n = ::write(gSocket[0], &byte, 1);
    errno = saved;
}

}  // namespace

TerminationSignals::TerminationSignals(QObject* parent) : QObject(parent) {
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0, gSocket) != 0) {
        spdlog::warn("no handler for SIGTERM: {}; a logout ends the app without stopping its run first",
                     std::strerror(errno));
        return;
    }
    notifier_ = new QSocketNotifier(gSocket[1], QSocketNotifier::Read, this);
    connect(notifier_, &QSocketNotifier::activated, this, &TerminationSignals::onReadable);
    for (int sig : kSignals) {
        struct sigaction current {};
        if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == SIG_IGN) continue;
        struct sigaction action {};
        action.sa_handler = onTerminationSignal;
        sigemptyset(&action.sa_mask);
        action.sa_flags = SA_RESTART;
        ::sigaction(sig, &action, nullptr);
    }
}

TerminationSignals::~TerminationSignals() {
    if (!notifier_) return;
    for (int sig : kSignals) {
        struct sigaction current {};
        if (::sigaction(sig, nullptr, &current) == 0 && current.sa_handler == onTerminationSignal)
            ::signal(sig, SIG_DFL);
    }
    ::close(gSocket[0]);
    ::close(gSocket[1]);
    gSocket[0] = gSocket[1] = -1;
}

QString TerminationSignals::describe(int sig) {
    return QString::fromStdString(SignalBlock::describe(sig));
}

void TerminationSignals::onReadable() {
    unsigned char byte = 0;
    while (::read(gSocket[1], &byte, 1) == 1) emit received(byte);
}

}  // namespace stageload::app
