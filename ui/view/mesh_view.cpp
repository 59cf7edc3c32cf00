// MeshView: the mesh it shows, the camera and the mouse. Its OpenGL half is mesh_view_gl.cpp.
#include "ui/view/mesh_view.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include <QKeyEvent>
#include <QMouseEvent>
#include <QOffscreenSurface>
#include <QOpenGLContext>
#include <QOpenGLFramebufferObject>
#include <QOpenGLShaderProgram>
#include <QWheelEvent>

#include "guard/base/error.h"

namespace stageload::view {
namespace {

constexpr QColor kBackgroundTop(0x3a, 0x3d, 0x44);
constexpr QColor kBackgroundBottom(0x1f, 0x20, 0x24);

/// `texture` as something glTexImage2D takes (3 or 4 channels), or empty.
stageload::Image usableTexture(const stageload::Image& texture) {
    const std::size_t pixels =
        std::size_t(std::max(texture.width, 0)) * std::max(texture.height, 0);
    if (texture.empty() || pixels == 0 || texture.pixels.size() != pixels * texture.channels)
        return {};
    if (texture.channels == 3 || texture.channels == 4) return texture;
    if (texture.channels != 1) return {};
    stageload::Image out(texture.width, texture.height, 3);
    for (std::size_t i = 0; i < pixels; ++i)
        std::fill_n(out.pixels.begin() + 3 * i, 3, texture.pixels[i]);
    return out;
}

}  // namespace

MeshView::MeshView(QWidget* parent) : QWidget(parent) {
    setFocusPolicy(Qt::StrongFocus);
    setMouseTracking(false);
    setAttribute(Qt::WA_OpaquePaintEvent);  // every paint covers the whole view
    camera_.setViewport(size());
    settle_.setSingleShot(true);
    settle_.setInterval(kSettleMs);
    connect(&settle_, &QTimer::timeout, this, [this] {
        moving_ = false;
        if (frameSamples_ != samples_) requestFrame();  // the smooth still frame
    });
}

QColor MeshView::backgroundColor(double fromTop) {
    const double t = std::clamp(fromTop, 0.0, 1.0);
    auto mix = [t](int a, int b) { return int(std::lround(a + (b - a) * t)); };
    return QColor(mix(kBackgroundTop.red(), kBackgroundBottom.red()),
                  mix(kBackgroundTop.green(), kBackgroundBottom.green()),
                  mix(kBackgroundTop.blue(), kBackgroundBottom.blue()));
}

// --- The mesh -----------------------------------------------------------------------------------

void MeshView::setMesh(const stageload::TexturedMesh& mesh) {
    const std::size_t n = mesh.vertexCount();
    if (mesh.indices.empty()) {
        clearMesh();
        return;
    }
    const std::string name = "mesh '" + mesh.name + "'";
    if (mesh.positions.size() % 3 != 0 || mesh.indices.size() % 3 != 0)
        throw stageload::Error(name + ": positions or indices are not a multiple of 3");
    if (n > std::size_t(std::numeric_limits<int>::max()) ||
        mesh.indices.size() > std::size_t(std::numeric_limits<GLsizei>::max()))
        throw stageload::Error(name + ": too large for the 3D view");
    const auto largest = *std::max_element(mesh.indices.begin(), mesh.indices.end());
    if (largest >= n)
        throw stageload::Error(name + ": index " + std::to_string(largest) + " points past its " +
                               std::to_string(n) + " vertices");

    const bool hasNormals = mesh.normals.size() == mesh.positions.size();
    const bool hasUvs = mesh.uvs.size() == 2 * n;
    const std::vector<float> computed =
        hasNormals ? std::vector<float>() : stageload::smoothNormals(mesh.positions, mesh.indices);
    const std::vector<float>& normals = hasNormals ? mesh.normals : computed;
    pendingVertices_.assign(n * kFloatsPerVertex, 0.0f);
    float* out = pendingVertices_.data();
    for (std::size_t i = 0; i < n; ++i, out += kFloatsPerVertex) {
        std::copy_n(&mesh.positions[3 * i], 3, out);
        std::copy_n(&normals[3 * i], 3, out + 3);
        if (hasUvs) std::copy_n(&mesh.uvs[2 * i], 2, out + 6);
    }
    pendingIndices_ = mesh.indices;
    pendingTexture_ = usableTexture(mesh.texture);
    uploadPending_ = true;

    vertexCount_ = int(n);
    triangleCount_ = int(mesh.triangleCount());
    hasTexture_ = !pendingTexture_.empty();
    bounds_ = stageload::meshBounds(mesh.positions);
    camera_.frame(bounds_);
    buildGrid();
    requestFrame();
    emit meshChanged();
}

void MeshView::clearMesh() {
    pendingVertices_ = {};
    pendingIndices_ = {};
    pendingTexture_ = {};
    uploadPending_ = true;  // empties the GPU buffers at the next paint
    vertexCount_ = triangleCount_ = 0;
    hasTexture_ = false;
    gridLines_.clear();
    gridPending_ = true;
    requestFrame();
    emit meshChanged();
}

void MeshView::setShadingMode(ShadingMode mode) {
    if (mode == mode_) return;
    mode_ = mode;
    requestFrame();
    emit shadingModeChanged(mode);
}

void MeshView::resetView() {
    camera_.reset();
    moving_ = false;  // a jump to a still pose: render it smooth at once
    settle_.stop();
    requestFrame();
}

void MeshView::buildGrid() {
    // Lines every power of ten that gives 6 to 60 cells a side, 3 radii around the centre, on
    // y = 0 or under the mesh when it reaches below 0.
    const float radius = camera_.radius();
    const float step = std::pow(10.0f, std::floor(std::log10(radius / 2.0f)));
    const int cells = std::max(1, int(std::ceil(3.0f * radius / step)));
    const float cx = std::round(0.5f * (bounds_[0] + bounds_[3]) / step) * step;
    const float cz = std::round(0.5f * (bounds_[2] + bounds_[5]) / step) * step;
    gridY_ = std::min(0.0f, bounds_[1]);
    gridExtent_ = cells * step;
    gridLines_.clear();
    for (int i = -cells; i <= cells; ++i) {
        const float o = i * step;
        gridLines_.insert(gridLines_.end(),
                          {cx + o, gridY_, cz - gridExtent_, cx + o, gridY_, cz + gridExtent_,
                           cx - gridExtent_, gridY_, cz + o, cx + gridExtent_, gridY_, cz + o});
    }
    gridPending_ = true;
}

// --- Mouse and keys -----------------------------------------------------------------------------

void MeshView::cameraMoved() {
    moving_ = true;
    settle_.start();
    requestFrame();
}

void MeshView::mousePressEvent(QMouseEvent* event) {
    lastMouse_ = event->position();
    event->accept();
}

void MeshView::mouseMoveEvent(QMouseEvent* event) {
    const QPointF delta = event->position() - lastMouse_;
    lastMouse_ = event->position();
    const auto buttons = event->buttons();
    const bool shift = event->modifiers() & Qt::ShiftModifier;
    if ((buttons & Qt::LeftButton) && !shift) {
        camera_.orbit(float(delta.x()), float(delta.y()));
    } else if (buttons & (Qt::LeftButton | Qt::RightButton | Qt::MiddleButton)) {
        camera_.pan(float(delta.x()), float(delta.y()));
    } else {
        return;
    }
    event->accept();
    cameraMoved();
}

void MeshView::mouseDoubleClickEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return QWidget::mouseDoubleClickEvent(event);
    resetView();
    event->accept();
}

void MeshView::wheelEvent(QWheelEvent* event) {
    // 120 units = one notch; touchpads send smaller deltas, which zoom proportionally.
    const float steps = float(event->angleDelta().y()) / 120.0f;
    if (steps == 0.0f) return QWidget::wheelEvent(event);
    camera_.zoom(steps);
    event->accept();
    cameraMoved();
}

void MeshView::keyPressEvent(QKeyEvent* event) {
    if (event->key() != Qt::Key_F || event->modifiers() & ~Qt::KeypadModifier)
        return QWidget::keyPressEvent(event);
    resetView();
    event->accept();
}

}  // namespace stageload::view
