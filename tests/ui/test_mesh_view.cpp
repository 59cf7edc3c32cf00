// The 3D view (ui/view) under Xvfb: what the widget draws is checked on grabbed frames against
// where OrbitCamera says the mesh is (silhouette, shading modes, texture colours, reset after
// mouse orbit/pan/zoom, clearing), the panel opening .obj/.glb files and reporting bad ones, and
// the camera's math on its own.
#include <cmath>
#include <fstream>

#include <limits>

#include <QApplication>
#include <QComboBox>
#include <QElapsedTimer>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QSignalSpy>
#include <QTemporaryDir>
#include <QWheelEvent>
#include <QtTest>

#include "engine/media/mesh.h"
#include "engine/media/mesh_files.h"
#include "ui/view/mesh_panel.h"
#include "ui/view/mesh_view.h"
#include "ui/view/orbit_camera.h"
#include "tests/mesh_support.h"
#include "tests/suite_program.h"

using namespace stageload;
using namespace stageload::view;

// The suite's own names: its program compiles it in one source with other suites.
namespace test_mesh_view {

namespace {

constexpr int kWidth = 320, kHeight = 240;
constexpr int kTolerance = 40;  // a pixel this close to the background is background

// A box standing on y = 0 (0.8 wide, 1.2 high, 0.3 deep), each face with its own UVs over the
// whole texture: left half red, right half blue.
TexturedMesh texturedBox() {
    return testmesh::box({-0.4f, 0.0f, -0.15f}, {0.4f, 1.2f, 0.15f}, {0.0f, 0.0f}, {1.0f, 1.0f},
                         testmesh::halves(16, 16, {230, 30, 30}, {30, 30, 230}));
}

// A wavy sheet of `n` × `n` vertices: 2 (n-1)² triangles.
TexturedMesh sheet(int n) {
    TexturedMesh m;
    m.name = "sheet";
    for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) {
            const float u = float(i) / float(n - 1), v = float(j) / float(n - 1);
            m.positions.insert(
                m.positions.end(),
                {u - 0.5f, 1.0f - v, 0.05f * std::sin(12.0f * u) * std::cos(9.0f * v)});
            m.uvs.insert(m.uvs.end(), {u, v});
        }
    for (int j = 0; j + 1 < n; ++j)
        for (int i = 0; i + 1 < n; ++i) {
            const auto a = std::uint32_t(j * n + i), b = a + 1, c = a + std::uint32_t(n), d = c + 1;
            m.indices.insert(m.indices.end(), {a, c, b, b, c, d});
        }
    return m;  // no normals, no texture: the view computes the one and shows clay for the other
}

QVector3D centreOf(const TexturedMesh& m) {
    const auto b = meshBounds(m.positions);
    return {0.5f * (b[0] + b[3]), 0.5f * (b[1] + b[4]), 0.5f * (b[2] + b[5])};
}

QImage render(MeshView& view) {
    return view.grabFramebuffer().convertToFormat(QImage::Format_RGB32);
}

int channelDistance(QColor a, QColor b) {
    return std::max({std::abs(a.red() - b.red()), std::abs(a.green() - b.green()),
                     std::abs(a.blue() - b.blue())});
}

bool isBackground(const QImage& image, int x, int y, int tolerance = kTolerance) {
    const QColor expected = MeshView::backgroundColor((y + 0.5) / image.height());
    return channelDistance(image.pixelColor(x, y), expected) <= tolerance;
}

bool isBackground(const QImage& image, QPointF p) {
    return isBackground(image, int(std::floor(p.x())), int(std::floor(p.y())));
}

int foregroundCount(const QImage& image) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) n += !isBackground(image, x, y);
    return n;
}

bool dominant(QColor c, int channel) {
    const int v[3] = {c.red(), c.green(), c.blue()};
    return v[channel] > v[(channel + 1) % 3] + 60 && v[channel] > v[(channel + 2) % 3] + 60;
}

int dominantCount(const QImage& image, int channel) {
    int n = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x) n += dominant(image.pixelColor(x, y), channel);
    return n;
}

