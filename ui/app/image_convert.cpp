#include "ui/app/image_convert.h"

namespace stageload::app {

QImage toQImage(const stageload::Image& image) {
    QImage::Format format = QImage::Format_Invalid;
    switch (image.channels) {
        case 1: format = QImage::Format_Grayscale8; break;
        case 3: format = QImage::Format_RGB888; break;
        case 4: format = QImage::Format_RGBA8888; break;
        default: return {};
    }
    if (image.empty()) return {};
    const QImage view(image.pixels.data(), image.width, image.height,
                      image.width * image.channels, format);
    return view.copy();
}

}  // namespace stageload::app
