#include "ui/view/gl_format.h"

#include <QSurfaceFormat>

namespace stageload::ui {

void useDefaultGlFormat() {
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    format.setDepthBufferSize(24);
    // No multisampling here: the default format is also the top-level window's, which Qt
    // composes with OpenGL once it holds a QOpenGLWidget. MeshView asks for its own samples.
    format.setSamples(0);
    QSurfaceFormat::setDefaultFormat(format);
}

}  // namespace stageload::ui
