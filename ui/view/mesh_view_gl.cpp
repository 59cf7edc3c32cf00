// MeshView's OpenGL half: its context, frames, resources, upload and drawing.
#include <algorithm>

#include <QElapsedTimer>
#include <QLinearGradient>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLShaderProgram>
#include <QPainter>

#include "ui/view/mesh_shaders.h"
#include "ui/view/mesh_view.h"

namespace stageload::view {
namespace {

constexpr float kGridAlpha = 0.08f;      // white over the background: at most 8 % brighter
constexpr float kWireFillAlpha = 0.12f;  // the faint clay under the wireframe
constexpr float kWireColour[4] = {0.86f, 0.88f, 0.92f, 1.0f};

QVector3D rgb(const QColor& c) {
    return {float(c.redF()), float(c.greenF()), float(c.blueF())};
}

}  // namespace

MeshView::~MeshView() {
    if (!context_ || !context_->makeCurrent(surface_.get())) return;
    deleteGlObjects();
    msaaFbo_.reset();
    plainFbo_.reset();
    context_->doneCurrent();
}

// --- Frames -------------------------------------------------------------------------------------

void MeshView::requestFrame() {
    frameDirty_ = true;
    update();
}

QSize MeshView::framePixels() const {
    const QSize pixels = size() * devicePixelRatioF();
    return pixels.expandedTo({1, 1});
}

void MeshView::resizeEvent(QResizeEvent* event) {
    QWidget::resizeEvent(event);
    camera_.setViewport(size());
    frameDirty_ = true;  // Qt repaints a resized widget anyway
}

void MeshView::paintEvent(QPaintEvent*) {
    if (frameDirty_ || frame_.size() != framePixels()) renderFrame();
    QPainter painter(this);
    painter.drawImage(QPointF(0.0, 0.0), frame_);
}

QImage MeshView::grabFramebuffer() {
    if (frameDirty_ || frame_.size() != framePixels()) renderFrame();
    return frame_;
}

void MeshView::renderFrame() {
    const QSize pixels = framePixels();
    frameDirty_ = false;
    // While the camera moves, a renderer too slow for smooth multisampled frames (a software
    // one) draws plain frames; the still frame after the move has its edges smoothed again.
    const bool multisample = samples_ > 0 && !(moving_ && lastMultisampledMs_ > multisampleBudgetMs_);
    if (!ensureGl() || !ensureFramebuffers(pixels)) {
        // No OpenGL: the same background, painted by QPainter, so the view never shows garbage.
        frame_ = QImage(pixels, QImage::Format_RGB32);
        QPainter painter(&frame_);
        QLinearGradient gradient(0.0, 0.0, 0.0, pixels.height());
        gradient.setColorAt(0.0, backgroundColor(0.0));
        gradient.setColorAt(1.0, backgroundColor(1.0));
        painter.fillRect(frame_.rect(), gradient);
        frame_.setDevicePixelRatio(devicePixelRatioF());
        emit frameRendered();
        return;
    }
    QElapsedTimer clock;
    clock.start();
    QOpenGLFramebufferObject* target = multisample && msaaFbo_ ? msaaFbo_.get() : plainFbo_.get();
    target->bind();
    drawScene(pixels);
    target->release();
    if (target != plainFbo_.get())
        QOpenGLFramebufferObject::blitFramebuffer(plainFbo_.get(), target);  // resolve
    // toImage() reads back and flips to top-down rows. Alpha is 1 everywhere (the clear and every
    // blend keep it), so RGB32 loses nothing and paints without per-pixel blending.
    frame_ = plainFbo_->toImage().convertToFormat(QImage::Format_RGB32);
    frame_.setDevicePixelRatio(devicePixelRatioF());
    context_->doneCurrent();
    frameSamples_ = target == plainFbo_.get() ? 0 : samples_;
    if (frameSamples_ > 0) lastMultisampledMs_ = double(clock.nsecsElapsed()) / 1e6;
    emit frameRendered();
}

bool MeshView::ensureGl() {
    if (glTried_) return glReady_ && context_->makeCurrent(surface_.get());
    glTried_ = true;
    QSurfaceFormat format;
    format.setRenderableType(QSurfaceFormat::OpenGL);
    format.setVersion(3, 3);
    format.setProfile(QSurfaceFormat::CoreProfile);
    surface_ = std::make_unique<QOffscreenSurface>();
    surface_->setFormat(format);
    surface_->create();
    context_ = std::make_unique<QOpenGLContext>();
    context_->setFormat(format);
    if (!surface_->isValid() || !context_->create() || !context_->makeCurrent(surface_.get())) {
        glProblem_ = QStringLiteral("no OpenGL context: the 3D view needs OpenGL 3.3 core on this "
                                    "display (under Xvfb: xvfb-run -a, with Mesa's llvmpipe)");
        qWarning("MeshView: %s", qPrintable(glProblem_));
        return false;
    }
    glReady_ = initializeGl();
    if (!glReady_) qWarning("MeshView: %s", qPrintable(glProblem_));
    return glReady_;
}

bool MeshView::ensureFramebuffers(QSize pixels) {
    if (plainFbo_ && plainFbo_->size() == pixels) return true;
    msaaFbo_.reset();
    plainFbo_.reset();
    QOpenGLFramebufferObjectFormat format;
    format.setAttachment(QOpenGLFramebufferObject::CombinedDepthStencil);
    format.setInternalTextureFormat(GL_RGBA8);
    plainFbo_ = std::make_unique<QOpenGLFramebufferObject>(pixels, format);
    if (!plainFbo_->isValid()) {
        plainFbo_.reset();
        glProblem_ = QString("no %1×%2 OpenGL framebuffer").arg(pixels.width()).arg(pixels.height());
        qWarning("MeshView: %s", qPrintable(glProblem_));
        context_->doneCurrent();
        return false;
    }
    if (samples_ > 0) {
        format.setSamples(samples_);
        msaaFbo_ = std::make_unique<QOpenGLFramebufferObject>(pixels, format);
        if (!msaaFbo_->isValid()) {
            msaaFbo_.reset();
            samples_ = 0;  // not here: draw without multisampling from now on
        }
    }
    glProblem_.clear();  // the context is fine (ensureGl), so the only problem was a size
    return true;
}

bool MeshView::initializeGl() {
    if (!initializeOpenGLFunctions()) {
        const auto f = context_->format();
        glProblem_ = QString("the 3D view needs OpenGL 3.3 core, this context is %1.%2%3")
                         .arg(f.majorVersion())
                         .arg(f.minorVersion())
                         .arg(f.profile() == QSurfaceFormat::CoreProfile ? " core" : "");
        return false;
    }
    if (!buildPrograms()) return false;
    glGenVertexArrays(1, &backgroundVao_);
    glGenVertexArrays(1, &meshVao_);
    glGenBuffers(1, &vertexBuffer_);
    glGenBuffers(1, &indexBuffer_);
    glBindVertexArray(meshVao_);
    glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
    glBindBuffer(GL_ELEMENT_ARRAY_BUFFER, indexBuffer_);
    const GLsizei stride = kFloatsPerVertex * sizeof(float);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, stride, nullptr);
    glEnableVertexAttribArray(1);
    glVertexAttribPointer(1, 3, GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(3 * sizeof(float)));
    glEnableVertexAttribArray(2);
    glVertexAttribPointer(2, 2, GL_FLOAT, GL_FALSE, stride,
                          reinterpret_cast<const void*>(6 * sizeof(float)));
    glGenVertexArrays(1, &gridVao_);
    glGenBuffers(1, &gridBuffer_);
    glBindVertexArray(gridVao_);
    glBindBuffer(GL_ARRAY_BUFFER, gridBuffer_);
    glEnableVertexAttribArray(0);
    glVertexAttribPointer(0, 3, GL_FLOAT, GL_FALSE, 3 * sizeof(float), nullptr);
    glBindVertexArray(0);
    glBindBuffer(GL_ARRAY_BUFFER, 0);
    gpuIndexCount_ = gridVertexCount_ = 0;
    gridPending_ = true;
    return true;
}

