#include "ui/app/preferences_dialog.h"

#include <QDialogButtonBox>
#include <QGroupBox>
#include <QLabel>
#include <QRadioButton>
#include <QVBoxLayout>

namespace stageload::app {

PreferencesDialog::PreferencesDialog(ByteUnits units, QWidget* parent) : QDialog(parent) {
    setObjectName(QStringLiteral("preferences"));
    setWindowTitle(tr("Preferences"));
    auto* sizes = new QGroupBox(tr("Show sizes in"), this);
    binary_ = new QRadioButton(tr("GiB and MiB (1 GiB = 2^30 bytes, as Linux and the guard count)"), sizes);
    decimal_ = new QRadioButton(tr("GB and MB (1 GB = 10^9 bytes, as macOS and disk makers write them)"), sizes);
    binary_->setObjectName(QStringLiteral("unitsBinary"));
    decimal_->setObjectName(QStringLiteral("unitsDecimal"));
    auto* note = new QLabel(tr("The chart, the peak table, History, the forecast and the guard panel follow "
                               "this choice; a stop reason keeps the words its trace recorded. A size "
                               "you type keeps its meaning: 8G is 8 GiB."),
                            sizes);
    note->setWordWrap(true);
    note->setForegroundRole(QPalette::PlaceholderText);
    auto* sizesLayout = new QVBoxLayout(sizes);
    sizesLayout->addWidget(binary_);
    sizesLayout->addWidget(decimal_);
    sizesLayout->addWidget(note);
    setUnits(units);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    auto* layout = new QVBoxLayout(this);
    layout->addWidget(sizes);
    layout->addStretch();
    layout->addWidget(buttons);
}

ByteUnits PreferencesDialog::units() const {
    return decimal_->isChecked() ? ByteUnits::Decimal : ByteUnits::Binary;
}

void PreferencesDialog::setUnits(ByteUnits units) {
    (units == ByteUnits::Decimal ? decimal_ : binary_)->setChecked(true);
}

}  // namespace stageload::app
