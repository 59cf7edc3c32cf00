#include "ui/app/settings_panel.h"

#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QRandomGenerator>
#include <QStandardItemModel>
#include <QThread>
#include <QToolButton>
#include <algorithm>
#include <cstring>

#include "engine/api/weights.h"

namespace stageload::studio {
namespace {

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

QComboBox* comboOf(const std::vector<std::pair<QString, QString>>& items) {
    auto* box = new QComboBox;
    for (const auto& [label, value] : items) box->addItem(label, value);
    return box;
}

// "Auto — U²-Netp, else ...": a choice as a menu shows it.
template <typename E>
QString choiceLabel(const Choice<E>& c) {
    QString label = text(c.name);
    label[0] = label[0].toUpper();
    return label + QStringLiteral(" — ") + text(c.help);
}

template <typename E>
QComboBox* choiceCombo() {
    std::vector<std::pair<QString, QString>> items;
    for (const auto& c : choices<E>()) items.emplace_back(choiceLabel(c), text(c.name));
    return comboOf(items);
}

// The widget's value as the settings table's text, and back.
QString valueText(const QWidget* w) {
    if (auto* box = qobject_cast<const QComboBox*>(w)) return box->currentData().toString();
    if (auto* spin = qobject_cast<const QSpinBox*>(w)) return QString::number(spin->value());
    if (auto* spin = qobject_cast<const QDoubleSpinBox*>(w))
        return QString::number(spin->value(), 'f', spin->decimals());
    return {};
}

void setValueText(QWidget* w, const QString& value) {
    if (auto* box = qobject_cast<QComboBox*>(w)) {
        // A value this build or machine lacks (a device saved elsewhere, a remover not
        // installed here) falls back to the first.
        const int index = box->findData(value);
        const auto* model = qobject_cast<const QStandardItemModel*>(box->model());
        const auto* item = model && index >= 0 ? model->item(index) : nullptr;
        box->setCurrentIndex(item && !item->isEnabled() ? 0 : std::max(0, index));
    } else if (auto* spin = qobject_cast<QSpinBox*>(w)) {
        spin->setValue(value.toInt());
    } else if (auto* spin = qobject_cast<QDoubleSpinBox*>(w)) {
        spin->setValue(value.toDouble());
    }
}

}  // namespace

QWidget* SettingsPanel::makeField(const RunFieldInfo& f, const QStringList& devices) {
    switch (f.field) {
        case RunField::Pipeline: {
            std::vector<std::pair<QString, QString>> items;
            for (auto p : kBuiltinPipelines) items.emplace_back(text(p), text(p));
            return comboOf(items);
        }
        case RunField::Load: return choiceCombo<LoadMode>();
        case RunField::Remover: return choiceCombo<RemoverChoice>();  // marked by updateRemovers()
        case RunField::TextureSize: {
            std::vector<std::pair<QString, QString>> items;
            for (int size : kTextureSizes)
                items.emplace_back(QStringLiteral("%1 × %1").arg(size), QString::number(size));
            return comboOf(items);
        }
        case RunField::Device: {
            std::vector<std::pair<QString, QString>> items;
            for (const auto& d : devices) items.emplace_back(d, d);
            return comboOf(items);
        }
        case RunField::Threads: {
            auto* spin = new QSpinBox;
            // More threads than twice the cores only slows a run down.
            spin->setRange(0, std::min(int(f.range.max), std::max(1, QThread::idealThreadCount()) * 2));
            spin->setSpecialValueText(tr("All cores"));
            return spin;
        }
        case RunField::Seed:
        case RunField::Height:
        case RunField::Thickness:
        case RunField::MinPart: {
            // Seeds reach 2^53 - 1, past a QSpinBox's int: a double spin box holds them exactly.
            auto* spin = new QDoubleSpinBox;
            spin->setDecimals(f.range.decimals);
            spin->setRange(f.range.min, f.range.max);
            spin->setSingleStep(f.range.step);
            return spin;
        }
        case RunField::Triangles: {
            auto* spin = new QSpinBox;
            spin->setRange(int(f.range.min), int(f.range.max));
            spin->setSingleStep(int(f.range.step));
            spin->setGroupSeparatorShown(true);
            return spin;
        }
    }
    return new QWidget;
}

SettingsPanel::SettingsPanel(const QStringList& devices, QWidget* parent) : QWidget(parent) {
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    for (const auto& f : runFields()) {
        QWidget* w = makeField(f, devices);
        w->setParent(this);
        w->setObjectName(text(f.key));
        w->setToolTip(text(f.help));
        fields_[f.field] = w;
        if (auto* box = qobject_cast<QComboBox*>(w))
            connect(box, &QComboBox::currentIndexChanged, this, &SettingsPanel::edited);
        else if (auto* spin = qobject_cast<QAbstractSpinBox*>(w))
            connect(spin, &QAbstractSpinBox::editingFinished, this, &SettingsPanel::edited);
        if (f.field != RunField::Seed) {
            form->addRow(text(f.label), w);
            continue;
        }
        auto* dice = new QToolButton(this);
        dice->setText(tr("New"));
        dice->setToolTip(tr("Pick a new random seed"));
        auto* seed = static_cast<QDoubleSpinBox*>(w);
        connect(dice, &QToolButton::clicked, this,
                [seed] { seed->setValue(QRandomGenerator::global()->bounded(1, 1 << 30)); });
        auto* row = new QHBoxLayout;
        row->addWidget(w, 1);
        row->addWidget(dice);
        form->addRow(text(f.label), row);
    }
    updateRemovers();
    setSettings(StudioSettings{});
}

constexpr auto kGeneratorPrefix = "generator:";

void SettingsPanel::setGenerators(const std::vector<GeneratorDef>& generators) {
    auto* box = static_cast<QComboBox*>(field(RunField::Pipeline));
    const QVariant current = box->currentData();
    for (int i = box->count() - 1; i >= 0; --i)
        if (box->itemData(i).toString().startsWith(QLatin1String(kGeneratorPrefix))) box->removeItem(i);
    for (const auto& g : generators) {
        box->addItem(QString::fromStdString(g.name),
                     QLatin1String(kGeneratorPrefix) + QString::fromStdString(g.source.string()));
        box->setItemData(box->count() - 1,
                         QString::fromStdString(g.description.empty() ? g.source.string() : g.description),
                         Qt::ToolTipRole);
    }
    box->setCurrentIndex(std::max(0, box->findData(current)));
}

void SettingsPanel::updateRemovers() {
    // Learned removers without weights stay listed, marked and unselectable, with how to
    // install them.
    auto* box = qobject_cast<QComboBox*>(field(RunField::Remover));
    auto* model = box ? qobject_cast<QStandardItemModel*>(box->model()) : nullptr;
    if (!model) return;
    for (const auto& c : choices<RemoverChoice>()) {
        QStandardItem* item = model->item(box->findData(text(c.name)));
        if (!item) continue;
        const QString label = choiceLabel(c);
        const bool installed = removerInstalled(c.value);
        item->setText(installed ? label : label + tr(" (not installed)"));
        item->setEnabled(installed);
        item->setToolTip(installed ? QString() : tr("Not installed: %1").arg(text(installHint(c.value))));
    }
    if (!model->item(box->currentIndex()) || !model->item(box->currentIndex())->isEnabled()) box->setCurrentIndex(0);
}

QComboBox* SettingsPanel::textureSize() const {
    return static_cast<QComboBox*>(field(RunField::TextureSize));
}

QSpinBox* SettingsPanel::triangles() const {
    return static_cast<QSpinBox*>(field(RunField::Triangles));
}

void SettingsPanel::setSettings(const StudioSettings& s) {
    for (const auto& [f, w] : fields_)
        setValueText(w, QString::fromStdString(settingText(s.run, f)));
    if (!s.generator.isEmpty()) {
        auto* box = static_cast<QComboBox*>(field(RunField::Pipeline));
        const int i = box->findData(QLatin1String(kGeneratorPrefix) + s.generator);
        if (i >= 0) box->setCurrentIndex(i);
    }
}

void SettingsPanel::applyTo(StudioSettings& s) const {
    s.generator.clear();
    for (const auto& [f, w] : fields_) {
        const QString value = valueText(w);
        if (f == RunField::Pipeline && value.startsWith(QLatin1String(kGeneratorPrefix))) {
            s.generator = value.mid(int(std::strlen(kGeneratorPrefix)));
            continue;
        }
        try {
            setSetting(s.run, f, value.toStdString());
        } catch (const SettingError&) {
            // Cannot happen: every widget holds only values of its setting.
        }
    }
}

}  // namespace stageload::studio
