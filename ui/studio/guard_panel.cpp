#include "ui/studio/guard_panel.h"

#include <cmath>
#include <cstdint>
#include <string>
#include <utility>

#include <QCheckBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QVBoxLayout>
#include <QVariant>

#include "guard/core/error.h"
#include "guard/core/units.h"
#include "guard/policy/busy_patterns.h"

namespace stageload::studio {
namespace {

const QColor kIdle(0x9e, 0x9e, 0x9e);
const QColor kWaiting(0xf0, 0xa0, 0x00);
const QColor kRunning(0x2e, 0x7d, 0x32);
const QColor kStopped(0xc6, 0x28, 0x28);

const char* const kInvalidStyle = "border: 1px solid #c62828;";

/// Exact and parseable by parseSize: "8G", "512M", "1536K", "100".
QString sizeText(std::int64_t bytes) {
    static const std::pair<std::int64_t, const char*> units[] = {{std::int64_t(1) << 40, "T"},
                                                                 {std::int64_t(1) << 30, "G"},
                                                                 {std::int64_t(1) << 20, "M"},
                                                                 {std::int64_t(1) << 10, "K"}};
    for (const auto& [size, unit] : units)
        if (bytes != 0 && bytes % size == 0)
            return QString::number(bytes / size) + QLatin1String(unit);
    return QString::number(bytes);
}

/// Exact and parseable by parseDuration: "30m", "90s", "250ms", "2h", "1.5s". (formatDuration's
/// "1m30s" is for reading, parseDuration does not take it back.)
QString durationText(double seconds) {
    const double ms = std::round(seconds * 1000.0);
    if (std::fabs(seconds * 1000.0 - ms) < 1e-6 && ms < 9e15) {
        const auto n = static_cast<std::int64_t>(ms);
        if (n == 0) return QStringLiteral("0s");
        if (n % 3600000 == 0) return QString::number(n / 3600000) + QLatin1Char('h');
        if (n % 60000 == 0) return QString::number(n / 60000) + QLatin1Char('m');
        if (n % 1000 == 0) return QString::number(n / 1000) + QLatin1Char('s');
        if (n < 1000) return QString::number(n) + QStringLiteral("ms");
    }
    return QString::number(seconds, 'g', 15) + QLatin1Char('s');
}

/// "12 s" under a minute, then "1m05s".
QString waitedText(double seconds) {
    const double s = std::floor(std::max(0.0, seconds));
    if (s < 60.0) return QString::number(static_cast<int>(s)) + QStringLiteral(" s");
    return QString::fromStdString(formatDuration(s));
}

QDoubleSpinBox* percentBox(const char* name) {
    auto* box = new QDoubleSpinBox;
    box->setObjectName(QLatin1String(name));
    box->setRange(0.0, 100.0);
    box->setDecimals(2);
    box->setSingleStep(5.0);
    box->setSuffix(QStringLiteral(" %"));
    return box;
}

QLineEdit* textField(const char* name, const QString& placeholder) {
    auto* edit = new QLineEdit;
    edit->setObjectName(QLatin1String(name));
    edit->setPlaceholderText(placeholder);
    return edit;
}

}  // namespace

GuardPanel::GuardPanel(QWidget* parent) : QWidget(parent) {
    state_ = new QLabel;
    state_->setObjectName(QStringLiteral("guardState"));
    state_->setWordWrap(true);
    state_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    enabled_ = new QCheckBox(tr("Guard in-app runs"));
    enabled_->setObjectName(QStringLiteral("guardEnabled"));
    enabled_->setToolTip(
        tr("Start a run only when there is room, and stop it before swap runs "
           "away (the same rules as `stageload guard`)."));

    waitFree_ = percentBox("waitFree");
    waitFree_->setToolTip(
        tr("--wait-free: start only when available memory is at least this "
           "share of RAM (default 40 %)."));
    killFree_ = percentBox("killFree");
    killFree_->setToolTip(
        tr("--kill-free: stop the run when available memory is under this "
           "share for two readings in a row (default 10 %)."));
    swapBudget_ = textField("swapBudget", tr("e.g. 8G"));
    swapBudget_->setToolTip(
        tr("--swap-budget: stop the run when swap used grows by more than "
           "this since it started (default 8G)."));
    swapLimit_ = textField("swapLimit", tr("unset"));
    swapLimit_->setToolTip(
        tr("--swap-limit: stop when swap used exceeds this, and start only "
           "when swap used + budget fits under it; empty = unset."));
    quietFor_ = textField("quietFor", tr("e.g. 1m"));
    quietFor_->setToolTip(
        tr("--quiet-for: start only when no busy process has been seen for "
           "this long (default 1m)."));
    startTimeout_ = textField("startTimeout", tr("e.g. 30m"));
    startTimeout_->setToolTip(
        tr("--start-timeout: give up when there is no room within this "
           "long (default 30m)."));
    poll_ = textField("poll", tr("e.g. 5s"));
    poll_->setToolTip(
        tr("--poll: how often memory is read while waiting and running "
           "(default 5s; zero is refused)."));
    busy_ = new QPlainTextEdit;
    busy_->setObjectName(QStringLiteral("busy"));
    busy_->setPlaceholderText(tr("one regex per line, e.g. ffmpeg"));
    busy_->setToolTip(
        tr("--busy: one regex per line, searched in whole command lines like "
           "pgrep -f; while one matches, runs wait."));
    busy_->setTabChangesFocus(true);

    error_ = new QLabel;
    error_->setObjectName(QStringLiteral("guardError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #c62828;"));
    error_->hide();

    auto* form = new QFormLayout;
    form->addRow(tr("Wait free"), waitFree_);
    form->addRow(tr("Kill free"), killFree_);
    form->addRow(tr("Swap budget"), swapBudget_);
    form->addRow(tr("Swap limit"), swapLimit_);
    form->addRow(tr("Quiet for"), quietFor_);
    form->addRow(tr("Start timeout"), startTimeout_);
    form->addRow(tr("Poll"), poll_);
    form->addRow(tr("Busy patterns"), busy_);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(state_);
    layout->addWidget(enabled_);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addStretch(1);

    const auto edited = [this] { onEdited(); };
    connect(waitFree_, &QDoubleSpinBox::valueChanged, this, edited);
    connect(killFree_, &QDoubleSpinBox::valueChanged, this, edited);
    for (QLineEdit* e : {swapBudget_, swapLimit_, quietFor_, startTimeout_, poll_})
        connect(e, &QLineEdit::textChanged, this, edited);
    connect(busy_, &QPlainTextEdit::textChanged, this, edited);
    connect(enabled_, &QCheckBox::toggled, this, [this] {
        if (loading_) return;
        if (idle_) showIdle();
        emit paramsEdited();
    });

    setParams(GuardParams{}, true);
    showIdle();
}

void GuardPanel::setParams(const GuardParams& params, bool enabled) {
    loading_ = true;
    base_ = params;
    enabled_->setChecked(enabled);
    waitFree_->setValue(params.waitFree);
    killFree_->setValue(params.killFree);
    swapBudget_->setText(sizeText(params.swapBudget));
    swapLimit_->setText(params.swapLimit ? sizeText(*params.swapLimit) : QString());
    quietFor_->setText(durationText(params.quietFor));
    startTimeout_->setText(durationText(params.startTimeout));
    poll_->setText(durationText(params.poll));
    QStringList lines;
    for (const auto& p : params.busy) lines << QString::fromStdString(p);
    busy_->setPlainText(lines.join(QLatin1Char('\n')));
    loading_ = false;

    QString error;
    QWidget* field = nullptr;
    if (const auto p = parse(&error, &field)) lastValid_ = *p;
    showValidity(error, field);
    if (idle_) showIdle();
}

std::optional<GuardParams> GuardPanel::params(QString* error) const {
    QWidget* field = nullptr;
    return parse(error, &field);
}

std::optional<GuardParams> GuardPanel::parse(QString* error, QWidget** field) const {
    const auto fail = [&](const QString& what, QWidget* w,
                          const QString& why) -> std::optional<GuardParams> {
        if (error) *error = what + QStringLiteral(": ") + why;
        *field = w;
        return std::nullopt;
    };
    GuardParams p = base_;
    p.waitFree = waitFree_->value();
    p.killFree = killFree_->value();

    try {
        p.swapBudget = parseSize(swapBudget_->text().toStdString());
    } catch (const Error& e) {
        return fail(tr("Swap budget"), swapBudget_, QString::fromStdString(e.what()));
    }
    try {
        const QString limit = swapLimit_->text().trimmed();
        p.swapLimit.reset();
        if (!limit.isEmpty()) p.swapLimit = parseSize(limit.toStdString());
    } catch (const Error& e) {
        return fail(tr("Swap limit"), swapLimit_,
                    QString::fromStdString(e.what()) + tr("; leave it empty for no limit"));
    }
    const std::pair<QLineEdit*, double*> durations[] = {
        {quietFor_, &p.quietFor}, {startTimeout_, &p.startTimeout}, {poll_, &p.poll}};
    const QString durationNames[] = {tr("Quiet for"), tr("Start timeout"), tr("Poll")};
    for (std::size_t i = 0; i < std::size(durations); ++i) {
        try {
            *durations[i].second = parseDuration(durations[i].first->text().toStdString());
        } catch (const Error& e) {
            return fail(durationNames[i], durations[i].first, QString::fromStdString(e.what()));
        }
    }
    p.busy.clear();
    const QStringList lines = busy_->toPlainText().split(QLatin1Char('\n'));
    for (qsizetype i = 0; i < lines.size(); ++i) {
        const QString line = lines.at(i).trimmed();
        if (line.isEmpty()) continue;
        try {
            BusyPatterns one({line.toStdString()});
        } catch (const Error& e) {
            return fail(tr("Busy patterns, line %1").arg(i + 1), busy_,
                        QString::fromStdString(e.what()));
        }
        p.busy.push_back(line.toStdString());
    }
    try {
        validate(p);
    } catch (const Error& e) {
        // validate() names the CLI flag first ("--poll: a zero poll is refused ..."): name the
        // field instead.
        const std::pair<const char*, std::pair<QString, QWidget*>> flags[] = {
            {"--wait-free", {tr("Wait free"), waitFree_}},
            {"--kill-free", {tr("Kill free"), killFree_}},
            {"--swap-budget", {tr("Swap budget"), swapBudget_}},
            {"--swap-limit", {tr("Swap limit"), swapLimit_}},
            {"--quiet-for", {tr("Quiet for"), quietFor_}},
            {"--start-timeout", {tr("Start timeout"), startTimeout_}},
            {"--poll", {tr("Poll"), poll_}},
            {"--busy", {tr("Busy patterns"), busy_}},
        };
        const std::string what = e.what();
        for (const auto& [flag, named] : flags) {
            const std::string f = flag;
            if (what.rfind(f, 0) == 0) {
                QString rest = QString::fromStdString(what.substr(f.size())).trimmed();
                if (rest.startsWith(QLatin1Char(':'))) rest = rest.mid(1).trimmed();
                return fail(named.first, named.second, rest);
            }
        }
        return fail(tr("Guard"), nullptr, QString::fromStdString(what));
    }
    return p;
}

bool GuardPanel::guardEnabled() const {
    return enabled_->isChecked();
}

QString GuardPanel::errorText() const {
    return error_->isHidden() ? QString() : error_->text();
}

void GuardPanel::onEdited() {
    if (loading_) return;
    QString error;
    QWidget* field = nullptr;
    const auto p = parse(&error, &field);
    showValidity(error, field);
    if (!p) return;
    lastValid_ = *p;
    emit paramsEdited();
}

void GuardPanel::showValidity(const QString& error, QWidget* field) {
    for (QWidget* w : std::initializer_list<QWidget*>{waitFree_, killFree_, swapBudget_, swapLimit_,
                                                      quietFor_, startTimeout_, poll_, busy_}) {
        const bool bad = w == field;
        if (w->property("invalid").toBool() == bad) continue;
        w->setProperty("invalid", bad);
        w->setStyleSheet(bad ? QLatin1String(kInvalidStyle) : QString());
    }
    error_->setText(error);
    error_->setVisible(!error.isEmpty());
}

void GuardPanel::showState(GuardState state, const QString& reason, double secondsInState) {
    idle_ = false;
    const auto with = [&](const QString& head) {
        return reason.isEmpty() ? head : head + QStringLiteral(" — ") + reason;
    };
    switch (state) {
        case GuardState::Waiting:
            setStateLine(with(tr("Waiting %1").arg(waitedText(secondsInState))), kWaiting);
            return;
        case GuardState::Running:
            setStateLine(with(tr("Running")), kRunning);
            return;
        case GuardState::Stopped:
            setStateLine(with(tr("Stopped by the guard")), kStopped);
            return;
        case GuardState::GaveUp:
            setStateLine(with(tr("No room in time")), kStopped);
            return;
    }
}

void GuardPanel::showIdle() {
    idle_ = true;
    setStateLine(guardEnabled() ? tr("Idle") : tr("Idle — guard off"), kIdle);
}

QString GuardPanel::stateText() const {
    return state_->text();
}

QString GuardPanel::swapUseText(qint64 growth, qint64 budget) {
    return tr("swap %1%2 of %3 budget")
        .arg(growth < 0 ? QStringLiteral("-") : QStringLiteral("+"),
             QString::fromStdString(formatBytes(growth < 0 ? -growth : growth)),
             QString::fromStdString(formatBytes(budget)));
}

void GuardPanel::setStateLine(const QString& text, const QColor& color) {
    stateColor_ = color;
    state_->setText(text);
    state_->setStyleSheet(QStringLiteral("QLabel { border-left: 6px solid %1; padding: 4px 6px; "
                                         "background: %2; }")
                              .arg(color.name(), color.lighter(185).name()));
}

}  // namespace stageload::studio
