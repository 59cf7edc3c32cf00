#pragma once
// The 3D view's camera: orbits a target point at a distance (yaw around +Y, pitch up/down),
// pans in the screen plane and zooms by steps. Pure math (QMatrix4x4, no OpenGL), so it is
// tested without a window.
//
//   stageload::view::OrbitCamera camera;
//   camera.setViewport(QSize(800, 600));
//   camera.frame(stageload::meshBounds(mesh.positions));   // the whole mesh in view, from +Z
//   camera.orbit(dx, dy);                                  // mouse deltas in pixels
//   QMatrix4x4 mvp = camera.projection(800.0f / 600.0f) * camera.view();
//   QPointF pixel = camera.project(QVector3D(0, 1, 0));    // where a point lands on screen
//
// Throws nothing. Not thread-safe (one instance per view, GUI thread).

#include <array>

#include <QMatrix4x4>
#include <QPointF>
#include <QSize>
#include <QVector3D>

namespace stageload::view {

class OrbitCamera {
public:
    static constexpr float kFieldOfView = 40.0f;     ///< on the viewport's smaller side, degrees
    static constexpr float kMaxPitch = 89.0f;        ///< |pitch| limit, degrees
    static constexpr float kHomePitch = 10.0f;       ///< frame() looks slightly down on the mesh
    static constexpr float kDegreesPerPixel = 0.4f;  ///< orbit speed
    static constexpr float kZoomPerStep = 0.85f;     ///< distance factor per wheel step (120/8°)
    static constexpr float kMinDistance = 0.05f;     ///< × the framed radius
    static constexpr float kMaxDistance = 20.0f;     ///< × the framed radius

    /// Frames a unit cube at the origin until frame() is called.
    OrbitCamera();

    /// Size of the viewport in pixels: used by pan() and project().
    void setViewport(QSize size);
    QSize viewport() const { return viewport_; }

    /// Fits `bounds` ({minX, minY, minZ, maxX, maxY, maxZ}, as stageload::meshBounds returns):
    /// target at the centre, front view (+Z towards the viewer) tilted kHomePitch down, far
    /// enough that the bounding sphere fits the viewport. This becomes the home that reset()
    /// returns to.
    void frame(const std::array<float, 6>& bounds);
    /// Back to the pose frame() chose.
    void reset();

    /// Turns around the target: `dx` pixels to the right turns the mesh to the right (yaw),
    /// `dy` pixels down tilts it towards the viewer (pitch, clamped to ±kMaxPitch).
    void orbit(float dx, float dy);
    /// Moves the target in the screen plane so that the point under the mouse follows a drag of
    /// (dx, dy) pixels (y down).
    void pan(float dx, float dy);
    /// Positive steps move closer (distance × kZoomPerStep per step), negative farther; the
    /// distance stays within [kMinDistance, kMaxDistance] × the framed radius.
    void zoom(float steps);

    QMatrix4x4 view() const;
    /// Perspective whose smaller field of view (vertical, or horizontal in a tall viewport) is
    /// kFieldOfView, so a framed mesh fits any aspect; near/far planes enclose the framed scene
    /// (4 × its radius around the target) at the current distance.
    QMatrix4x4 projection(float aspect) const;
    /// `world` in viewport pixels for the current viewport: origin at the top-left corner, y
    /// down, pixel (i, j) covers [i, i+1) × [j, j+1). A point behind the camera gives NaNs.
    QPointF project(const QVector3D& world) const;

    QVector3D target() const { return target_; }
    QVector3D eye() const;
    float distance() const { return distance_; }
    float yaw() const { return yaw_; }
    float pitch() const { return pitch_; }
    /// Radius of the framed bounding sphere (world units).
    float radius() const { return radius_; }

private:
    struct Pose {
        QVector3D target;
        float distance = 1.0f, yaw = 0.0f, pitch = 0.0f;
    };
    QSize viewport_{1, 1};
    QVector3D target_;
    float distance_ = 1.0f, yaw_ = 0.0f, pitch_ = 0.0f, radius_ = 1.0f;
    Pose home_;
};

}  // namespace stageload::view