/// Largest per-channel difference between two images of the same size.
int maxDifference(const QImage& a, const QImage& b) {
    if (a.size() != b.size()) return 255;
    int d = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            d = std::max(d, channelDistance(a.pixelColor(x, y), b.pixelColor(x, y)));
    return d;
}

int differingPixels(const QImage& a, const QImage& b, int threshold = 30) {
    int n = 0;
    for (int y = 0; y < a.height(); ++y)
        for (int x = 0; x < a.width(); ++x)
            n += channelDistance(a.pixelColor(x, y), b.pixelColor(x, y)) > threshold;
    return n;
}

/// The projected bounding rectangle of the mesh's vertices (viewport pixels).
QRectF projectedBox(const OrbitCamera& camera, const TexturedMesh& m) {
    double x0 = 1e9, y0 = 1e9, x1 = -1e9, y1 = -1e9;
    for (std::size_t i = 0; i < m.vertexCount(); ++i) {
        const auto p =
            camera.project({m.positions[3 * i], m.positions[3 * i + 1], m.positions[3 * i + 2]});
        x0 = std::min(x0, p.x()), y0 = std::min(y0, p.y());
        x1 = std::max(x1, p.x()), y1 = std::max(y1, p.y());
    }
    return QRectF(QPointF(x0, y0), QPointF(x1, y1));
}

void send(QWidget* w, QEvent::Type type, QPointF at, Qt::MouseButton button,
          Qt::MouseButtons buttons, Qt::KeyboardModifiers modifiers = {}) {
    QMouseEvent event(type, at, w->mapToGlobal(at), button, buttons, modifiers);
    QApplication::sendEvent(w, &event);
}

void drag(QWidget* w, QPointF from, QPointF to, Qt::MouseButton button,
          Qt::KeyboardModifiers modifiers = {}) {
    send(w, QEvent::MouseButtonPress, from, button, button, modifiers);
    send(w, QEvent::MouseMove, (from + to) / 2, Qt::NoButton, button, modifiers);
    send(w, QEvent::MouseMove, to, Qt::NoButton, button, modifiers);
    send(w, QEvent::MouseButtonRelease, to, button, Qt::NoButton, modifiers);
}

void wheel(QWidget* w, int notches) {
    const QPointF at(w->width() / 2.0, w->height() / 2.0);
    QWheelEvent event(at, w->mapToGlobal(at), QPoint(), QPoint(0, 120 * notches), Qt::NoButton,
                      Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(w, &event);
}

void writeText(const std::filesystem::path& path, const std::string& text) {
    std::ofstream(path, std::ios::binary) << text;
}

}  // namespace

class TestMeshView : public QObject {
    Q_OBJECT

private:
    std::unique_ptr<MeshView> view_;
    TexturedMesh box_ = texturedBox();
    QTemporaryDir dir_;

    std::filesystem::path file(const char* name) const {
        return std::filesystem::path(dir_.path().toStdString()) / name;
    }

private slots:
    void initTestCase() {
        QVERIFY(dir_.isValid());
        view_ = std::make_unique<MeshView>();
        view_->resize(kWidth, kHeight);
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
        const auto first = render(*view_);
        QVERIFY2(view_->glProblem().isEmpty(), qPrintable(view_->glProblem()));
        QCOMPARE(first.size(), QSize(kWidth, kHeight) * view_->devicePixelRatio());
        QCOMPARE(view_->devicePixelRatio(), 1.0);  // Xvfb: pixels = viewport pixels
    }

    void init() {
        view_->setShadingMode(ShadingMode::Textured);
        view_->setMesh(box_);
    }

    void countsAndSignal() {
        QSignalSpy changed(view_.get(), &MeshView::meshChanged);
        view_->setMesh(box_);
        QCOMPARE(changed.count(), 1);
        QVERIFY(view_->hasMesh());
        QVERIFY(view_->hasTexture());
        QCOMPARE(view_->vertexCount(), 24);
        QCOMPARE(view_->triangleCount(), 12);
    }

