#pragma once
// What the fault-injection suites share: a run's processes found from /proc by a token in their
// environment (every descendant inherits it, setsid'd ones and the keeper included, whatever
// group or parent they end up with), waiting for them to come and go, and how a trace ended.
//
//   const QString token = faults::newToken();
//   env.insert(faults::kTokenVariable, token);          // the program and all it starts
//   QVERIFY(faults::waitFor([&] { return faults::processesOf(token).size() >= 3; }, 10000));
//   ::kill(pid, SIGKILL);
//   const qint64 ms = faults::msUntilGone(token, 10000);  // -1: some are still there

#include <QDir>
#include <QElapsedTimer>
#include <QFile>
#include <QString>
#include <QThread>
#include <QUuid>
#include <functional>
#include <string>
#include <vector>

#include "guard/process/process_list.h"
#include "guard/trace/summary.h"
#include "guard/trace/trace_reader.h"

namespace faults {

inline constexpr const char* kTokenVariable = "STAGELOAD_FAULT_RUN";

inline QString newToken() {
    return QUuid::createUuid().toString(QUuid::WithoutBraces);
}

/// Pids of the live processes (zombies excluded) whose environment holds kTokenVariable=token.
inline std::vector<pid_t> processesOf(const QString& token) {
    const QByteArray wanted = QByteArray(kTokenVariable) + '=' + token.toUtf8();
    std::vector<pid_t> out;
    for (const auto& p : stageload::listProcesses(false)) {
        if (p.state == 'Z' || p.state == 'X') continue;
        QFile env(QStringLiteral("/proc/%1/environ").arg(p.pid));
        if (!env.open(QIODevice::ReadOnly)) continue;
        for (const QByteArray& entry : env.readAll().split('\0'))
            if (entry == wanted) {
                out.push_back(p.pid);
                break;
            }
    }
    return out;
}

/// Polls `done` every 20 ms for up to `ms`; true as soon as it holds.
inline bool waitFor(const std::function<bool()>& done, int ms) {
    QElapsedTimer t;
    t.start();
    while (!done()) {
        if (t.elapsed() > ms) return false;
        QThread::msleep(20);
    }
    return true;
}

/// Milliseconds until no process of `token` is left, or -1 after `ms`.
inline qint64 msUntilGone(const QString& token, int ms) {
    QElapsedTimer t;
    t.start();
    return waitFor([&] { return processesOf(token).empty(); }, ms) ? t.elapsed() : -1;
}

/// The reason of the trace's stop mark ("" when it has none or cannot be read).
inline QString stopReasonOf(const QString& trace) {
    try {
        return QString::fromStdString(stageload::summarize(stageload::readTrace(trace.toStdString())).stopReason);
    } catch (const std::exception&) {
        return {};
    }
}

}  // namespace faults
