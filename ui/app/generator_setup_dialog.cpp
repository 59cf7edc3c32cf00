#include "ui/app/generator_setup_dialog.h"

#include <QDialogButtonBox>
#include <QLabel>
#include <QVBoxLayout>

#include "guard/generator/requirements.h"
#include "ui/app/generator_params_form.h"
#include "ui/studio/run_launcher.h"

namespace stageload::app {

GeneratorSetupDialog::GeneratorSetupDialog(GeneratorDef def, const QMap<QString, QString>& values, QWidget* parent)
    : QDialog(parent), def_(std::move(def)), saved_(values), form_(new GeneratorParamsForm(this)),
      status_(new QLabel(this)) {
    setWindowTitle(tr("Set up %1").arg(QString::fromStdString(def_.name)));
    setObjectName(QStringLiteral("generatorSetup"));
    auto* layout = new QVBoxLayout(this);
    auto* intro = new QLabel(tr("Where %1 lives on this machine. The paths are kept in your settings.")
                                 .arg(QString::fromStdString(def_.name)),
                             this);
    intro->setWordWrap(true);
    layout->addWidget(intro);
    QStringList shown;
    for (const auto& [name, kind] : setupParams(def_)) shown << QString::fromStdString(name);
    // A definition without "requires" has nothing to set up here: no field ({""} matches none).
    form_->setGenerator(def_, saved_, shown.isEmpty() ? QStringList{QString()} : shown);
    layout->addWidget(form_);
    status_->setObjectName(QStringLiteral("setupStatus"));
    status_->setWordWrap(true);
    status_->setTextInteractionFlags(Qt::TextSelectableByMouse);
    layout->addWidget(status_);
    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Cancel, this);
    connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    layout->addWidget(buttons);
    connect(form_, &GeneratorParamsForm::edited, this, &GeneratorSetupDialog::recheck);
    recheck();
    resize(560, sizeHint().height());
}

QMap<QString, QString> GeneratorSetupDialog::values() const {
    QMap<QString, QString> out = saved_;
    // The form's fields replace the saved ones (a field back at its default is no longer saved).
    for (const auto& [name, kind] : setupParams(def_)) out.remove(QString::fromStdString(name));
    const auto typed = form_->values();
    for (auto it = typed.begin(); it != typed.end(); ++it) out.insert(it.key(), it.value());
    return out;
}

QStringList GeneratorSetupDialog::missing() const {
    return studio::missingSetup(def_, values());
}

void GeneratorSetupDialog::recheck() {
    const QStringList gone = missing();
    status_->setText(gone.isEmpty() ? tr("✓ Set up: everything it needs is there.")
                                    : tr("Still missing:\n%1").arg(gone.join(QLatin1Char('\n'))));
    status_->setStyleSheet(gone.isEmpty() ? QStringLiteral("color: #2e7d32;") : QStringLiteral("color: #b71c1c;"));
}

}  // namespace stageload::app
