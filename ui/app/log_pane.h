#pragma once
// The log pane: every spdlog message of the process (engine, guard, app), shown live.
//
//   auto* pane = new LogPane(this);
//   pane->attachTo(spdlog::default_logger());   // GUI thread, before runs start
//
// The sink may be called from any thread (worker, meter); it hands each formatted line to the
// pane through a queued signal, so the widget is only touched on the GUI thread.
//
// The pane follows new lines until the user scrolls up, and again once they scroll back to the
// end; a resize (the docks dragged) does not stop it following.

#include <QPlainTextEdit>
#include <memory>

namespace spdlog {
class logger;
namespace sinks {
class sink;
}
}  // namespace spdlog

namespace stageload::app {

class LogBridge;

class LogPane : public QPlainTextEdit {
    Q_OBJECT

public:
    explicit LogPane(QWidget* parent = nullptr);
    ~LogPane() override;

    /// Adds a sink to `logger` that forwards to this pane; removed again by the destructor.
    void attachTo(const std::shared_ptr<spdlog::logger>& logger);

    /// Appends one line (GUI thread). Warnings and errors are coloured.
    void appendLine(const QString& line, int level);

    /// True while new lines scroll into view.
    bool following() const { return follow_; }

protected:
    void resizeEvent(QResizeEvent* event) override;

private:
    void scrollToEnd();

    bool follow_ = true;
    bool scrolling_ = false;  ///< the pane itself moves the scroll bar: not the user's choice
    std::shared_ptr<spdlog::logger> logger_;
    std::shared_ptr<LogBridge> bridge_;
    std::shared_ptr<spdlog::sinks::sink> sink_;
};

}  // namespace stageload::app
