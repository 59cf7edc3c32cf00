#include "ui/app/generator_editor.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QFormLayout>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QVBoxLayout>

#include <string_view>

#include "engine/api/generator_job.h"
#include "engine/media/mesh_formats.h"
#include "guard/generator/requirements.h"

namespace stageload::app {
namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

QStringList lines(const QPlainTextEdit* edit) {
    QStringList out;
    for (const QString& line : edit->toPlainText().split(QLatin1Char('\n'))) {
        const QString t = line.trimmed();
        if (!t.isEmpty()) out << t;
    }
    return out;
}

// "KEY=VALUE" lines as a JSON object (a line without '=' becomes a key with an empty value,
// which the check then names).
QJsonObject keyValues(const QPlainTextEdit* edit) {
    QJsonObject out;
    for (const QString& line : lines(edit)) {
        const int eq = static_cast<int>(line.indexOf(QLatin1Char('=')));
        out.insert(eq < 0 ? line : line.left(eq).trimmed(), eq < 0 ? QString() : line.mid(eq + 1).trimmed());
    }
    return out;
}

// An object's members as KEY=VALUE lines; a member that is an object (a param with choices or
// help) shows its "default".
QString keyValueText(const QJsonObject& object) {
    QStringList out;
    for (auto it = object.begin(); it != object.end(); ++it) {
        const QJsonValue v = it.value().isObject() ? it.value().toObject().value(QStringLiteral("default")) : it.value();
        out << it.key() + QLatin1Char('=') + v.toString();
    }
    return out.join(QLatin1Char('\n'));
}

// The choices of a Choice field, by key.
QStringList choicesOf(const std::string& key) {
    QStringList out;
    if (key == "format")
        for (const auto& f : meshFormats()) out << QString::fromUtf8(f.word.data(), static_cast<qsizetype>(f.word.size()));
    return out;
}

// A file name from the generator's name: "Pixal3D (stageload)" -> "pixal3d-stageload.json".
QString fileNameFor(const QString& name) {
    QString slug;
    for (const QChar c : name.toLower()) {
        if (c.isLetterOrNumber() && c.unicode() < 128) slug += c;
        else if (!slug.endsWith(QLatin1Char('-'))) slug += QLatin1Char('-');
    }
    while (slug.endsWith(QLatin1Char('-'))) slug.chop(1);
    while (slug.startsWith(QLatin1Char('-'))) slug.remove(0, 1);
    return (slug.isEmpty() ? QStringLiteral("generator") : slug) + QStringLiteral(".json");
}

}  // namespace

GeneratorEditor::GeneratorEditor(QWidget* parent) : QDialog(parent) {
    setWindowTitle(tr("Generator"));
    auto* form = new QFormLayout;
    for (const GeneratorKey& key : generatorKeys()) {
        QWidget* widget = nullptr;
        const QString hint = QString::fromUtf8(key.hint);
        switch (key.field) {
            case KeyField::None: continue;  // kept as the file has it
            case KeyField::Line: {
                auto* e = new QLineEdit(this);
                e->setPlaceholderText(hint);
                widget = e;
                break;
            }
            case KeyField::Lines:
            case KeyField::KeyValues:
            case KeyField::ParamDefaults: {
                auto* e = new QPlainTextEdit(this);
                e->setPlaceholderText(hint);
                e->setTabChangesFocus(true);
                if (key.field != KeyField::Lines) e->setMaximumHeight(70);
                widget = e;
                break;
            }
            case KeyField::Choice: {
                auto* c = new QComboBox(this);
                c->addItems(choicesOf(key.name));
                widget = c;
                break;
            }
        }
        widget->setObjectName(QString::fromUtf8(key.name));
        form->addRow(tr(key.label), widget);
        fields_.push_back({key, widget});
    }
    result_ = new QLabel(this);
    result_->setObjectName(QStringLiteral("checkResult"));
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* buttons = new QDialogButtonBox(QDialogButtonBox::Save | QDialogButtonBox::Close, this);
    auto* checkButton = buttons->addButton(tr("Check"), QDialogButtonBox::ActionRole);
    checkButton->setObjectName(QStringLiteral("check"));
    connect(checkButton, &QPushButton::clicked, this, [this] { check(); });
    connect(buttons, &QDialogButtonBox::accepted, this, [this] {
        if (!save().isEmpty()) accept();
    });
    connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(form);
    layout->addWidget(result_);
    layout->addWidget(buttons);
    resize(640, 620);
}

void GeneratorEditor::setDefinition(const GeneratorDef& d) {
    original_ = QJsonDocument::fromJson(QByteArray::fromStdString(generatorDefJson(d))).object();
    for (const Field& f : fields_) {
        const QJsonValue v = original_.value(QString::fromUtf8(f.key.name));
        switch (f.key.field) {
            case KeyField::None: break;
            case KeyField::Line: static_cast<QLineEdit*>(f.widget)->setText(v.toString()); break;
            case KeyField::Lines: {
                QStringList items;
                for (const auto& item : v.toArray()) items << item.toString();
                static_cast<QPlainTextEdit*>(f.widget)->setPlainText(items.join(QLatin1Char('\n')));
                break;
            }
            case KeyField::KeyValues:
            case KeyField::ParamDefaults:
                static_cast<QPlainTextEdit*>(f.widget)->setPlainText(keyValueText(v.toObject()));
                break;
            case KeyField::Choice: static_cast<QComboBox*>(f.widget)->setCurrentText(v.toString()); break;
        }
    }
    source_ = d.source;
    result_->clear();
}