    void meshInsideItsProjectedSilhouette() {
        view_->setShadingMode(ShadingMode::Clay);
        const auto image = render(*view_);
        const auto& camera = view_->camera();
        QVERIFY(!isBackground(image, camera.project(centreOf(box_))));
        QVERIFY(!isBackground(image, camera.project({0.0f, 0.6f, 0.15f})));  // front face
        for (auto [x, y] :
             {std::pair{0, 0}, {kWidth - 1, 0}, {0, kHeight - 1}, {kWidth - 1, kHeight - 1}})
            QVERIFY2(isBackground(image, x, y), qPrintable(QString("corner %1,%2").arg(x).arg(y)));
        // Every foreground pixel lies in the projected box of the vertices: GL and the camera
        // agree. The box fills most of it.
        const QRectF box = projectedBox(camera, box_).adjusted(-2, -2, 2, 2);
        int inside = 0, outside = 0;
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if (!isBackground(image, x, y))
                    (box.contains(x + 0.5, y + 0.5) ? inside : outside)++;
        QCOMPARE(outside, 0);
        QVERIFY2(inside > 0.6 * box.width() * box.height(),
                 qPrintable(QString("%1 of %2").arg(inside).arg(box.width() * box.height())));
        QVERIFY(box.width() > kWidth / 5.0 && box.height() > kHeight / 2.0);  // framed, not tiny
    }

    void modesLookDifferent() {
        view_->setShadingMode(ShadingMode::Clay);
        const auto clay = render(*view_);
        view_->setShadingMode(ShadingMode::Normals);
        const auto normals = render(*view_);
        view_->setShadingMode(ShadingMode::Wireframe);
        const auto wire = render(*view_);
        QVERIFY(differingPixels(clay, normals) > 2000);
        const int clayPixels = foregroundCount(clay), wirePixels = foregroundCount(wire);
        QVERIFY2(wirePixels > 100 && wirePixels < clayPixels / 2,
                 qPrintable(QString("wire %1, clay %2").arg(wirePixels).arg(clayPixels)));
        // The edges are where the camera puts them: a front corner is on a line.
        const auto corner = view_->camera().project({-0.4f, 1.2f, 0.15f});
        bool nearLine = false;
        for (int dy = -1; dy <= 1; ++dy)
            for (int dx = -1; dx <= 1; ++dx)
                nearLine |= !isBackground(wire, int(corner.x()) + dx, int(corner.y()) + dy);
        QVERIFY(nearLine);
    }

    void texturedShowsTheTexture() {
        const auto& camera = view_->camera();
        view_->setShadingMode(ShadingMode::Textured);
        const auto textured = render(*view_);
        const auto left = textured.pixelColor(camera.project({-0.2f, 0.6f, 0.15f}).toPoint());
        const auto right = textured.pixelColor(camera.project({0.2f, 0.6f, 0.15f}).toPoint());
        QVERIFY2(dominant(left, 0), qPrintable(left.name()));
        QVERIFY2(dominant(right, 2), qPrintable(right.name()));
        QVERIFY(dominantCount(textured, 0) > 1000);
        QVERIFY(dominantCount(textured, 2) > 1000);
        view_->setShadingMode(ShadingMode::Clay);
        const auto clay = render(*view_);
        QCOMPARE(dominantCount(clay, 0), 0);
        QCOMPARE(dominantCount(clay, 2), 0);
        // Without a texture, Textured is the clay look.
        auto plain = box_;
        plain.texture = {};
        view_->setMesh(plain);
        QVERIFY(!view_->hasTexture());
        view_->setShadingMode(ShadingMode::Textured);
        QVERIFY(maxDifference(render(*view_), clay) <= 1);
    }

