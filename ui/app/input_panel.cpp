#include "ui/app/input_panel.h"

#include <QFileInfo>
#include <QHBoxLayout>
#include <QPainter>
#include <QVBoxLayout>

#include "ui/app/image_convert.h"

namespace stageload::app {
namespace {

constexpr int kPreview = 150;

QPixmap onCheckerboard(const QImage& image) {
    const QImage scaled = image.scaled(kPreview, kPreview, Qt::KeepAspectRatio, Qt::SmoothTransformation);
    QPixmap out(scaled.size());
    QPainter p(&out);
    const int cell = 8;
    for (int y = 0; y < out.height(); y += cell)
        for (int x = 0; x < out.width(); x += cell)
            p.fillRect(x, y, cell, cell, ((x / cell + y / cell) % 2) ? QColor(200, 200, 200) : QColor(240, 240, 240));
    p.drawImage(0, 0, scaled);
    return out;
}

QLabel* previewLabel(const QString& placeholder, QWidget* parent) {
    auto* l = new QLabel(placeholder, parent);
    l->setAlignment(Qt::AlignCenter);
    l->setMinimumSize(kPreview, kPreview);
    l->setFrameShape(QFrame::StyledPanel);
    l->setWordWrap(true);
    return l;
}

}  // namespace

InputPanel::InputPanel(QWidget* parent) : QWidget(parent) {
    thumbnail_ = previewLabel(tr("Drop a picture here\nor press Ctrl+O"), this);
    thumbnail_->setObjectName(QStringLiteral("thumbnail"));
    cutout_ = previewLabel(tr("Cut-out appears\nafter preprocess"), this);
    cutout_->setObjectName(QStringLiteral("cutout"));
    info_ = new QLabel(this);
    info_->setWordWrap(true);
    auto* previews = new QHBoxLayout;
    previews->addWidget(thumbnail_);
    previews->addWidget(cutout_);
    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addLayout(previews);
    layout->addWidget(info_);
}

bool InputPanel::setPicture(const QString& path, QString* error) {
    try {
        const auto decoded = readImageFile(path.toStdString());
        thumbnail_->setPixmap(onCheckerboard(toQImage(decoded.image)));
        info_->setText(tr("%1 — %2×%3 %4%5")
                           .arg(QFileInfo(path).fileName())
                           .arg(decoded.image.width)
                           .arg(decoded.image.height)
                           .arg(QString::fromStdString(decoded.format).toUpper(),
                                decoded.hasAlpha ? tr(", with alpha") : QString()));
        path_ = path;
        clearCutout();
        return true;
    } catch (const stageload::Error& e) {
        if (error) *error = QString::fromStdString(e.what());
        return false;
    }
}

void InputPanel::setCutout(const stageload::Image& cutout) {
    const QImage image = toQImage(cutout);
    if (image.isNull()) return;
    cutout_->setPixmap(onCheckerboard(image));
    hasCutout_ = true;
}

void InputPanel::clearCutout() {
    cutout_->setPixmap({});
    cutout_->setText(tr("Cut-out appears\nafter preprocess"));
    hasCutout_ = false;
}

}  // namespace stageload::app
