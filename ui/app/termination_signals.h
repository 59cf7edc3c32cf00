#pragma once
// SIGTERM (logout, `systemctl --user stop`, kill), SIGINT (Ctrl+C in the terminal it was started
// from) and SIGHUP (that terminal closed) as a Qt signal on the GUI thread, so the app stops its
// run — a generator's whole process group — and keeps it in the history before it quits,
// instead of dying at once with the run left going.
//
//   stageload::app::TerminationSignals signals;   // one per process, before the event loop
//   QObject::connect(&signals, &TerminationSignals::received, &window,
//                    [&](int sig) { window.stopRunAndQuit(describe(sig), 128 + sig); });
//
// The handlers only write the signal's number to a socket (async-signal-safe); a signal that
// was ignored when the app started (SIGHUP under nohup) stays ignored. The destructor puts the
// default handlers back.

#include <QObject>

class QSocketNotifier;

namespace stageload::app {

class TerminationSignals : public QObject {
    Q_OBJECT

public:
    explicit TerminationSignals(QObject* parent = nullptr);
    ~TerminationSignals() override;

    /// "SIGTERM (logout, systemctl stop, kill)" and the like.
    static QString describe(int sig);

signals:
    void received(int sig);

private:
    void onReadable();

    QSocketNotifier* notifier_ = nullptr;
};

}  // namespace stageload::app
