#pragma once
// The 3D view: shows one TexturedMesh with an orbit camera over a dark grey gradient and a faint
// ground grid. Textured, clay, normals and wireframe shading. Mouse: left-drag orbits,
// right/middle-drag or Shift+left-drag pans, the wheel zooms, a double-click or F resets.
//
//   stageload::ui::useDefaultGlFormat();          // before QApplication (OpenGL 3.3 core)
//   QApplication app(argc, argv);
//   stageload::ui::MeshView view;
//   view.setMesh(stageload::readMeshFile("hero.glb"));
//   view.setShadingMode(stageload::ui::ShadingMode::Clay);
//   view.show();
//
// The mesh goes to the GPU at the next paint (one interleaved vertex buffer, one uint32 index
// buffer, one texture); the widget keeps no CPU copy of it afterwards. If the GL context is
// lost (reparenting to another window), the buffers are read back first and uploaded again to
// the new context. GUI thread only, like every widget.

#include <array>
#include <memory>
#include <vector>

#include <QColor>
#include <QOpenGLFunctions_3_3_Core>
#include <QOpenGLWidget>

#include "engine/mesh/mesh.h"
#include "ui/view/orbit_camera.h"

class QOpenGLShaderProgram;

namespace stageload::ui {

enum class ShadingMode {
    Textured,   ///< texture × headlight; without a texture, the clay look
    Clay,       ///< light grey, headlight lambert + a little rim
    Normals,    ///< world-space normal → RGB (x → red, y → green, z → blue)
    Wireframe,  ///< faint clay + triangle edges
};

class MeshView : public QOpenGLWidget, protected QOpenGLFunctions_3_3_Core {
    Q_OBJECT

public:
    static constexpr int kSamples = 4;  ///< multisampling of the view's framebuffer

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

    /// Why nothing but the background is drawn ("" when OpenGL works): no OpenGL 3.3 core
    /// context (useDefaultGlFormat() not called before QApplication?) or a shader that did not
    /// compile.
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
    void shadingModeChanged(stageload::ui::ShadingMode mode);

protected:
    bool event(QEvent* event) override;
    void initializeGL() override;
    void resizeGL(int w, int h) override;
    void paintGL() override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    static constexpr int kFloatsPerVertex = 8;  ///< position xyz, normal xyz, uv

    /// The context is about to go: read the mesh back (unless the widget itself is going),
    /// then delete every GL object. Connected to QOpenGLContext::aboutToBeDestroyed.
    void releaseGl();
    void deleteGlObjects();
    void readBack();
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

    // GL objects (0 = none), valid in the current context only.
    bool glReady_ = false, destroying_ = false;
    QString glProblem_;
    std::unique_ptr<QOpenGLShaderProgram> meshProgram_, backgroundProgram_, gridProgram_;
    GLuint meshVao_ = 0, vertexBuffer_ = 0, indexBuffer_ = 0, texture_ = 0;
    GLuint gridVao_ = 0, gridBuffer_ = 0, backgroundVao_ = 0;
    GLsizei gpuIndexCount_ = 0, gridVertexCount_ = 0;
    int textureWidth_ = 0, textureHeight_ = 0, textureChannels_ = 0;

    QPointF lastMouse_;
    int samples_ = 0;  ///< multisampling asked for at construction (kSamples)
};

}  // namespace stageload::ui
