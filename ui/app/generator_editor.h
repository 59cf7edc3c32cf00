#pragma once
// The generator editor: every key of a generator file as a form (name, command one argument per
// line, folder, format, trace, stage and progress patterns, environment, parameters), a Check
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
#include <optional>

#include "guard/generator/generator_def.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;

namespace stageload::studio {

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

    QLineEdit* name_;
    QPlainTextEdit* command_;
    QLineEdit* workdir_;
    QComboBox* format_;
    QLineEdit* trace_;
    QLineEdit* stagePattern_;
    QLineEdit* progressPattern_;
    QPlainTextEdit* env_;
    QPlainTextEdit* params_;
    QLabel* result_;
    QString description_;
    std::filesystem::path source_;
    QString picture_;
};

}  // namespace stageload::studio
