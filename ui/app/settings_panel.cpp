#include "ui/app/settings_panel.h"

#include <QFormLayout>
#include <QHBoxLayout>
#include <QRandomGenerator>
#include <QThread>
#include <QToolButton>
#include <algorithm>
#include <limits>

namespace stageload::studio {
namespace {

void selectData(QComboBox* box, const QVariant& value) {
    const int i = box->findData(value);
    if (i >= 0) box->setCurrentIndex(i);
}

}  // namespace

SettingsPanel::SettingsPanel(const QStringList& devices, QWidget* parent) : QWidget(parent) {
    pipeline_ = new QComboBox(this);
    for (const auto& p : StudioSettings::pipelines()) pipeline_->addItem(p, p);
    pipeline_->setToolTip(tr("The built-in character pipeline: picture in, closed textured mesh out"));

    seed_ = new QSpinBox(this);
    seed_->setRange(0, std::numeric_limits<int>::max());
    seed_->setToolTip(tr("Seed of the random generator (the back texture's grain); same seed, same mesh"));
    auto* dice = new QToolButton(this);
    dice->setText(tr("New"));
    dice->setToolTip(tr("Pick a new random seed"));
    connect(dice, &QToolButton::clicked, this,
            [this] { seed_->setValue(QRandomGenerator::global()->bounded(1, 1 << 30)); });
    auto* seedRow = new QHBoxLayout;
    seedRow->addWidget(seed_, 1);
    seedRow->addWidget(dice);

    textureSize_ = new QComboBox(this);
    for (int size : StudioSettings::textureSizes())
        textureSize_->addItem(QStringLiteral("%1 × %1").arg(size), size);
    textureSize_->setToolTip(tr("Size of the texture atlas (front and back side by side)"));

    triangles_ = new QSpinBox(this);
    triangles_->setRange(StudioSettings::kMinTriangles, StudioSettings::kMaxTriangles);
    triangles_->setSingleStep(5000);
    triangles_->setGroupSeparatorShown(true);
    triangles_->setToolTip(tr("Triangle budget of the exported mesh"));

    load_ = new QComboBox(this);
    load_->addItem(tr("Staged (each model only while a stage needs it)"), true);
    load_->addItem(tr("Eager (every model up front)"), false);

    device_ = new QComboBox(this);
    for (const auto& d : devices) device_->addItem(d, d);
    device_->setToolTip(tr("Where LibTorch runs; only what this build offers is listed"));

    threads_ = new QSpinBox(this);
    threads_->setRange(0, std::max(1, QThread::idealThreadCount()) * 2);
    threads_->setSpecialValueText(tr("All cores"));
    threads_->setToolTip(tr("LibTorch threads"));

    remover_ = new QComboBox(this);
    remover_->addItem(tr("Auto (alpha, else the best installed)"), QStringLiteral("auto"));
    remover_->addItem(QStringLiteral("U²-Netp"), QStringLiteral("u2netp"));
    remover_->addItem(QStringLiteral("ISNet"), QStringLiteral("isnet"));
    remover_->addItem(tr("Classical (border colour)"), QStringLiteral("classical"));
    remover_->setToolTip(tr("Background removal when the picture has no alpha"));

    pipeline_->setObjectName(QStringLiteral("pipeline"));
    seed_->setObjectName(QStringLiteral("seed"));
    textureSize_->setObjectName(QStringLiteral("textureSize"));
    triangles_->setObjectName(QStringLiteral("triangles"));
    load_->setObjectName(QStringLiteral("load"));
    device_->setObjectName(QStringLiteral("device"));
    threads_->setObjectName(QStringLiteral("threads"));
    remover_->setObjectName(QStringLiteral("remover"));
    auto* form = new QFormLayout(this);
    form->setContentsMargins(0, 0, 0, 0);
    form->addRow(tr("Pipeline"), pipeline_);
    form->addRow(tr("Seed"), seedRow);
    form->addRow(tr("Texture"), textureSize_);
    form->addRow(tr("Triangles"), triangles_);
    form->addRow(tr("Loading"), load_);
    form->addRow(tr("Device"), device_);
    form->addRow(tr("Threads"), threads_);
    form->addRow(tr("Background"), remover_);
    setSettings(StudioSettings{});
}

void SettingsPanel::setSettings(const StudioSettings& s) {
    selectData(pipeline_, s.pipeline);
    seed_->setValue(static_cast<int>(std::clamp<qint64>(s.seed, 0, seed_->maximum())));
    selectData(textureSize_, s.textureSize);
    triangles_->setValue(s.triangles);
    selectData(load_, s.staged);
    // A device saved on another machine that this build lacks falls back to the CPU.
    device_->setCurrentIndex(std::max(0, device_->findData(s.device)));
    threads_->setValue(std::min(s.threads, threads_->maximum()));
    selectData(remover_, s.remover);
}

void SettingsPanel::applyTo(StudioSettings& s) const {
    s.pipeline = pipeline_->currentData().toString();
    s.seed = seed_->value();
    s.textureSize = textureSize_->currentData().toInt();
    s.triangles = triangles_->value();
    s.staged = load_->currentData().toBool();
    s.device = device_->currentData().toString();
    s.threads = threads_->value();
    s.remover = remover_->currentData().toString();
}

}  // namespace stageload::studio