bool MeshView::buildPrograms() {
    auto build = [this](std::unique_ptr<QOpenGLShaderProgram>& program, const char* vertex,
                        const char* fragment, const char* what) {
        program = std::make_unique<QOpenGLShaderProgram>();
        if (program->addShaderFromSourceCode(QOpenGLShader::Vertex, vertex) &&
            program->addShaderFromSourceCode(QOpenGLShader::Fragment, fragment) && program->link())
            return true;
        glProblem_ = QString("the %1 shader does not build: %2").arg(what, program->log());
        return false;
    };
    return build(meshProgram_, shaders::kMeshVertex, shaders::kMeshFragment, "mesh") &&
           build(backgroundProgram_, shaders::kBackgroundVertex, shaders::kBackgroundFragment,
                 "background") &&
           build(gridProgram_, shaders::kGridVertex, shaders::kGridFragment, "grid");
}

void MeshView::upload() {
    if (uploadPending_) {
        glBindVertexArray(meshVao_);
        glBindBuffer(GL_ARRAY_BUFFER, vertexBuffer_);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(pendingVertices_.size() * sizeof(float)),
                     pendingVertices_.data(), GL_STATIC_DRAW);
        glBufferData(GL_ELEMENT_ARRAY_BUFFER,
                     GLsizeiptr(pendingIndices_.size() * sizeof(std::uint32_t)),
                     pendingIndices_.data(), GL_STATIC_DRAW);
        glBindVertexArray(0);
        gpuIndexCount_ = GLsizei(pendingIndices_.size());

        GLint maxSize = 0;
        glGetIntegerv(GL_MAX_TEXTURE_SIZE, &maxSize);
        const auto& t = pendingTexture_;
        if (!t.empty() && t.width <= maxSize && t.height <= maxSize) {
            if (!texture_) glGenTextures(1, &texture_);
            glBindTexture(GL_TEXTURE_2D, texture_);
            glPixelStorei(GL_UNPACK_ALIGNMENT, 1);
            const GLenum format = t.channels == 4 ? GL_RGBA : GL_RGB;
            glTexImage2D(GL_TEXTURE_2D, 0, t.channels == 4 ? GL_RGBA8 : GL_RGB8, t.width, t.height,
                         0, format, GL_UNSIGNED_BYTE, t.pixels.data());
            glGenerateMipmap(GL_TEXTURE_2D);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MIN_FILTER, GL_LINEAR_MIPMAP_LINEAR);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_MAG_FILTER, GL_LINEAR);
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_S, GL_REPEAT);  // glTF's default
            glTexParameteri(GL_TEXTURE_2D, GL_TEXTURE_WRAP_T, GL_REPEAT);
            glBindTexture(GL_TEXTURE_2D, 0);
            textureWidth_ = t.width;
            textureHeight_ = t.height;
            textureChannels_ = t.channels;
        } else {
            if (texture_) glDeleteTextures(1, &texture_);
            texture_ = 0;
            textureWidth_ = textureHeight_ = textureChannels_ = 0;
            if (!t.empty()) hasTexture_ = false;  // larger than this GL can take: clay
        }
        // On the GPU now: no CPU copy is kept.
        pendingVertices_ = {};
        pendingIndices_ = {};
        pendingTexture_ = {};
        uploadPending_ = false;
    }
    if (gridPending_) {
        glBindBuffer(GL_ARRAY_BUFFER, gridBuffer_);
        glBufferData(GL_ARRAY_BUFFER, GLsizeiptr(gridLines_.size() * sizeof(float)),
                     gridLines_.data(), GL_STATIC_DRAW);
        glBindBuffer(GL_ARRAY_BUFFER, 0);
        gridVertexCount_ = GLsizei(gridLines_.size() / 3);
        gridPending_ = false;
    }
}

