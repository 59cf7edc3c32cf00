#pragma once
// Preferences (File ▸ Preferences…): how the app shows what it measures. Today one choice: the
// unit family of sizes, GiB/MiB (binary, as the kernel counts) or GB/MB (decimal, as macOS and
// disk makers write them). Typed sizes keep their meaning either way ("8G" is 8 GiB).
//
//   stageload::app::PreferencesDialog dialog(settings.units, this);
//   if (dialog.exec() == QDialog::Accepted) applyUnits(dialog.units());
//
// GUI thread only.

#include <QDialog>

#include "guard/base/units.h"

class QRadioButton;

namespace stageload::app {

class PreferencesDialog : public QDialog {
    Q_OBJECT
public:
    explicit PreferencesDialog(ByteUnits units, QWidget* parent = nullptr);

    /// The family chosen in the dialog.
    ByteUnits units() const;
    /// For tests: choose a family as a click would.
    void setUnits(ByteUnits units);

private:
    QRadioButton* binary_ = nullptr;
    QRadioButton* decimal_ = nullptr;
};

}  // namespace stageload::app
