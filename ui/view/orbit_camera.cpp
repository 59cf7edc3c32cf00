#include "ui/view/orbit_camera.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace stageload::view {
namespace {

constexpr float kPi = 3.14159265358979f;
float radians(float degrees) {
    return degrees * kPi / 180.0f;
}

/// The vertical field of view (radians) for `aspect`: kFieldOfView on the smaller side.
float verticalFov(float aspect) {
    const float fov = radians(OrbitCamera::kFieldOfView);
    if (!(aspect > 0.0f) || aspect >= 1.0f) return fov;
    return 2.0f * std::atan(std::tan(fov / 2.0f) / aspect);
}

}  // namespace

OrbitCamera::OrbitCamera() {
    frame({-0.5f, -0.5f, -0.5f, 0.5f, 0.5f, 0.5f});
}

void OrbitCamera::setViewport(QSize size) {
    viewport_ = QSize(std::max(1, size.width()), std::max(1, size.height()));
}

void OrbitCamera::frame(const std::array<float, 6>& bounds) {
    const QVector3D lo(bounds[0], bounds[1], bounds[2]), hi(bounds[3], bounds[4], bounds[5]);
    radius_ = std::max(0.5f * (hi - lo).length(), 1e-4f);
    home_.target = 0.5f * (lo + hi);
    // The bounding sphere touches the smaller field of view, plus a small margin.
    home_.distance = 1.05f * radius_ / std::sin(radians(kFieldOfView) / 2.0f);
    home_.yaw = 0.0f;
    home_.pitch = kHomePitch;
    reset();
}

void OrbitCamera::reset() {
    target_ = home_.target;
    distance_ = home_.distance;
    yaw_ = home_.yaw;
    pitch_ = home_.pitch;
}

void OrbitCamera::orbit(float dx, float dy) {
    yaw_ = std::remainder(yaw_ - dx * kDegreesPerPixel, 360.0f);
    pitch_ = std::clamp(pitch_ + dy * kDegreesPerPixel, -kMaxPitch, kMaxPitch);
}

void OrbitCamera::pan(float dx, float dy) {
    const float aspect = float(viewport_.width()) / float(viewport_.height());
    const float perPixel =
        2.0f * distance_ * std::tan(verticalFov(aspect) / 2.0f) / float(viewport_.height());
    const QVector3D forward = (target_ - eye()).normalized();
    const QVector3D right = QVector3D::crossProduct(forward, QVector3D(0, 1, 0)).normalized();
    const QVector3D up = QVector3D::crossProduct(right, forward);
    target_ += (-dx * right + dy * up) * perPixel;
}

void OrbitCamera::zoom(float steps) {
    distance_ = std::clamp(distance_ * std::pow(kZoomPerStep, steps), kMinDistance * radius_,
                           kMaxDistance * radius_);
}

QVector3D OrbitCamera::eye() const {
    const float p = radians(pitch_), y = radians(yaw_);
    return target_ +
           distance_ * QVector3D(std::cos(p) * std::sin(y), std::sin(p), std::cos(p) * std::cos(y));
}

QMatrix4x4 OrbitCamera::view() const {
    QMatrix4x4 m;
    m.lookAt(eye(), target_, QVector3D(0, 1, 0));
    return m;
}

QMatrix4x4 OrbitCamera::projection(float aspect) const {
    // Everything worth drawing lies within 4 radii of the framed centre (the mesh, the grid).
    const float extent = 4.0f * radius_ + (target_ - home_.target).length();
    const float nearPlane = std::max(distance_ - extent, 0.01f * distance_);
    const float farPlane = distance_ + extent;
    QMatrix4x4 m;
    m.perspective(verticalFov(aspect) * 180.0f / kPi, aspect, nearPlane, farPlane);
    return m;
}

QPointF OrbitCamera::project(const QVector3D& world) const {
    const float aspect = float(viewport_.width()) / float(viewport_.height());
    const QVector4D clip = projection(aspect) * view() * QVector4D(world, 1.0f);
    if (clip.w() <= 0.0f) {
        const double nan = std::numeric_limits<double>::quiet_NaN();
        return {nan, nan};
    }
    const double x = clip.x() / clip.w(), y = clip.y() / clip.w();
    return {(x * 0.5 + 0.5) * viewport_.width(), (0.5 - y * 0.5) * viewport_.height()};
}

}  // namespace stageload::view