void MeshView::drawScene(QSize pixels) {
    upload();
    glViewport(0, 0, pixels.width(), pixels.height());
    glDepthMask(GL_TRUE);
    glClearColor(0.0f, 0.0f, 0.0f, 1.0f);
    glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);

    glDisable(GL_DEPTH_TEST);
    glDisable(GL_BLEND);
    backgroundProgram_->bind();
    backgroundProgram_->setUniformValue("uTop", rgb(backgroundColor(0.0)));
    backgroundProgram_->setUniformValue("uBottom", rgb(backgroundColor(1.0)));
    glBindVertexArray(backgroundVao_);
    glDrawArrays(GL_TRIANGLES, 0, 3);
    glBindVertexArray(0);
    backgroundProgram_->release();
    if (gpuIndexCount_ == 0) return;

    const QMatrix4x4 view = camera_.view();
    const QMatrix4x4 mvp = camera_.projection(float(pixels.width()) / float(pixels.height())) * view;
    glEnable(GL_DEPTH_TEST);
    glDepthFunc(GL_LEQUAL);
    drawMesh(mvp, view);
    drawGrid(mvp);
}

void MeshView::drawMesh(const QMatrix4x4& mvp, const QMatrix4x4& view) {
    meshProgram_->bind();
    meshProgram_->setUniformValue("uMvp", mvp);
    meshProgram_->setUniformValue("uView", view);
    meshProgram_->setUniformValue("uTexture", 0);
    meshProgram_->setUniformValue("uHasTexture", texture_ != 0 && hasTexture_);
    meshProgram_->setUniformValue("uAlpha", 1.0f);
    glActiveTexture(GL_TEXTURE0);
    glBindTexture(GL_TEXTURE_2D, texture_);
    glBindVertexArray(meshVao_);
    const auto draw = [this] {
        glDrawElements(GL_TRIANGLES, gpuIndexCount_, GL_UNSIGNED_INT, nullptr);
    };
    switch (mode_) {
        case ShadingMode::Textured:
        case ShadingMode::Clay:
        case ShadingMode::Normals:
            meshProgram_->setUniformValue("uMode", mode_ == ShadingMode::Textured ? 0
                                                   : mode_ == ShadingMode::Clay   ? 1
                                                                                  : 2);
            draw();
            break;
        case ShadingMode::Wireframe:
            // A faint clay fill (it also hides the edges behind the mesh), pushed back in depth so
            // the edges drawn on top of it win; alpha blended, destination alpha kept at 1.
            glEnable(GL_BLEND);
            glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
            glEnable(GL_POLYGON_OFFSET_FILL);
            glPolygonOffset(1.0f, 1.0f);
            meshProgram_->setUniformValue("uMode", 1);
            meshProgram_->setUniformValue("uAlpha", kWireFillAlpha);
            draw();
            glDisable(GL_POLYGON_OFFSET_FILL);
            glDisable(GL_BLEND);
            glPolygonMode(GL_FRONT_AND_BACK, GL_LINE);
            meshProgram_->setUniformValue("uMode", 3);
            meshProgram_->setUniformValue("uColor", QVector4D(kWireColour[0], kWireColour[1],
                                                              kWireColour[2], kWireColour[3]));
            draw();
            glPolygonMode(GL_FRONT_AND_BACK, GL_FILL);
            break;
    }
    glBindVertexArray(0);
    glBindTexture(GL_TEXTURE_2D, 0);
    meshProgram_->release();
}

