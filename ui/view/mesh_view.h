#pragma once
// The 3D view: shows one TexturedMesh with an orbit camera over a dark grey gradient and a faint
// ground grid. Textured, clay, normals and wireframe shading. Mouse: left-drag orbits,
// right/middle-drag or Shift+left-drag pans, the wheel zooms, a double-click or F resets.
//
//   stageload::view::MeshView view;
//   view.setMesh(stageload::readMeshFile("hero.glb"));
//   view.setShadingMode(stageload::view::ShadingMode::Clay);
//   view.show();
//
// A plain QWidget, not a QOpenGLWidget: it renders with its own OpenGL 3.3 core context into an
// offscreen multisampled framebuffer, reads the frame back and paints it as an image. A
// QOpenGLWidget would switch its whole top-level window to OpenGL composition, so every repaint
// of any widget there (a chart replotting 20 times a second) would upload the window as a
// texture and draw it again; on a software rasteriser (Mesa llvmpipe under Xvfb, VMs, remote
// desktops) that held the GUI thread 25-250 ms at a time. Here only a change of the scene or
// of the view's size renders; other repaints draw the kept image.
//
// The mesh goes to the GPU at the next frame (one interleaved vertex buffer, one uint32 index
// buffer, one texture); the view keeps no CPU copy of it afterwards. The context belongs to the
// view, so moving it to another window changes nothing. GUI thread only, like every widget.

#include <array>
#include <memory>
#include <vector>

#include <QColor>
#include <QImage>
#include <QOpenGLFunctions_3_3_Core>
#include <QTimer>
#include <QWidget>

#include "engine/media/mesh.h"
#include "ui/view/orbit_camera.h"

class QOffscreenSurface;
class QOpenGLContext;
class QOpenGLFramebufferObject;
class QOpenGLShaderProgram;

namespace stageload::view {

enum class ShadingMode {
    Textured,   ///< texture × headlight; without a texture, the clay look
    Clay,       ///< light grey, headlight lambert + a little rim
    Normals,    ///< world-space normal → RGB (x → red, y → green, z → blue)
    Wireframe,  ///< faint clay + triangle edges
};

class MeshView : public QWidget, protected QOpenGLFunctions_3_3_Core {
    Q_OBJECT

public:
    static constexpr int kSamples = 4;  ///< multisampling of the offscreen framebuffer
    /// The default of setMultisampleBudget(): 50 frames a second.
    static constexpr double kMultisampleBudgetMs = 20.0;
    /// The camera counts as still this long after the last drag or wheel step.
    static constexpr int kSettleMs = 150;

    explicit MeshView(QWidget* parent = nullptr);
    ~MeshView() override;

    /// Shows `mesh` (copied) and frames the camera on it. Missing normals are computed, missing
    /// UVs are 0; a texture with 1, 3 or 4 channels is used, any other is ignored (clay). A mesh
    /// without triangles is the same as clearMesh(). Throws stageload::Error when an index
    /// points past the vertices or the arrays have the wrong sizes (the view is then unchanged).
    /// Emits meshChanged().
    void setMesh(const stageload::TexturedMesh& mesh);
    /// Shows the background only. Emits meshChanged().
    void clearMesh();

    bool hasMesh() const { return triangleCount_ > 0; }
    int vertexCount() const { return vertexCount_; }
    int triangleCount() const { return triangleCount_; }
    /// The shown mesh has a usable texture (Textured mode shows it rather than clay).
    bool hasTexture() const { return hasTexture_; }

    void setShadingMode(ShadingMode mode);
    ShadingMode shadingMode() const { return mode_; }

    /// Back to the pose that frames the whole mesh (also F and double-click).
    void resetView();
    const OrbitCamera& camera() const { return camera_; }

    /// The frame as shown, rendered now if the scene or the size changed since the last one
    /// (also while the view is hidden). Device pixels: size() × devicePixelRatio(). Without
    /// OpenGL, the background only (see glProblem()).
    QImage grabFramebuffer();

    /// While the camera moves, frames skip multisampling when the last multisampled frame took
    /// longer than `ms` (0: always skip while moving; infinity: never). Still frames always
    /// multisample when the renderer can.
    void setMultisampleBudget(double ms) { multisampleBudgetMs_ = ms; }
    /// Multisampling of the last frame: kSamples, or 0 (moving on a slow renderer, or none
    /// available).
    int frameSamples() const { return frameSamples_; }

