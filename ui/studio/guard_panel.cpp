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
#include <QPushButton>
#include <QVBoxLayout>
#include <QVariant>

#include "guard/base/error.h"
#include "guard/base/units.h"
#include "guard/memory/pressure.h"
#include "guard/policy/guard_options.h"
#include "ui/chart/display_units.h"
#include "ui/studio/wheel_guard.h"

namespace stageload::studio {
namespace {

const QColor kIdle(0x9e, 0x9e, 0x9e);
const QColor kWaiting(0xf0, 0xa0, 0x00);
const QColor kRunning(0x2e, 0x7d, 0x32);
const QColor kStopped(0xc6, 0x28, 0x28);

const char* const kInvalidStyle = "border: 1px solid #c62828;";

/// "12 s" under a minute, then "1m05s".
QString waitedText(double seconds) {
    const double s = std::floor(std::max(0.0, seconds));
    if (s < 60.0) return QString::number(static_cast<int>(s)) + QStringLiteral(" s");
    return QString::fromStdString(formatDuration(s));
}

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// The form's widget for one threshold: a spin box for percentages, a text field for sizes and
// durations, a multi-line field for the busy patterns. `havePressure`: the machine reports
// memory pressure (else the pressure thresholds' tooltips say they cannot work here).
QWidget* makeField(const GuardOption& o, bool havePressure) {
    QWidget* w = nullptr;
    switch (o.kind) {
        case GuardValueKind::Percent: {
            auto* box = new QDoubleSpinBox;
            box->setRange(0.0, 100.0);
            box->setDecimals(2);
            box->setSingleStep(5.0);
            box->setSuffix(QStringLiteral(" %"));
            w = box;
            break;
        }
        case GuardValueKind::Patterns: {
            auto* edit = new QPlainTextEdit;
            edit->setPlaceholderText(text(o.placeholder));
            edit->setTabChangesFocus(true);
            w = edit;
            break;
        }
        default: {
            auto* edit = new QLineEdit;
            edit->setPlaceholderText(text(o.placeholder));
            w = edit;
        }
    }
    const std::string value = guardValueText(GuardParams{}, o);
    w->setObjectName(text(o.key));
    w->setToolTip(text(o.panelHelp) +
                  (value.empty() ? QString() : GuardPanel::tr(" (default %1)").arg(text(value))) +
                  GuardPanel::tr("\nOn the command line: %1").arg(text(o.flag)) +
                  (o.needsPressure && !havePressure
                       ? GuardPanel::tr("\nIt cannot work here: %1.").arg(QString::fromUtf8(kNoPressureText))
                       : QString()));
    return w;
}

QString fieldText(const QWidget* w) {
    if (auto* box = qobject_cast<const QDoubleSpinBox*>(w)) return QString::number(box->value(), 'g', 15);
    if (auto* edit = qobject_cast<const QLineEdit*>(w)) return edit->text();
    if (auto* edit = qobject_cast<const QPlainTextEdit*>(w)) return edit->toPlainText();
    return {};
}

void setFieldText(QWidget* w, const QString& value) {
    if (auto* box = qobject_cast<QDoubleSpinBox*>(w)) box->setValue(value.toDouble());
    if (auto* edit = qobject_cast<QLineEdit*>(w)) edit->setText(value);
    if (auto* edit = qobject_cast<QPlainTextEdit*>(w)) edit->setPlainText(value);
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

    error_ = new QLabel;
    error_->setObjectName(QStringLiteral("guardError"));
    error_->setWordWrap(true);
    error_->setStyleSheet(QStringLiteral("color: #c62828;"));
    error_->hide();

    auto* form = new QFormLayout;
    const bool havePressure = readMemoryPressure().has_value();
    for (const auto& o : guardOptions()) {
        if (!o.inPanel) continue;
        QWidget* w = makeField(o, havePressure);
        fields_.push_back({&o, w});
        form->addRow(text(o.label), w);
        if (auto* box = qobject_cast<QDoubleSpinBox*>(w))
            connect(box, &QDoubleSpinBox::valueChanged, this, [this] { onEdited(); });
        if (auto* edit = qobject_cast<QLineEdit*>(w))
            connect(edit, &QLineEdit::textChanged, this, [this] { onEdited(); });
        if (auto* edit = qobject_cast<QPlainTextEdit*>(w))
            connect(edit, &QPlainTextEdit::textChanged, this, [this] { onEdited(); });
    }

    restore_ = new QPushButton(tr("Restore Defaults"));
    restore_->setObjectName(QStringLiteral("restoreDefaults"));
    restore_->setToolTip(tr("Every threshold back to its default (the guard stays on or off)"));
    connect(restore_, &QPushButton::clicked, this, &GuardPanel::restoreDefaults);

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(state_);
    layout->addWidget(enabled_);
    layout->addLayout(form);
    layout->addWidget(error_);
    layout->addWidget(restore_, 0, Qt::AlignRight);
    layout->addStretch(1);

    connect(enabled_, &QCheckBox::toggled, this, [this] {
        if (loading_) return;
        if (idle_) showIdle();
        emit paramsEdited();
    });

    setParams(GuardParams{}, true);
    showIdle();
    guardWheel(this);
}

void GuardPanel::setParams(const GuardParams& params, bool enabled) {
    loading_ = true;
    base_ = params;
    enabled_->setChecked(enabled);
    for (const auto& [option, w] : fields_)
        setFieldText(w, QString::fromStdString(guardValueText(params, *option)));
    loading_ = false;

    QString error;
    QWidget* field = nullptr;
    if (const auto p = parse(&error, &field)) lastValid_ = *p;
    showValidity(error, field);
    if (idle_) showIdle();
}

void GuardPanel::restoreDefaults() {
    GuardParams defaults;
    // What the panel does not show (stop grace, the trace) stays as it was given.
    for (const auto& [option, w] : fields_) setGuardValue(base_, *option, guardValueText(defaults, *option));
    setParams(base_, guardEnabled());
    emit paramsEdited();
}

std::optional<GuardParams> GuardPanel::params(QString* error) const {
    QWidget* field = nullptr;
    return parse(error, &field);
}

std::optional<GuardParams> GuardPanel::parse(QString* error, QWidget** field) const {
    const auto fail = [&](const SettingError& e) -> std::optional<GuardParams> {
        const auto* hit = fieldOf(e.field());
        if (error)
            *error = (hit ? text(hit->first->label) : tr("Guard")) + QStringLiteral(": ") +
                     QString::fromStdString(e.problem());
        *field = hit ? hit->second : nullptr;
        return std::nullopt;
    };
    GuardParams p = base_;
    try {
        for (const auto& [option, w] : fields_) setGuardValue(p, *option, fieldText(w).toStdString());
        validate(p);
    } catch (const SettingError& e) {
        return fail(e);
    }
    return p;
}

const std::pair<const GuardOption*, QWidget*>* GuardPanel::fieldOf(const std::string& key) const {
    for (const auto& f : fields_)
        if (f.first->key == key) return &f;
    return nullptr;
}

bool GuardPanel::guardEnabled() const {
    return enabled_->isChecked();
}

QString GuardPanel::errorText() const {
    return error_->isHidden() || warning_ ? QString() : error_->text();
}

QString GuardPanel::warningText() const {
    return warning_ ? error_->text() : QString();
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
    for (const auto& [option, w] : fields_) {
        const bool bad = w == field;
        if (w->property("invalid").toBool() == bad) continue;
        w->setProperty("invalid", bad);
        w->setStyleSheet(bad ? QLatin1String(kInvalidStyle) : QString());
    }
    // A valid form can still be a likely mistake: said in amber, without refusing it.
    QString warning;
    QWidget* none = nullptr;
    if (error.isEmpty())
        if (const auto p = parse(nullptr, &none)) warning = QString::fromStdString(guardWarning(*p));
    warning_ = !warning.isEmpty();
    error_->setText(error.isEmpty() ? warning : error);
    error_->setStyleSheet(error.isEmpty() ? QStringLiteral("color: #b26a00;") : QStringLiteral("color: #c62828;"));
    error_->setVisible(!error_->text().isEmpty());
}

void GuardPanel::showState(GuardState state, const QString& reason, double secondsInState) {
    idle_ = false;
    const QString words = QString::fromStdString(guardReasonInWords(reason.toStdString()));
    const auto with = [&](const QString& head) {
        return words.isEmpty() ? head : head + QStringLiteral(" — ") + words;
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
             chart::sizeText(growth < 0 ? -growth : growth), chart::sizeText(budget));
}

void GuardPanel::setStateLine(const QString& text, const QColor& color) {
    stateColor_ = color;
    state_->setText(text);
    state_->setStyleSheet(QStringLiteral("QLabel { border-left: 6px solid %1; padding: 4px 6px; "
                                         "background: %2; }")
                              .arg(color.name(), color.lighter(185).name()));
}

}  // namespace stageload::studio
