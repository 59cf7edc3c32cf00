#pragma once
// The generator editor: a generator file as a form, one field per key that generatorKeys() gives
// a field (name, description, command one argument per line, folder, format, trace, result,
// stage and progress patterns, environment, parameters; the keys without one, such as
// "requires", "stage_patterns" and "stage_weights", and each param's choices and help, are kept
// as the file has them), a Check
// button that validates the form exactly as a file is validated on load and shows the command
// line it would run, and Save, which writes the file into the user's generators folder (a
// shipped generator is saved there as a copy; the shipped file is never changed).
//
//   GeneratorEditor editor(this);
//   editor.setDefinition(catalog.generators[0]);   // or nothing: a new one
//   editor.setPicture("hero.png");                 // for the preview's {input}
//   connect(&editor, &GeneratorEditor::saved, this, [](const QString& file) { ... });
//   editor.exec();
//
// GUI thread only; nothing throws.

#include <QDialog>
#include <QJsonObject>
#include <optional>
#include <vector>

#include "guard/generator/generator_def.h"

class QLabel;

namespace stageload::app {

class GeneratorEditor : public QDialog {
    Q_OBJECT

public:
    explicit GeneratorEditor(QWidget* parent = nullptr);

    void setDefinition(const GeneratorDef& def);
    void setPicture(const QString& path) { picture_ = path; }

    /// The form as a definition, checked as a file would be; nullopt with the message shown
    /// (and in `error`) when it is refused.
    std::optional<GeneratorDef> check(QString* error = nullptr);
    /// The command line the last valid check would run (example values for the run's files).
    QString preview() const;
    /// Checks, then writes the file; its path, or "" when refused or not written.
    QString save();

signals:
    void saved(const QString& file);

private:
    QString definitionJson() const;
    /// What the "name" field says.
    QString nameText() const;

    /// One field of the form: the key it edits (generatorKeys()) and its widget.
    struct Field {
        GeneratorKey key;
        QWidget* widget;
    };
    std::vector<Field> fields_;
    QLabel* result_;
    QJsonObject original_;  ///< the definition as loaded: what the form does not show is kept
    std::filesystem::path source_;
    QString picture_;
};

}  // namespace stageload::app
