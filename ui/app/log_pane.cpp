#include "ui/app/log_pane.h"

#include <spdlog/sinks/base_sink.h>
#include <spdlog/spdlog.h>

#include <QFontDatabase>
#include <QScrollBar>
#include <algorithm>
#include <mutex>

namespace stageload::app {

// Lives as long as the sink; emits from any thread, received queued on the pane's thread.
class LogBridge : public QObject {
    Q_OBJECT

signals:
    void line(const QString& text, int level);
};

namespace {

class BridgeSink : public spdlog::sinks::base_sink<std::mutex> {
public:
    explicit BridgeSink(std::shared_ptr<LogBridge> bridge) : bridge_(std::move(bridge)) {}

protected:
    void sink_it_(const spdlog::details::log_msg& msg) override {
        spdlog::memory_buf_t formatted;
        formatter_->format(msg, formatted);
        auto text = QString::fromUtf8(formatted.data(), static_cast<qsizetype>(formatted.size()));
        while (text.endsWith(QLatin1Char('\n'))) text.chop(1);
        emit bridge_->line(text, static_cast<int>(msg.level));
    }
    void flush_() override {}

private:
    std::shared_ptr<LogBridge> bridge_;
};

}  // namespace

LogPane::LogPane(QWidget* parent) : QPlainTextEdit(parent) {
    setReadOnly(true);
    setMaximumBlockCount(5000);
    setFont(QFontDatabase::systemFont(QFontDatabase::FixedFont));
    setObjectName(QStringLiteral("logPane"));
    // Only the user's scrolling decides: up stops the following, back to the end resumes it.
    connect(verticalScrollBar(), &QScrollBar::valueChanged, this, [this](int value) {
        if (!scrolling_) follow_ = value >= verticalScrollBar()->maximum();
    });
}

LogPane::~LogPane() {
    if (logger_) {
        auto& sinks = logger_->sinks();
        sinks.erase(std::remove(sinks.begin(), sinks.end(), sink_), sinks.end());
    }
}

void LogPane::attachTo(const std::shared_ptr<spdlog::logger>& logger) {
    logger_ = logger;
    bridge_ = std::make_shared<LogBridge>();
    connect(bridge_.get(), &LogBridge::line, this, &LogPane::appendLine, Qt::QueuedConnection);
    sink_ = std::make_shared<BridgeSink>(bridge_);
    sink_->set_pattern("%H:%M:%S.%e %l %v");
    logger->sinks().push_back(sink_);
}

void LogPane::appendLine(const QString& line, int level) {
    scrolling_ = true;  // a first line dropped at the block limit moves the bar too
    if (level >= spdlog::level::err)
        appendHtml(QStringLiteral("<span style=\"color:#d9534f\">%1</span>").arg(line.toHtmlEscaped()));
    else if (level == spdlog::level::warn)
        appendHtml(QStringLiteral("<span style=\"color:#e0a030\">%1</span>").arg(line.toHtmlEscaped()));
    else
        appendPlainText(line);
    scrolling_ = false;
    if (follow_) scrollToEnd();
}

void LogPane::resizeEvent(QResizeEvent* event) {
    scrolling_ = true;  // lines rewrapped to the new width move the bar, not the user
    QPlainTextEdit::resizeEvent(event);
    scrolling_ = false;
    if (follow_) scrollToEnd();
}

void LogPane::scrollToEnd() {
    scrolling_ = true;
    verticalScrollBar()->setValue(verticalScrollBar()->maximum());
    scrolling_ = false;
}

}  // namespace stageload::app

#include "log_pane.moc"
