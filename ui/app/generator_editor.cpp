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

namespace stageload::studio {
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

QString keyValueText(const std::vector<std::pair<std::string, std::string>>& kv) {
    QStringList out;
    for (const auto& [k, v] : kv) out << q(k) + QLatin1Char('=') + q(v);
    return out.join(QLatin1Char('\n'));
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
    const auto line = [this](const char* name, const QString& placeholder) {
        auto* e = new QLineEdit(this);
        e->setObjectName(QLatin1String(name));
        e->setPlaceholderText(placeholder);
        return e;
    };
    const auto text = [this](const char* name, const QString& placeholder) {
        auto* e = new QPlainTextEdit(this);
        e->setObjectName(QLatin1String(name));
        e->setPlaceholderText(placeholder);
        e->setTabChangesFocus(true);
        return e;
    };
    name_ = line("name", tr("e.g. Pixal3D (stageload)"));
    command_ = text("command", tr("one argument per line, e.g.\npython3\nrun.py\n--image\n{input}\n--out\n{output}"));
    workdir_ = line("workdir", tr("the folder it runs in, e.g. ~/src/pixal3d (empty: the run's folder)"));
    format_ = new QComboBox(this);
    format_->setObjectName(QStringLiteral("format"));
    format_->addItems({QStringLiteral("glb"), QStringLiteral("obj")});
    trace_ = line("trace", tr("{trace} when it writes a stageload trace there; else empty"));
    stagePattern_ = line("stagePattern", tr("e.g. ^\\[stage\\] (\\w+)  (group 1: the stage)"));
    progressPattern_ = line("progressPattern", tr("e.g. (\\d+)%\\|  (group 1: percent)"));
    env_ = text("env", tr("KEY=VALUE per line, e.g. PYTORCH_ENABLE_MPS_FALLBACK=1"));
    params_ = text("params", tr("your own placeholders, NAME=default per line, e.g. steps=25"));
    for (auto* e : {env_, params_}) e->setMaximumHeight(70);
    result_ = new QLabel(this);
    result_->setObjectName(QStringLiteral("checkResult"));
    result_->setWordWrap(true);
    result_->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* form = new QFormLayout;
    form->addRow(tr("Name"), name_);
    form->addRow(tr("Command"), command_);
    form->addRow(tr("Folder"), workdir_);
    form->addRow(tr("Mesh format"), format_);
    form->addRow(tr("Trace"), trace_);
    form->addRow(tr("Stage pattern"), stagePattern_);
    form->addRow(tr("Progress pattern"), progressPattern_);
    form->addRow(tr("Environment"), env_);
    form->addRow(tr("Parameters"), params_);

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
    name_->setText(q(d.name));
    QStringList args;
    for (const auto& a : d.command) args << q(a);
    command_->setPlainText(args.join(QLatin1Char('\n')));
    workdir_->setText(q(d.workdir));
    format_->setCurrentText(q(d.format));
    trace_->setText(q(d.trace));
    stagePattern_->setText(q(d.stagePattern));
    progressPattern_->setText(q(d.progressPattern));
    env_->setPlainText(keyValueText(d.env));
    params_->setPlainText(keyValueText(d.params));
    description_ = q(d.description);
    source_ = d.source;
    result_->clear();
}

QString GeneratorEditor::definitionJson() const {
    // Each arg is one line, kept as typed (an argument may be " " on purpose: not trimmed).
    QJsonArray command;
    for (const QString& a : command_->toPlainText().split(QLatin1Char('\n')))
        if (!a.isEmpty()) command.append(a);
    QJsonObject j{{"name", name_->text().trimmed()}, {"command", command}, {"format", format_->currentText()}};
    const auto optional = [&](const char* key, const QString& value) {
        if (!value.trimmed().isEmpty()) j.insert(QLatin1String(key), value.trimmed());
    };
    optional("description", description_);
    optional("workdir", workdir_->text());
    optional("trace", trace_->text());
    optional("stage_pattern", stagePattern_->text());
    optional("progress_pattern", progressPattern_->text());
    if (!lines(env_).isEmpty()) j.insert(QStringLiteral("env"), keyValues(env_));
    if (!lines(params_).isEmpty()) j.insert(QStringLiteral("params"), keyValues(params_));
    return QString::fromUtf8(QJsonDocument(j).toJson());
}

std::optional<GeneratorDef> GeneratorEditor::check(QString* error) {
    const std::filesystem::path source =
        source_.empty() ? std::filesystem::path(fileNameFor(name_->text()).toStdString()) : source_;
    try {
        GeneratorDef d = parseGeneratorDef(definitionJson().toStdString(), source);
        GeneratorValues v;
        v.input = picture_.isEmpty() ? std::string("hero.png") : picture_.toStdString();
        v.runDir = "<run>";
        v.output = "<run>/mesh." + d.format;
        v.trace = "<run>/command.trace.jsonl";
        v.stageload = "stageload";
        const auto cmd = expandGenerator(d, v);
        result_->setStyleSheet(QStringLiteral("color: #2e7d32;"));
        result_->setText(tr("Valid. It would run%1:\n%2")
                             .arg(cmd.workdir.empty() ? QString() : tr(" in %1").arg(q(cmd.workdir)),
                                  q(shellCommandLine(cmd.argv))));
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
    const QString file = own ? q(source_.string()) : QDir(dir).filePath(fileNameFor(name_->text()));
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

}  // namespace stageload::studio
