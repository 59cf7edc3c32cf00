#pragma once
// The run's settings as the artist edits them, one row per row of the engine's settings table
// (engine/api/run_settings.h): pipeline, seed, texture size, triangle budget, height, thickness,
// smallest part, staged or eager loading, device (only what this build offers), threads,
// background remover (learned ones without weights listed as not installed, unselectable).
// Each widget's name, label, tooltip, range and choices come from the table, so a new setting
// appears here without a line of this file changing.
//
//   auto* panel = new SettingsPanel(availableDevices, this);
//   panel->setSettings(settings);            // from QSettings at start
//   panel->applyTo(settings);                // before Generate and when the app closes
//   connect(panel, &SettingsPanel::edited, ...);  // the forecast follows the settings
//
// GUI thread only.

#include <QComboBox>
#include <QSpinBox>
#include <QWidget>
#include <map>

#include "guard/generator/generator_def.h"
#include "ui/studio/studio_settings.h"

namespace stageload::studio {

class SettingsPanel : public QWidget {
    Q_OBJECT

public:
    /// `devices`: what this LibTorch build can run on ("cpu" first).
    explicit SettingsPanel(const QStringList& devices, QWidget* parent = nullptr);

    /// Lists `generators` after the built-in pipelines in the Pipeline menu (replacing earlier
    /// ones); the selection is kept when it is still there.
    void setGenerators(const std::vector<stageload::GeneratorDef>& generators);
    void setSettings(const StudioSettings& s);
    /// Writes the run fields of the form into `s` (the guard and file fields stay).
    void applyTo(StudioSettings& s) const;

    /// The widget of a setting (its objectName is the setting's key).
    QWidget* field(stageload::RunField field) const { return fields_.at(field); }
    QComboBox* textureSize() const;
    /// Marks the learned removers whose weights are not installed (again, after an install).
    void updateRemovers();
    QSpinBox* triangles() const;

signals:
    /// A choice was picked or a number entered (a spin box when editing finishes).
    void edited();

private:
    QWidget* makeField(const stageload::RunFieldInfo& info, const QStringList& devices);

    std::map<stageload::RunField, QWidget*> fields_;
};

}  // namespace stageload::studio
