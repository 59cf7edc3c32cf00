#pragma once
// The guard panel: every threshold of the guard, editable, and the guard's live
// state always visible at the top.
//
//   auto* panel = new stageload::studio::GuardPanel(this);
//   panel->setParams(settings.guard, settings.guardEnabled);
//   connect(panel, &GuardPanel::paramsEdited, this, [=] {
//       settings.guard = panel->lastValidParams();       // the form is valid here
//       settings.guardEnabled = panel->guardEnabled();
//   });
//   panel->showState(policy.state(), reason, t - policy.since());  // "Waiting 12 s — ..."
//   panel->showIdle();                                             // after the run
//
// Sizes are typed as "8G" / "512M" (swap limit: empty = unset), durations as "30m" / "90s" /
// "250ms", busy patterns one POSIX extended regex per line (blank lines are skipped, each line is
// trimmed). Invalid input is shown as the user types: a red message under the form names the
// field, the field is outlined in red (and has the dynamic property "invalid" = true); the last
// valid params stay in use (lastValidParams()). Fields not in the panel (stop grace, trace path
// and interval) keep the values given to setParams().
// The form is built from the guard's option table (guard/policy/guard_options.h): each field's
// label, tooltip and objectName (the option's key) come from there, and a bad value is found by
// the SettingError's field(), never by its message.
// Nothing throws. GUI thread only, like every widget.

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <QColor>
#include <QString>
#include <QWidget>

#include "guard/policy/guard_options.h"
#include "guard/policy/guard_params.h"
#include "guard/policy/guard_policy.h"

class QCheckBox;
class QLabel;
class QPushButton;

namespace stageload::studio {

class GuardPanel : public QWidget {
    Q_OBJECT

public:
    explicit GuardPanel(QWidget* parent = nullptr);

    /// Fills the form (emits nothing). Invalid `params` are shown with their error and do not
    /// replace lastValidParams().
    void setParams(const stageload::GuardParams& params, bool enabled);
    /// The form's params, parsed and validated; nullopt with `error` naming the field
    /// ("Swap budget: not a size: '8X' ...") when the form is invalid.
    std::optional<stageload::GuardParams> params(QString* error = nullptr) const;
    /// The params of the last valid form (from setParams() or an edit).
    const stageload::GuardParams& lastValidParams() const { return lastValid_; }
    bool guardEnabled() const;
    /// The message under the form; empty when the form is valid.
    QString errorText() const;
    /// The warning under a valid form that is likely a mistake (guardWarning()); empty if none.
    QString warningText() const;
    /// Every threshold in the form back to GuardParams' defaults; emits paramsEdited().
    void restoreDefaults();

    /// The live state line: "Waiting 12 s — available 32.0% < 40.0% (Start when free)", "Running
    /// — swap +0.20 GiB of 8.00 GiB budget", "Stopped by the guard — swap used ...", "No room in
    /// time — ...", coloured amber, green, red, red. `reason` is the policy's (with its flags),
    /// shown in the panel's words (guardReasonInWords()).
    void showState(stageload::GuardState state, const QString& reason, double secondsInState);
    /// "Idle" (grey), or "Idle — guard off" while the guard is disabled.
    void showIdle();
    QString stateText() const;
    QColor stateColor() const { return stateColor_; }

    /// A running reason: "swap +0.20 GiB of 8.00 GiB budget".
    static QString swapUseText(qint64 growth, qint64 budget);

signals:
    /// The user changed the form and it is valid (or toggled the guard on or off).
    void paramsEdited();

private:
    std::optional<stageload::GuardParams> parse(QString* error, QWidget** field) const;
    const std::pair<const stageload::GuardOption*, QWidget*>* fieldOf(const std::string& key) const;
    void onEdited();
    void showValidity(const QString& error, QWidget* field);
    void setStateLine(const QString& text, const QColor& color);

    QLabel* state_ = nullptr;
    QCheckBox* enabled_ = nullptr;
    /// One widget per row of guardOptions() the panel shows; its objectName is the row's key.
    std::vector<std::pair<const stageload::GuardOption*, QWidget*>> fields_;
    QLabel* error_ = nullptr;
    QPushButton* restore_ = nullptr;
    bool warning_ = false;  ///< error_ shows a warning, not an error

    stageload::GuardParams base_;       ///< what setParams() gave (fields not in the form)
    stageload::GuardParams lastValid_;  ///< the last valid form
    QColor stateColor_;
    bool idle_ = true;
    bool loading_ = false;
};

}  // namespace stageload::studio