QString GeneratorEditor::definitionJson() const {
    // What the form shows replaces the original's keys; what it does not show stays as it was.
    QJsonObject j = original_;
    for (const Field& f : fields_) {
        const QString key = QString::fromUtf8(f.key.name);
        switch (f.key.field) {
            case KeyField::None: break;
            case KeyField::Line: {
                const QString value = static_cast<QLineEdit*>(f.widget)->text().trimmed();
                if (value.isEmpty()) j.remove(key);  // a required one is then named as missing
                else j.insert(key, value);
                break;
            }
            case KeyField::Lines: {
                // Each item is one line, kept as typed (an argument may be " " on purpose).
                QJsonArray items;
                for (const QString& a : static_cast<QPlainTextEdit*>(f.widget)->toPlainText().split(QLatin1Char('\n')))
                    if (!a.isEmpty()) items.append(a);
                j.insert(key, items);
                break;
            }
            case KeyField::KeyValues: {
                const auto* edit = static_cast<QPlainTextEdit*>(f.widget);
                j.remove(key);
                if (!lines(edit).isEmpty()) j.insert(key, keyValues(edit));
                break;
            }
            case KeyField::ParamDefaults: {
                // A param keeps its choices and help; its default is the form's.
                const QJsonObject before = j.value(key).toObject();
                QJsonObject params;
                const QJsonObject typed = keyValues(static_cast<QPlainTextEdit*>(f.widget));
                for (auto it = typed.begin(); it != typed.end(); ++it) {
                    QJsonValue value = it.value();
                    if (before.value(it.key()).isObject()) {
                        QJsonObject full = before.value(it.key()).toObject();
                        full.insert(QStringLiteral("default"), it.value());
                        value = full;
                    }
                    params.insert(it.key(), value);
                }
                j.remove(key);
                if (!params.isEmpty()) j.insert(key, params);
                break;
            }
            case KeyField::Choice: j.insert(key, static_cast<QComboBox*>(f.widget)->currentText()); break;
        }
    }
    return QString::fromUtf8(QJsonDocument(j).toJson());
}

QString GeneratorEditor::nameText() const {
    for (const Field& f : fields_)
        if (std::string_view(f.key.name) == "name") return static_cast<QLineEdit*>(f.widget)->text();
    return {};
}

std::optional<GeneratorDef> GeneratorEditor::check(QString* error) {
    const std::filesystem::path source =
        source_.empty() ? std::filesystem::path(fileNameFor(nameText()).toStdString()) : source_;
    try {
        GeneratorDef d = parseGeneratorDef(definitionJson().toStdString(), source);
        if (const auto problem = generatorMeshProblem(d); !problem.empty()) throw stageload::Error(problem);
        GeneratorValues v;
        v.input = picture_.isEmpty() ? std::string("hero.png") : picture_.toStdString();
        v.runDir = "<run>";
        v.output = "<run>/mesh." + d.format;
        v.trace = "<run>/command.trace.jsonl";
        v.stageload = "stageload";
        const auto cmd = expandGenerator(d, v);
        // Valid as a file; whether its program and folders are there with the defaults is said
        // too (a run would be refused until they are set up).
        QStringList missing;
        for (const auto& m : missingRequirements(d, v)) missing << q(m.message);
        if (d.command.front().find('{') == std::string::npos && !std::filesystem::path(cmd.argv.front()).has_parent_path() &&
            findInPath(cmd.argv.front()).empty())
            missing << tr("'%1' is not in PATH").arg(q(cmd.argv.front()));
        result_->setStyleSheet(missing.isEmpty() ? QStringLiteral("color: #2e7d32;") : QStringLiteral("color: #e65100;"));
        result_->setText(tr("Valid. It would run%1:\n%2")
                             .arg(cmd.workdir.empty() ? QString() : tr(" in %1").arg(q(cmd.workdir)),
                                  q(shellCommandLine(cmd.argv))) +
                         (missing.isEmpty() ? QString() : tr("\n\nNot set up here yet:\n%1").arg(missing.join(QLatin1Char('\n')))));
        return d;
    } catch (const stageload::Error& e) {
        result_->setStyleSheet(QStringLiteral("color: #c62828;"));
        result_->setText(q(e.what()));
        if (error) *error = q(e.what());
        return std::nullopt;
    }
}

QString GeneratorEditor::preview() const {
    return result_->text();
}

QString GeneratorEditor::save() {
    auto d = check();
    if (!d) return {};
    const auto dirs = generatorDirs({});
    if (dirs.empty()) {
        result_->setText(tr("No folder for your generators: set HOME or STAGELOAD_GENERATORS_DIR."));
        return {};
    }
    const QString dir = q(dirs.front().string());
    // Edits of a file of the user's own replace it; anything else (a shipped one) is a copy.
    const bool own = !source_.empty() && QFileInfo(q(source_.string())).absolutePath() == QDir(dir).absolutePath();
    const QString file = own ? q(source_.string()) : QDir(dir).filePath(fileNameFor(nameText()));
    try {
        QDir().mkpath(dir);
        writeGeneratorDef(*d, file.toStdString());
    } catch (const stageload::Error& e) {
        result_->setStyleSheet(QStringLiteral("color: #c62828;"));
        result_->setText(q(e.what()));
        return {};
    }
    source_ = file.toStdString();
    emit saved(file);
    return file;
}

}  // namespace stageload::app
