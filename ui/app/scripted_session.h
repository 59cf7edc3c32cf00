#pragma once
// Scripted mode, for tests, docs and benchmarks:
//   stageload-studio IMAGE [--generator FILE.json] --generate --screenshot OUT.png --quit-when-done
//                    [--benchmark]
// generates the picture, waits until the mesh has been drawn, saves a screenshot of the window
// and quits with 0 when the run was done (3, with the screenshot of the stop, when the guard
// stopped it; 1 otherwise, the reason on stderr). Everything starts
// once the window's first frame has been painted, 3D view included, as a user would see it.
// --benchmark prints the time from launch (the process's start, before its re-execution for
// huge-page malloc) to that first frame and how late the GUI thread served a 10 ms timer during
// the run (p50 / p99 / max).
//
//   ScriptedSession session(window, options, launchClock);
//   session.begin();                 // after window.show()
//
// GUI thread only.

#include <QElapsedTimer>
#include <QObject>
#include <QString>

#include "ui/chart/latency_probe.h"
#include "ui/studio/generate_request.h"

namespace stageload::app {

class MainWindow;

struct ScriptOptions {
    bool generate = false;
    QString screenshot;  ///< empty: none
    bool quitWhenDone = false;
    bool benchmark = false;
    bool any() const { return generate || !screenshot.isEmpty() || quitWhenDone || benchmark; }
};

class ScriptedSession : public QObject {
    Q_OBJECT

public:
    ScriptedSession(MainWindow& window, ScriptOptions options, QElapsedTimer launch);
    /// Starts what the options ask for once the window's first frame is on screen.
    void begin();

private:
    void onFirstFrame();
    void onRunFinished(const studio::GenerateOutcome& outcome);
    void finish(int exitCode);
    bool saveScreenshot();

    MainWindow& window_;
    ScriptOptions options_;
    QElapsedTimer launch_;
    chart::LatencyProbe probe_;
    qint64 firstFrameMs_ = -1;
    int exitCode_ = 0;
};

}  // namespace stageload::app
