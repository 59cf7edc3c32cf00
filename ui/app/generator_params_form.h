#pragma once
// A generator's params as fields of a form: a combo box for a param with choices, a line with a
// Browse… button for one that says where the tool lives (a folder, a program or a file, as its
// definition's "requires" say), a plain line for the rest; each param's help is its tooltip.
// The settings panel shows the chosen generator's params with it, the Set up dialog the ones
// that say where the tool lives.
//
//   auto* form = new GeneratorParamsForm(this);
//   form->setGenerator(def, saved, {}, {"load"});   // every param but "load"
//   connect(form, &GeneratorParamsForm::edited, ...);
//   QMap<QString, QString> changed = form->values();  // those that differ from the defaults
//
// GUI thread only.

#include <QMap>
#include <QString>
#include <QStringList>
#include <QWidget>
#include <map>

#include "guard/generator/generator_def.h"

class QFormLayout;

namespace stageload::app {

class GeneratorParamsForm : public QWidget {
    Q_OBJECT

public:
    explicit GeneratorParamsForm(QWidget* parent = nullptr);

    /// Shows `def`'s params, each filled from `values` (else its default): only those named in
    /// `only` when it is not empty, never those in `skip`. Replaces what was shown.
    void setGenerator(const GeneratorDef& def, const QMap<QString, QString>& values,
                      const QStringList& only = {}, const QStringList& skip = {});
    void clear();
    /// The values shown that differ from their defaults (the ones worth saving).
    QMap<QString, QString> values() const;
    /// The field of a param (its objectName is "param_" + the name), or null.
    QWidget* field(const QString& name) const;
    bool isEmpty() const { return fields_.empty(); }

signals:
    void edited();

private:
    QFormLayout* form_;
    std::vector<GeneratorParam> params_;
    std::map<QString, QWidget*> fields_;
};

}  // namespace stageload::app