    /// Why nothing but the background is drawn ("" when OpenGL works, or before the first
    /// frame): no OpenGL 3.3 core context, no framebuffer of the view's size, or a shader that
    /// did not compile.
    QString glProblem() const { return glProblem_; }

    /// The background at height `fromTop` (0 = top row, 1 = bottom row): a vertical gradient
    /// from #3a3d44 to #1f2024. The grid adds at most 8 % white to it; the mesh is never drawn
    /// in these colours on purpose.
    static QColor backgroundColor(double fromTop);

    QSize sizeHint() const override { return {640, 480}; }
    QSize minimumSizeHint() const override { return {160, 120}; }

signals:
    /// A mesh was set or cleared (counts and hasMesh() changed).
    void meshChanged();
    void shadingModeChanged(stageload::view::ShadingMode mode);
    /// A new frame was rendered (after a change of the scene, the camera or the size).
    void frameRendered();

protected:
    void paintEvent(QPaintEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    static constexpr int kFloatsPerVertex = 8;  ///< position xyz, normal xyz, uv

    /// The scene changed: render a new frame at the next paint (or grabFramebuffer()).
    void requestFrame();
    /// The camera moved by a drag or the wheel: render, and settle after kSettleMs.
    void cameraMoved();
    /// The view's size in device pixels, at least 1×1.
    QSize framePixels() const;
    /// Creates the context and the GL objects once; false (and glProblem_) when it cannot.
    bool ensureGl();
    bool initializeGl();
    /// (Re)creates the framebuffers for `pixels`; false (and glProblem_) when it cannot.
    bool ensureFramebuffers(QSize pixels);
    void renderFrame();
    void drawScene(QSize pixels);
    void deleteGlObjects();
    bool buildPrograms();
    void upload();
    void buildGrid();
    void drawMesh(const QMatrix4x4& mvp, const QMatrix4x4& view);
    void drawGrid(const QMatrix4x4& mvp);

    OrbitCamera camera_;
    ShadingMode mode_ = ShadingMode::Textured;
    int vertexCount_ = 0, triangleCount_ = 0;
    bool hasTexture_ = false;
    std::array<float, 6> bounds_{};

    // What the next paint uploads; emptied once it is on the GPU.
    bool uploadPending_ = false;
    std::vector<float> pendingVertices_;  ///< position, normal, uv: 8 floats a vertex
    std::vector<std::uint32_t> pendingIndices_;
    stageload::Image pendingTexture_;

    // Ground grid (a few hundred vertices, kept): lines at y = gridY_.
    std::vector<float> gridLines_;
    bool gridPending_ = false;
    float gridY_ = 0.0f, gridExtent_ = 1.0f;

    // The view's own context, on an offscreen surface, and what it renders into: a multisampled
    // framebuffer resolved into a plain one, or the plain one directly (frames while moving on a
    // slow renderer; every frame when multisampling is not available). The plain one is read.
    std::unique_ptr<QOffscreenSurface> surface_;
    std::unique_ptr<QOpenGLContext> context_;
    std::unique_ptr<QOpenGLFramebufferObject> msaaFbo_, plainFbo_;
    bool glTried_ = false, glReady_ = false;
    QString glProblem_;
    QImage frame_;  ///< the last frame, RGB32, device pixels
    bool frameDirty_ = true;

    // GL objects (0 = none), in context_.
    std::unique_ptr<QOpenGLShaderProgram> meshProgram_, backgroundProgram_, gridProgram_;
    GLuint meshVao_ = 0, vertexBuffer_ = 0, indexBuffer_ = 0, texture_ = 0;
    GLuint gridVao_ = 0, gridBuffer_ = 0, backgroundVao_ = 0;
    GLsizei gpuIndexCount_ = 0, gridVertexCount_ = 0;
    int textureWidth_ = 0, textureHeight_ = 0, textureChannels_ = 0;

    QPointF lastMouse_;
    int samples_ = kSamples;  ///< 0 once a multisampled framebuffer failed
    int frameSamples_ = 0;
    // The camera is moving (a drag or the wheel, until kSettleMs after the last step).
    bool moving_ = false;
    QTimer settle_;
    double lastMultisampledMs_ = 0.0, multisampleBudgetMs_ = kMultisampleBudgetMs;
};

}  // namespace stageload::view
