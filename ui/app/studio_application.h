#pragma once
// The app's QApplication: its name, version, icon and desktop entry; an exception that escapes an event handler (Qt does not support
// them; left alone they abort the program and lose the window) is logged and shown in a
// dialog, and the app goes on. In scripted mode (no one to read a dialog) it is printed and
// the app quits with exit code 70.
//
//   stageload::app::StudioApplication app(argc, argv);
//   app.setScripted(options.any());
//   return app.exec();

#include <QApplication>
#include <QIcon>

namespace stageload::app {

class StudioApplication : public QApplication {
public:
    StudioApplication(int& argc, char** argv);

    /// The app's icon: from the icon theme when installed, else the PNGs drawn by the build.
    static QIcon icon();

    void setScripted(bool scripted) { scripted_ = scripted; }
    /// How many escaped exceptions were caught so far.
    int caughtErrors() const { return caught_; }

    bool notify(QObject* receiver, QEvent* event) override;

    /// The exit code of a scripted run that an escaped exception ended.
    static constexpr int kExitInternalError = 70;

private:
    void report(const QString& message);

    bool scripted_ = false;
    bool reporting_ = false;  ///< a dialog is open: a second error is only logged
    int caught_ = 0;
};

}  // namespace stageload::app
