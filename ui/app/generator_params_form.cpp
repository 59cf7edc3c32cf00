#include "ui/app/generator_params_form.h"

#include <QComboBox>
#include <QDir>
#include <QFileDialog>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLineEdit>
#include <QToolButton>

#include "guard/generator/requirements.h"
#include "ui/studio/wheel_guard.h"

namespace stageload::app {
namespace {

QString q(const std::string& s) {
    return QString::fromStdString(s);
}

// "~/x" as the dialogs want it, and back as the definition writes it.
QString expandedHome(const QString& path) {
    return path.startsWith(QLatin1String("~/")) ? QDir::homePath() + path.mid(1) : path;
}
QString withHome(const QString& path) {
    const QString home = QDir::homePath() + QLatin1Char('/');
    return path.startsWith(home) ? QStringLiteral("~/") + path.mid(home.size()) : path;
}

}  // namespace

GeneratorParamsForm::GeneratorParamsForm(QWidget* parent) : QWidget(parent), form_(new QFormLayout(this)) {
    form_->setContentsMargins(0, 0, 0, 0);
}

void GeneratorParamsForm::clear() {
    while (form_->rowCount() > 0) form_->removeRow(0);
    fields_.clear();
    params_.clear();
}

void GeneratorParamsForm::setGenerator(const GeneratorDef& def, const QMap<QString, QString>& values,
                                       const QStringList& only, const QStringList& skip) {
    clear();
    std::map<std::string, Requirement::Kind> kinds;
    for (const auto& [name, kind] : setupParams(def)) kinds[name] = kind;
    for (const auto& p : def.params) {
        const QString name = q(p.name);
        if ((!only.isEmpty() && !only.contains(name)) || skip.contains(name)) continue;
        const QString value = values.value(name, q(p.value));
        QWidget* field = nullptr;
        if (!p.choices.empty()) {
            auto* box = new QComboBox(this);
            for (const auto& c : p.choices) box->addItem(c.empty() ? tr("(off)") : q(c), q(c));
            box->setCurrentIndex(std::max(0, box->findData(value)));
            connect(box, &QComboBox::currentIndexChanged, this, &GeneratorParamsForm::edited);
            field = box;
            form_->addRow(name, box);
        } else {
            auto* line = new QLineEdit(value, this);
            connect(line, &QLineEdit::editingFinished, this, &GeneratorParamsForm::edited);
            field = line;
            const auto kind = kinds.find(p.name);
            if (kind == kinds.end()) {
                form_->addRow(name, line);
            } else {
                auto* browse = new QToolButton(this);
                browse->setText(tr("Browse…"));
                browse->setObjectName(QStringLiteral("browse_") + name);
                const bool folder = kind->second == Requirement::Kind::Folder;
                browse->setToolTip(folder ? tr("Pick the folder") : tr("Pick the file"));
                connect(browse, &QToolButton::clicked, this, [this, line, folder, name] {
                    const QString start = expandedHome(line->text());
                    const QString picked =
                        folder ? QFileDialog::getExistingDirectory(this, name, start)
                               : QFileDialog::getOpenFileName(this, name, QFileInfo(start).absolutePath());
                    if (picked.isEmpty()) return;
                    line->setText(withHome(picked));
                    emit edited();
                });
                auto* row = new QHBoxLayout;
                row->addWidget(line, 1);
                row->addWidget(browse);
                form_->addRow(name, row);
            }
        }
        field->setObjectName(QStringLiteral("param_") + name);
        field->setToolTip(p.help.empty() ? tr("{%1} in its command").arg(name) : q(p.help));
        fields_[name] = field;
        params_.push_back(p);
    }
    studio::guardWheel(this);  // the wheel scrolls the panel, not a choice it passes over
}

QMap<QString, QString> GeneratorParamsForm::values() const {
    QMap<QString, QString> out;
    for (const auto& p : params_) {
        const QWidget* w = fields_.at(q(p.name));
        QString value;
        if (auto* box = qobject_cast<const QComboBox*>(w)) value = box->currentData().toString();
        else if (auto* line = qobject_cast<const QLineEdit*>(w)) value = line->text().trimmed();
        if (value != q(p.value)) out.insert(q(p.name), value);
    }
    return out;
}

QWidget* GeneratorParamsForm::field(const QString& name) const {
    const auto it = fields_.find(name);
    return it == fields_.end() ? nullptr : it->second;
}

}  // namespace stageload::app
