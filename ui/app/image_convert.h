#pragma once
// stageload::Image (engine/media) to QImage, for thumbnails and previews.
//
//   QLabel* l; l->setPixmap(QPixmap::fromImage(stageload::app::toQImage(cutout)));
//
// Pure, thread-safe; the result owns its pixels (a deep copy).

#include <QImage>

#include "engine/media/image.h"

namespace stageload::app {

/// 1 channel → Grayscale8, 3 → RGB888, 4 → RGBA8888. Empty or other channel counts → null.
QImage toQImage(const stageload::Image& image);

}  // namespace stageload::app
