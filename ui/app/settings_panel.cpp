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

#include <QLabel>
#include <QPushButton>

#include "engine/api/weights.h"
#include "ui/app/generator_params_form.h"
#include "guard/generator/requirements.h"
#include "ui/app/generator_setup_dialog.h"
#include "ui/studio/run_launcher.h"
#include "ui/studio/wheel_guard.h"

namespace stageload::app {
namespace {

constexpr auto kGeneratorPrefix = "generator:";  ///< a generator's item in the Pipeline menu

QString text(std::string_view s) {
    return QString::fromUtf8(s.data(), qsizetype(s.size()));
}

// A choice's label is long ("Auto — the classical cut-out on even backgrounds, …"): the box
// takes the dock's width and elides it, so the dock never scrolls sideways on a laptop screen;
// the list it opens is as wide as its longest item, and each item's whole text is its tooltip.
QComboBox* comboOf(const std::vector<std::pair<QString, QString>>& items) {
    auto* box = new QComboBox;
    box->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
    box->setMinimumContentsLength(12);
    for (const auto& [label, value] : items) {
        box->addItem(label, value);
        box->setItemData(box->count() - 1, label, Qt::ToolTipRole);
    }
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
            // Each number with its unit: metres, times the default depth, percent of the subject.
            if (f.field == RunField::Height) spin->setSuffix(tr(" m"));
            if (f.field == RunField::Thickness) spin->setSuffix(tr(" ×"));
            if (f.field == RunField::MinPart) spin->setSuffix(tr(" %"));
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
    auto* form = form_ = new QFormLayout(this);
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
        dice->setObjectName(QStringLiteral("newSeed"));
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
    // The chosen generator's params, and whether it is set up.
    generatorForm_ = new GeneratorParamsForm(this);
    generatorForm_->setObjectName(QStringLiteral("generatorParams"));
    form->addRow(generatorForm_);
    connect(generatorForm_, &GeneratorParamsForm::edited, this, [this] {
        keepShownParams();
        updateSetupMarks();
        emit edited();
    });
    setupStatus_ = new QLabel(this);
    setupStatus_->setObjectName(QStringLiteral("setupStatus"));
    setupStatus_->setWordWrap(true);
    setupButton_ = new QPushButton(tr("Set up…"), this);
    setupButton_->setObjectName(QStringLiteral("setUp"));
    setupButton_->setToolTip(tr("Say where this generator lives: its checkout, program and weights"));
    connect(setupButton_, &QPushButton::clicked, this, &SettingsPanel::setupRequested);
    auto* setupRow = new QHBoxLayout;
    setupRow->addWidget(setupStatus_, 1);
    setupRow->addWidget(setupButton_);
    form->addRow(setupRow);
    auto* pipeline = static_cast<QComboBox*>(field(RunField::Pipeline));
    connect(pipeline, &QComboBox::currentIndexChanged, this, &SettingsPanel::showPipeline);
    // Chosen by the user (not by setSettings()): one that is not set up asks to be.
    connect(pipeline, &QComboBox::activated, this, [this] {
        if (generator() && !isSetUp()) emit setupRequested();
    });
    updateRemovers();
    setSettings(studio::StudioSettings{});
    studio::guardWheel(this);  // the generator's own fields guard theirs as they are made
}

const GeneratorDef* SettingsPanel::generator() const {
    const QString data = static_cast<QComboBox*>(field(RunField::Pipeline))->currentData().toString();
    if (!data.startsWith(QLatin1String(kGeneratorPrefix))) return nullptr;
    const std::string file = data.mid(int(std::strlen(kGeneratorPrefix))).toStdString();
    for (const auto& g : generators_)
        if (g.source.string() == file) return &g;
    return nullptr;
}

QMap<QString, QString> SettingsPanel::paramsOf(const GeneratorDef& g) const {
    const QString key = studio::StudioSettings::generatorKey(QString::fromStdString(g.source.string()));
    QMap<QString, QString> values = params_.value(key);
    if (key != shownKey_) return values;
    // The fields shown replace what was kept (one back at its default is kept no more).
    for (const auto& p : g.params)
        if (p.name != kLoadParam) values.remove(QString::fromStdString(p.name));
    const auto typed = generatorForm_->values();
    for (auto it = typed.begin(); it != typed.end(); ++it) values.insert(it.key(), it.value());
    return values;
}

void SettingsPanel::keepShownParams() {
    if (shown_) params_[shownKey_] = paramsOf(*shown_);
}

bool SettingsPanel::isSetUp() const {
    const GeneratorDef* g = generator();
    return !g || studio::missingSetup(*g, paramsOf(*g)).isEmpty();
}

void SettingsPanel::setGeneratorParams(const QString& key, const QMap<QString, QString>& values) {
    params_[key] = values;
    shownKey_.clear();  // the form shows them anew
    shown_.reset();
    showPipeline();
}

void SettingsPanel::showPipeline() {
    const GeneratorDef* g = generator();
    for (const auto& f : runFields())
        if (!f.forGenerators) form_->setRowVisible(fields_.at(f.field), g == nullptr);
    // Loading is a generator's "load" param where it has one; seed and texture size are off
    // for a command that takes none.
    const auto enable = [&](RunField f, bool on, const QString& why) {
        field(f)->setEnabled(on);
        field(f)->setToolTip(on ? text(runField(f).help) : why);
    };
    const QString name = g ? QString::fromStdString(g->name) : QString();
    enable(RunField::Load, !g || findParam(*g, kLoadParam), tr("%1 has no loading mode of its own").arg(name));
    enable(RunField::Seed, !g || usesPlaceholder(*g, "seed"), tr("%1 takes no seed").arg(name));
    if (auto* dice = findChild<QToolButton*>(QStringLiteral("newSeed"))) dice->setEnabled(field(RunField::Seed)->isEnabled());
    enable(RunField::TextureSize, !g || usesPlaceholder(*g, "texture_size"),
           tr("%1 takes no texture size").arg(name));

    const QString key = g ? studio::StudioSettings::generatorKey(QString::fromStdString(g->source.string())) : QString();
    if (key != shownKey_) {
        keepShownParams();
        shownKey_ = key;
        shown_.reset();
        if (g) {
            shown_ = *g;
            generatorForm_->setGenerator(*g, params_.value(key), {}, {QString::fromLatin1(kLoadParam)});
        } else {
            generatorForm_->clear();
        }
    }
    // Shown for every generator, empty or not: hiding this label-less row while its form was
    // empty corrupted the heap under Qt 6.4.2 (the app crashed later at random; glibc's heap
    // check caught a freed item of this layout; see test_studio_app's generators without params).
    form_->setRowVisible(generatorForm_, g != nullptr);
    updateSetupMarks();
}

void SettingsPanel::updateSetupMarks() {
    auto* box = static_cast<QComboBox*>(field(RunField::Pipeline));
    for (int i = 0; i < box->count(); ++i) {
        const QString data = box->itemData(i).toString();
        if (!data.startsWith(QLatin1String(kGeneratorPrefix))) continue;
        const std::string file = data.mid(int(std::strlen(kGeneratorPrefix))).toStdString();
        const auto g = std::find_if(generators_.begin(), generators_.end(),
                                    [&](const GeneratorDef& d) { return d.source.string() == file; });
        if (g == generators_.end()) continue;
        const QStringList missing = studio::missingSetup(*g, paramsOf(*g));
        const QString description = QString::fromStdString(g->description.empty() ? g->source.string() : g->description);
        box->setItemText(i, QString::fromStdString(g->name) + (missing.isEmpty() ? QString() : tr(" — not set up")));
        box->setItemData(i, missing.isEmpty() ? description : description + QStringLiteral("\n\n") + missing.first(),
                         Qt::ToolTipRole);
    }
    const GeneratorDef* g = generator();
    const QStringList missing = g ? studio::missingSetup(*g, paramsOf(*g)) : QStringList();
    setupStatus_->setText(missing.isEmpty() ? tr("✓ Set up") : tr("Not set up: %1").arg(missing.join(QLatin1Char('\n'))));
    setupStatus_->setStyleSheet(missing.isEmpty() ? QString() : QStringLiteral("color: #b71c1c;"));
    setupStatus_->setVisible(g != nullptr);
    setupButton_->setVisible(g != nullptr && !setupParams(*g).empty());
}

void SettingsPanel::setGenerators(const std::vector<GeneratorDef>& generators) {
    auto* box = static_cast<QComboBox*>(field(RunField::Pipeline));
    const QVariant current = box->currentData();
    keepShownParams();
    const QSignalBlocker quiet(box);  // one showPipeline() below, not one per item
    generators_ = generators;
    shownKey_.clear();
    shown_.reset();
    for (int i = box->count() - 1; i >= 0; --i)
        if (box->itemData(i).toString().startsWith(QLatin1String(kGeneratorPrefix))) box->removeItem(i);
    for (const auto& g : generators) {
        box->addItem(QString::fromStdString(g.name),
                     QLatin1String(kGeneratorPrefix) + QString::fromStdString(g.source.string()));
        box->setItemData(box->count() - 1, QString::fromStdString(g.name), Qt::ToolTipRole);
    }
    box->setCurrentIndex(std::max(0, box->findData(current)));
    showPipeline();
    emit edited();
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
        item->setToolTip(installed ? label : label + tr("\nNot installed: %1").arg(text(installHint(c.value))));
    }
    if (!model->item(box->currentIndex()) || !model->item(box->currentIndex())->isEnabled()) box->setCurrentIndex(0);
}

QComboBox* SettingsPanel::textureSize() const {
    return static_cast<QComboBox*>(field(RunField::TextureSize));
}

QSpinBox* SettingsPanel::triangles() const {
    return static_cast<QSpinBox*>(field(RunField::Triangles));
}

void SettingsPanel::setSettings(const studio::StudioSettings& s) {
    params_ = s.generatorParams;
    shownKey_.clear();
    shown_.reset();
    {
        const QSignalBlocker quiet(field(RunField::Pipeline));
        for (const auto& [f, w] : fields_)
            setValueText(w, QString::fromStdString(settingText(s.run, f)));
        if (!s.generator.isEmpty()) {
            auto* box = static_cast<QComboBox*>(field(RunField::Pipeline));
            const int i = box->findData(QLatin1String(kGeneratorPrefix) + s.generator);
            if (i >= 0) box->setCurrentIndex(i);
        }
    }
    showPipeline();
    emit edited();
}

void SettingsPanel::applyTo(studio::StudioSettings& s) const {
    s.generator.clear();
    s.generatorParams = params_;
    if (const GeneratorDef* g = generator())
        s.generatorParams[studio::StudioSettings::generatorKey(QString::fromStdString(g->source.string()))] = paramsOf(*g);
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

}  // namespace stageload::app
