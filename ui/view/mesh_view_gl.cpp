// MeshView's OpenGL half: resources, upload, drawing, and surviving the loss of the context.
#include <algorithm>

#include <QEvent>
#include <QOpenGLContext>
#include <QOpenGLFunctions>
#include <QOpenGLShaderProgram>

#include "ui/view/mesh_shaders.h"
#include "ui/view/mesh_view.h"

namespace stageload::ui {
namespace {

constexpr float kGridAlpha = 0.08f;      // white over the background: at most 8 % brighter
constexpr float kWireFillAlpha = 0.12f;  // the faint clay under the wireframe
constexpr float kWireColour[4] = {0.86f, 0.88f, 0.92f, 1.0f};

QVector3D rgb(const QColor& c) {
    return {float(c.redF()), float(c.greenF()), float(c.blueF())};
}

}  // namespace

bool MeshView::event(QEvent* event) {
    const bool handled = QOpenGLWidget::event(event);
    // Moving to another window drops the GL context. Qt 6.4 then creates the next one without
    // the multisampling asked for (it zeroes the sample count of its requested format when it
    // first initialises): ask again while no context exists, i.e. the widget is still hidden.
    if (event->type() == QEvent::WindowChangeInternal && !context() && samples_ > 0) {
        QSurfaceFormat wanted = format();
        wanted.setSamples(samples_);
        setFormat(wanted);
    }
    return handled;
}

void MeshView::initializeGL() {
    connect(context(), &QOpenGLContext::aboutToBeDestroyed, this, &MeshView::releaseGl,
            Qt::UniqueConnection);
    glReady_ = false;
    glProblem_.clear();
    if (!initializeOpenGLFunctions()) {
        const auto f = context()->format();
        glProblem_ = QString(
                         "the 3D view needs OpenGL 3.3 core, this context is %1.%2%3; call "
                         "stageload::ui::useDefaultGlFormat() before QApplication")
                         .arg(f.majorVersion())
                         .arg(f.minorVersion())
                         .arg(f.profile() == QSurfaceFormat::CoreProfile ? " core" : "");
        qWarning("MeshView: %s", qPrintable(glProblem_));
        return;
    }
    if (!buildPrograms()) {
        qWarning("MeshView: %s", qPrintable(glProblem_));
        return;
    }
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
    glReady_ = true;
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

void MeshView::resizeGL(int, int) {
    camera_.setViewport(size());
}

void MeshView::paintGL() {
    if (!glReady_) {
        const QColor c = backgroundColor(0.5);
        auto* f = context()->functions();
        f->glClearColor(float(c.redF()), float(c.greenF()), float(c.blueF()), 1.0f);
        f->glClear(GL_COLOR_BUFFER_BIT | GL_DEPTH_BUFFER_BIT);
        return;
    }
    upload();
    camera_.setViewport(size());
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
    const QMatrix4x4 mvp = camera_.projection(float(width()) / float(std::max(1, height()))) * view;
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

void MeshView::readBack() {
    // The mesh lives only on the GPU: bring it back so the next context can show it again.
    pendingVertices_.resize(std::size_t(vertexCount_) * kFloatsPerVertex);
    pendingIndices_.resize(std::size_t(gpuIndexCount_));
    glBindBuffer(GL_COPY_READ_BUFFER, vertexBuffer_);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0, GLsizeiptr(pendingVertices_.size() * sizeof(float)),
                       pendingVertices_.data());
    glBindBuffer(GL_COPY_READ_BUFFER, indexBuffer_);
    glGetBufferSubData(GL_COPY_READ_BUFFER, 0,
                       GLsizeiptr(pendingIndices_.size() * sizeof(std::uint32_t)),
                       pendingIndices_.data());
    glBindBuffer(GL_COPY_READ_BUFFER, 0);
    pendingTexture_ = {};
    if (texture_) {
        pendingTexture_ = stageload::Image(textureWidth_, textureHeight_, textureChannels_);
        glBindTexture(GL_TEXTURE_2D, texture_);
        glPixelStorei(GL_PACK_ALIGNMENT, 1);
        glGetTexImage(GL_TEXTURE_2D, 0, textureChannels_ == 4 ? GL_RGBA : GL_RGB, GL_UNSIGNED_BYTE,
                      pendingTexture_.pixels.data());
        glBindTexture(GL_TEXTURE_2D, 0);
    }
    uploadPending_ = true;
}

void MeshView::releaseGl() {
    if (!glReady_ && !meshProgram_) return;
    makeCurrent();
    if (glReady_ && !destroying_ && !uploadPending_ && gpuIndexCount_ > 0) readBack();
    deleteGlObjects();
    doneCurrent();
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
    glReady_ = false;
}

}  // namespace stageload::ui