    void mouseAndKeysMoveAndReset() {
        const auto home = render(*view_);
        const QPointF mid(kWidth / 2.0, kHeight / 2.0);

        drag(view_.get(), mid, mid + QPointF(60, 20), Qt::LeftButton);  // orbit
        QVERIFY(view_->camera().yaw() != 0.0f);
        QVERIFY(differingPixels(render(*view_), home) > 500);
        QTest::keyClick(view_.get(), Qt::Key_F);
        QVERIFY(maxDifference(render(*view_), home) <= 2);

        drag(view_.get(), mid, mid + QPointF(-50, 30), Qt::LeftButton);
        send(view_.get(), QEvent::MouseButtonDblClick, mid, Qt::LeftButton, Qt::LeftButton);
        QVERIFY(maxDifference(render(*view_), home) <= 2);

        // Pans: the centre follows the mouse (right drag, middle drag, Shift + left drag).
        const QVector3D centre = centreOf(box_);
        const QPointF before = view_->camera().project(centre);
        drag(view_.get(), mid, mid + QPointF(30, -10), Qt::RightButton);
        drag(view_.get(), mid, mid + QPointF(10, 0), Qt::MiddleButton);
        drag(view_.get(), mid, mid + QPointF(-20, 5), Qt::LeftButton, Qt::ShiftModifier);
        const QPointF moved = view_->camera().project(centre) - before;
        QVERIFY2(std::abs(moved.x() - 20) < 0.05 && std::abs(moved.y() + 5) < 0.05,
                 qPrintable(QString("%1, %2").arg(moved.x()).arg(moved.y())));
        QCOMPARE(view_->camera().yaw(), 0.0f);  // panning does not orbit
        const auto panned = render(*view_);
        QVERIFY(!isBackground(panned, view_->camera().project(centre)));
        QVERIFY(differingPixels(panned, home) > 500);

        // Wheel: closer, the mesh grows.
        view_->resetView();
        const float distance = view_->camera().distance();
        const int before_ = foregroundCount(render(*view_));
        wheel(view_.get(), 2);
        QVERIFY(view_->camera().distance() < distance);
        QVERIFY(foregroundCount(render(*view_)) > before_ * 1.3);
        view_->resetView();
        QVERIFY(maxDifference(render(*view_), home) <= 2);
    }

    void movingFramesSkipMultisamplingWhenSlow() {
        const QPointF mid(kWidth / 2.0, kHeight / 2.0);
        const auto restore = qScopeGuard([this] {
            view_->setMultisampleBudget(MeshView::kMultisampleBudgetMs);
            view_->resetView();
        });
        view_->resetView();
        const auto still = render(*view_);
        QCOMPARE(view_->frameSamples(), MeshView::kSamples);  // llvmpipe multisamples

        // A renderer "too slow" for any budget: frames during the drag are plain ...
        view_->setMultisampleBudget(0.0);
        QSignalSpy frames(view_.get(), &MeshView::frameRendered);
        drag(view_.get(), mid, mid + QPointF(40, 0), Qt::LeftButton);
        const auto moving = render(*view_);
        QCOMPARE(view_->frameSamples(), 0);
        // ... and once the camera has been still for kSettleMs the view draws the smooth frame
        // by itself, which differs from the plain one along the edges only.
        frames.clear();
        QTRY_VERIFY_WITH_TIMEOUT(frames.count() >= 1, 5 * MeshView::kSettleMs);
        QCOMPARE(view_->frameSamples(), MeshView::kSamples);
        const auto settled = render(*view_);
        QVERIFY(differingPixels(settled, moving) > 0);
        QVERIFY(differingPixels(settled, moving) < differingPixels(settled, still));

        // A renderer fast enough for the budget keeps multisampling while moving.
        view_->setMultisampleBudget(std::numeric_limits<double>::infinity());
        drag(view_.get(), mid, mid + QPointF(-40, 0), Qt::LeftButton);
        render(*view_);
        QCOMPARE(view_->frameSamples(), MeshView::kSamples);
    }

    void clearMeshShowsOnlyTheBackground() {
        QSignalSpy changed(view_.get(), &MeshView::meshChanged);
        view_->clearMesh();
        QCOMPARE(changed.count(), 1);
        QVERIFY(!view_->hasMesh());
        QCOMPARE(view_->vertexCount(), 0);
        QCOMPARE(view_->triangleCount(), 0);
        const auto image = render(*view_);
        for (int y = 0; y < image.height(); ++y)
            for (int x = 0; x < image.width(); ++x)
                if (!isBackground(image, x, y, 2))
                    QFAIL(qPrintable(QString("pixel %1,%2 is %3")
                                         .arg(x)
                                         .arg(y)
                                         .arg(image.pixelColor(x, y).name())));
        // With a mesh, the ground grid is there but stays below the foreground threshold.
        view_->setMesh(box_);
        view_->setShadingMode(ShadingMode::Clay);
        const auto withGrid = render(*view_);
        int faint = 0;
        for (int y = 0; y < withGrid.height(); ++y)
            for (int x = 0; x < withGrid.width(); ++x)
                faint += !isBackground(withGrid, x, y, 2) && isBackground(withGrid, x, y);
        QVERIFY(faint > 200);
    }

