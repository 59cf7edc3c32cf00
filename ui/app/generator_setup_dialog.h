#pragma once
// "Set up" for a generator: the params that say where its tool lives (its checkout, program,
// weights folder: those its definition's "requires" name), each with a Browse… button, and a
// line that says, as the user types, what is still missing or that everything is there.
//
//   GeneratorSetupDialog dialog(def, settings.generatorParams.value(key), this);
//   if (dialog.exec() == QDialog::Accepted) settings.generatorParams[key] = dialog.values();
//
// GUI thread only.

#include <QDialog>
#include <QMap>

#include "guard/generator/generator_def.h"

class QLabel;

namespace stageload::app {

class GeneratorParamsForm;

class GeneratorSetupDialog : public QDialog {
    Q_OBJECT

public:
    /// `values`: the generator's saved params (all of them, not only the ones shown here).
    GeneratorSetupDialog(GeneratorDef def, const QMap<QString, QString>& values, QWidget* parent = nullptr);

    /// The saved params with the form's over them.
    QMap<QString, QString> values() const;
    /// What is missing now, one sentence each; empty when it is set up.
    QStringList missing() const;
    GeneratorParamsForm* form() const { return form_; }

private:
    void recheck();

    GeneratorDef def_;
    QMap<QString, QString> saved_;
    GeneratorParamsForm* form_;
    QLabel* status_;
};

}  // namespace stageload::app
