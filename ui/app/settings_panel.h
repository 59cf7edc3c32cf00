#pragma once
// The run's settings as the artist edits them, one row per row of the engine's settings table
// (engine/api/run_settings.h): pipeline, seed, texture size, triangle budget, height, thickness,
// smallest part, staged or eager loading, device (only what this build offers), threads,
// background remover (learned ones without weights listed as not installed, unselectable).
// Each widget's name, label, tooltip, range and choices come from the table, so a new setting
// appears here without a line of this file changing.
// With a generator chosen, the settings follow it: the built-in pipeline's own rows are hidden,
// its params are fields below the table (its "load" param is the Loading row), Seed and Texture
// size are off when its command takes none, and a line says whether it is set up (what its
// definition "requires" is there), with a Set up… button. The Pipeline menu marks each
// generator that is not set up.
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
#include <optional>

class QFormLayout;
class QLabel;
class QPushButton;

#include "guard/generator/generator_def.h"
#include "ui/studio/studio_settings.h"

namespace stageload::app {

class SettingsPanel : public QWidget {
    Q_OBJECT

public:
    /// `devices`: what this LibTorch build can run on ("cpu" first).
    explicit SettingsPanel(const QStringList& devices, QWidget* parent = nullptr);

    /// Lists `generators` after the built-in pipelines in the Pipeline menu (replacing earlier
    /// ones); the selection is kept when it is still there.
    void setGenerators(const std::vector<stageload::GeneratorDef>& generators);
    void setSettings(const studio::StudioSettings& s);
    /// Writes the run fields of the form into `s` (the guard and file fields stay).
    void applyTo(studio::StudioSettings& s) const;

    /// The chosen generator, or null for the built-in pipeline.
    const stageload::GeneratorDef* generator() const;
    /// Replaces the params kept for the generator under `key` (after Set up).
    void setGeneratorParams(const QString& key, const QMap<QString, QString>& values);
    /// Whether the chosen generator's "requires" hold with its params (true for the built-in).
    bool isSetUp() const;

    /// The widget of a setting (its objectName is the setting's key).
    QWidget* field(stageload::RunField field) const { return fields_.at(field); }
    QComboBox* textureSize() const;
    /// Marks the learned removers whose weights are not installed (again, after an install).
    void updateRemovers();
    QSpinBox* triangles() const;

signals:
    /// A choice was picked or a number entered (a spin box when editing finishes).
    void edited();
    /// The user chose a generator that is not set up, or pressed Set up….
    void setupRequested();

private:
    QWidget* makeField(const stageload::RunFieldInfo& info, const QStringList& devices);
    /// Shows the rows and the params of what the Pipeline menu has chosen.
    void showPipeline();
    /// Keeps the shown generator's fields in params_.
    void keepShownParams();
    /// `g`'s params: those kept, with the fields over them when `g` is the one shown.
    QMap<QString, QString> paramsOf(const stageload::GeneratorDef& g) const;
    /// Marks each generator of the Pipeline menu that is not set up.
    void updateSetupMarks();

    std::map<stageload::RunField, QWidget*> fields_;
    QFormLayout* form_ = nullptr;
    std::vector<stageload::GeneratorDef> generators_;
    QMap<QString, QMap<QString, QString>> params_;  ///< studio::StudioSettings::generatorParams
    QString shownKey_;                              ///< whose params the form shows
    std::optional<stageload::GeneratorDef> shown_;  ///< ... and its definition
    class GeneratorParamsForm* generatorForm_ = nullptr;
    QLabel* setupStatus_ = nullptr;
    QPushButton* setupButton_ = nullptr;
};

}  // namespace stageload::app
