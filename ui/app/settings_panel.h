#pragma once
// The run's settings as the artist edits them: pipeline, seed, texture size, triangle budget,
// staged or eager loading, device (only what this build offers), threads, background remover.
//
//   auto* panel = new SettingsPanel(availableDevices, this);
//   panel->setSettings(settings);            // from QSettings at start
//   panel->applyTo(settings);                // before Generate and when the app closes
//
// GUI thread only.

#include <QComboBox>
#include <QSpinBox>
#include <QWidget>

#include "ui/studio/studio_settings.h"

namespace stageload::studio {

class SettingsPanel : public QWidget {
    Q_OBJECT

public:
    /// `devices`: what this LibTorch build can run on ("cpu" first).
    explicit SettingsPanel(const QStringList& devices, QWidget* parent = nullptr);

    void setSettings(const StudioSettings& s);
    /// Writes the run fields of the form into `s` (the guard and file fields stay).
    void applyTo(StudioSettings& s) const;

    QComboBox* textureSize() const { return textureSize_; }
    QSpinBox* triangles() const { return triangles_; }

private:
    QComboBox* pipeline_;
    QSpinBox* seed_;
    QComboBox* textureSize_;
    QSpinBox* triangles_;
    QComboBox* load_;
    QComboBox* device_;
    QSpinBox* threads_;
    QComboBox* remover_;
};

}  // namespace stageload::studio