    void largeMeshUploadsQuickly() {
        const auto big = sheet(317);  // 199,712 triangles
        QElapsedTimer timer;
        timer.start();
        view_->setMesh(big);
        const auto image = render(*view_);
        const auto ms = timer.elapsed();
        qInfo("%d triangles: setMesh + first frame in %lld ms (llvmpipe)", view_->triangleCount(),
              static_cast<long long>(ms));
        QCOMPARE(view_->triangleCount(), 2 * 316 * 316);
        QCOMPARE(view_->vertexCount(), 317 * 317);
        QVERIFY(!isBackground(image, view_->camera().project(centreOf(big))));
        QVERIFY2(ms < 5000, "a 200k-triangle mesh must not take seconds to show");
    }

    void reparentingKeepsTheMesh() {
        // Moving the view into another window and back: the mesh, which lives only on the GPU,
        // must still be drawn, texture included (the view's context is its own, not the
        // window's).
        view_->setShadingMode(ShadingMode::Textured);
        const auto before = render(*view_);
        QWidget window;
        window.resize(kWidth, kHeight);
        view_->setParent(&window);
        // Back to a top-level before `window` goes (it would delete the view), even on failure.
        const auto restore = qScopeGuard([this] {
            if (view_->parentWidget()) view_->setParent(nullptr);
        });
        view_->move(0, 0);
        window.show();
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(&window));
        const auto inside = render(*view_);
        QVERIFY(!isBackground(inside, view_->camera().project(centreOf(box_))));
        QVERIFY(maxDifference(inside, before) <= 2);
        view_->setParent(nullptr);
        view_->show();
        QVERIFY(QTest::qWaitForWindowExposed(view_.get()));
        QVERIFY(dominantCount(render(*view_), 0) > 1000);  // texture back too
    }

    void panelOpensObjAndGlb() {
        MeshPanel panel;
        panel.resize(kWidth + 80, kHeight + 60);
        panel.show();
        QVERIFY(QTest::qWaitForWindowExposed(&panel));
        QCOMPARE(panel.statsText(), QString("No mesh"));
        QCOMPARE(render(*panel.view()).isNull(), false);

        writeObj(box_, file("box.obj"));
        QString error;
        QVERIFY2(panel.openFile(QString::fromStdString(file("box.obj").string()), &error),
                 qPrintable(error));
        QCOMPARE(panel.statsText(), QString("24 vertices · 12 triangles"));
        auto image = render(*panel.view());
        QVERIFY(!isBackground(image, panel.view()->camera().project(centreOf(box_))));
        QVERIFY(dominantCount(image, 0) > 500);  // the texture came through the .mtl

        auto big = sheet(40);
        big.normals = smoothNormals(big.positions, big.indices);
        big.texture = box_.texture;
        writeGlb(big, file("sheet.glb"));
        QVERIFY2(panel.openFile(QString::fromStdString(file("sheet.glb").string()), &error),
                 qPrintable(error));
        QCOMPARE(panel.statsText(), QString("1,600 vertices · 3,042 triangles"));
        image = render(*panel.view());
        QVERIFY(!isBackground(image, panel.view()->camera().project(centreOf(big))));

        // Bad files: a message naming the file; what was shown stays.
        writeText(file("broken.obj"), "v 0 0 0\nf 1 2 3\n");
        const auto broken = QString::fromStdString(file("broken.obj").string());
        QVERIFY(!panel.openFile(broken, &error));
        QVERIFY2(error.contains(broken) && error.contains("line 2"), qPrintable(error));
        QCOMPARE(panel.view()->triangleCount(), 3042);
        const auto fbx = QString::fromStdString(file("model.fbx").string());
        QVERIFY(!panel.openFile(fbx, &error));
        QCOMPARE(error, fbx + ": unsupported mesh format, expected .glb, .gltf, .obj or .ply");
        QVERIFY(!panel.openFile(QString::fromStdString(file("gone.glb").string()), &error));
        QVERIFY2(error.contains("gone.glb"), qPrintable(error));
        QVERIFY(!panel.openFile(fbx));  // no error wanted: still false, no crash

        // Without a texture the stats say so.
        auto plain = box_;
        plain.texture = {};
        panel.view()->setMesh(plain);
        QCOMPARE(panel.statsText(), QString("24 vertices · 12 triangles · no texture"));
    }

    void panelModeComboFollowsTheView() {
        MeshPanel panel;
        auto* combo = panel.findChild<QComboBox*>("shadingMode");
        QVERIFY(combo);
        QCOMPARE(combo->count(), 4);
        combo->setCurrentIndex(int(ShadingMode::Normals));
        QCOMPARE(panel.view()->shadingMode(), ShadingMode::Normals);
        panel.view()->setShadingMode(ShadingMode::Wireframe);
        QCOMPARE(combo->currentIndex(), int(ShadingMode::Wireframe));
        panel.view()->clearMesh();
        QCOMPARE(panel.statsText(), QString("No mesh"));
    }

    // --- OrbitCamera on its own -------------------------------------------------------------

    void cameraFramesTheCentre() {
        const std::array<float, 6> bounds{-1.0f, 0.0f, -0.5f, 3.0f, 2.0f, 0.5f};
        const QVector3D centre(1.0f, 1.0f, 0.0f);
        for (const QSize viewport : {QSize(400, 300), QSize(200, 500)}) {
            OrbitCamera camera;
            camera.setViewport(viewport);
            camera.frame(bounds);
            const auto p = camera.project(centre);
            QVERIFY(std::abs(p.x() - viewport.width() / 2.0) < 1e-3);
            QVERIFY(std::abs(p.y() - viewport.height() / 2.0) < 1e-3);
            for (int k = 0; k < 8; ++k) {  // every corner of the box in view
                const auto q = camera.project(
                    {bounds[k & 1 ? 3 : 0], bounds[k & 2 ? 4 : 1], bounds[k & 4 ? 5 : 2]});
                QVERIFY(q.x() > 0 && q.x() < viewport.width());
                QVERIFY(q.y() > 0 && q.y() < viewport.height());
            }
            QCOMPARE(camera.yaw(), 0.0f);
            QVERIFY(camera.eye().z() > centre.z());  // looking at the front (+Z)
        }
    }

    void cameraClampsPitchAndZoom() {
        OrbitCamera camera;
        camera.setViewport({400, 300});
        camera.frame({-1, -1, -1, 1, 1, 1});
        camera.orbit(0, 1e6f);
        QCOMPARE(camera.pitch(), OrbitCamera::kMaxPitch);
        camera.orbit(0, -1e6f);
        QCOMPARE(camera.pitch(), -OrbitCamera::kMaxPitch);
        QVERIFY(!std::isnan(camera.project({0.5f, 0.5f, 0.5f}).x()));  // never degenerate
        camera.zoom(1000);
        QCOMPARE(camera.distance(), OrbitCamera::kMinDistance * camera.radius());
        camera.zoom(-1000);
        QCOMPARE(camera.distance(), OrbitCamera::kMaxDistance * camera.radius());
    }

    void cameraOrbitsPansAndResets() {
        OrbitCamera camera;
        camera.setViewport({400, 300});
        camera.frame({-1, -1, -1, 1, 1, 1});
        const QVector3D front(0, 0, 1);
        const auto home = camera.project(front);
        camera.orbit(40, 0);  // drag right: the mesh turns right, its front moves right
        QVERIFY(camera.project(front).x() > home.x() + 10);
        camera.reset();
        camera.pan(25, -15);  // the target moves with the mouse
        const auto p = camera.project(QVector3D(0, 0, 0));
        QVERIFY(std::abs(p.x() - 225) < 1e-2 && std::abs(p.y() - 135) < 1e-2);
        camera.reset();
        QCOMPARE(camera.project(front), home);
        QVERIFY(std::isnan(camera.project(camera.eye() + (camera.eye() - camera.target())).x()));
    }

    void cleanupTestCase() { view_.reset(); }
};

}  // namespace test_mesh_view

STAGELOAD_SUITE(test_mesh_view, test_mesh_view::TestMeshView)
#include "test_mesh_view.moc"
