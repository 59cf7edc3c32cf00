#pragma once
// The picture going in: its thumbnail, its size and format, and the subject's cut-out once
// preprocess has found it (on a checkerboard, so transparency shows).
//
//   auto* input = new InputPanel(this);
//   if (!input->setPicture(path, &error)) QMessageBox::warning(this, tr("Open"), error);
//   connect(&runs, &worker::RunController::cutoutReady, input, &InputPanel::setCutout);
//
// GUI thread only.

#include <QLabel>
#include <QWidget>

#include "engine/media/image.h"

namespace stageload::app {

class InputPanel : public QWidget {
    Q_OBJECT

public:
    explicit InputPanel(QWidget* parent = nullptr);

    /// Decodes the picture as the pipeline will (EXIF orientation, size limits). False with a
    /// message naming the file when it cannot be used; the previous picture stays.
    bool setPicture(const QString& path, QString* error);
    QString picture() const { return path_; }

    void setCutout(const stageload::Image& cutout);
    void clearCutout();
    bool hasCutout() const { return hasCutout_; }

private:
    QLabel* thumbnail_;
    QLabel* info_;
    QLabel* cutout_;
    QString path_;
    bool hasCutout_ = false;
};

}  // namespace stageload::app