void MeshView::drawGrid(const QMatrix4x4& mvp) {
    if (gridVertexCount_ == 0) return;
    // Depth-tested against the mesh, writes no depth, blended over what is there.
    glEnable(GL_BLEND);
    glBlendFuncSeparate(GL_SRC_ALPHA, GL_ONE_MINUS_SRC_ALPHA, GL_ZERO, GL_ONE);
    glDepthMask(GL_FALSE);
    gridProgram_->bind();
    gridProgram_->setUniformValue("uMvp", mvp);
    gridProgram_->setUniformValue(
        "uCentre", QVector2D(0.5f * (bounds_[0] + bounds_[3]), 0.5f * (bounds_[2] + bounds_[5])));
    gridProgram_->setUniformValue("uExtent", gridExtent_);
    gridProgram_->setUniformValue("uAlpha", kGridAlpha);
    glBindVertexArray(gridVao_);
    glDrawArrays(GL_LINES, 0, gridVertexCount_);
    glBindVertexArray(0);
    gridProgram_->release();
    glDepthMask(GL_TRUE);
    glDisable(GL_BLEND);
}

void MeshView::deleteGlObjects() {
    if (glReady_) {
        const GLuint buffers[] = {vertexBuffer_, indexBuffer_, gridBuffer_};
        glDeleteBuffers(3, buffers);
        const GLuint arrays[] = {meshVao_, gridVao_, backgroundVao_};
        glDeleteVertexArrays(3, arrays);
        if (texture_) glDeleteTextures(1, &texture_);
    }
    meshVao_ = vertexBuffer_ = indexBuffer_ = texture_ = gridVao_ = gridBuffer_ = backgroundVao_ =
        0;
    gpuIndexCount_ = gridVertexCount_ = 0;
    textureWidth_ = textureHeight_ = textureChannels_ = 0;
    meshProgram_.reset();
    backgroundProgram_.reset();
    gridProgram_.reset();
    gridPending_ = true;
}

}  // namespace stageload::view
