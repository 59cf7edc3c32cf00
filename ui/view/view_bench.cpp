// `stageload-view-bench [MESH.glb|.obj] [--size WxH] [--frames N]`: what the 3D view costs.
// Shows MESH (default: a textured sphere of 40 000 triangles, the app's default budget, and one
// of 200 000) at WxH (default 1280x720) and prints the first frame (context, shaders, upload),
// then for each shading mode the mean time of N still frames and of N frames while orbiting
// (render, resolve, read back; default 60 each) with the multisampling each frame had. Needs
// an X server with OpenGL: run it under `xvfb-run -a` on a headless machine.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>

#include "guard/base/error.h"
#include "engine/media/mesh_files.h"
#include "ui/view/mesh_view.h"

using namespace stageload;

namespace {

/// A UV sphere of about `triangles` triangles with a 2048² checker texture.
TexturedMesh sphere(int triangles) {
    const int rings = std::max(4, int(std::sqrt(triangles / 4.0)));
    const int segments = 2 * rings;
    TexturedMesh m;
    m.name = "sphere";
    for (int r = 0; r <= rings; ++r)
        for (int s = 0; s <= segments; ++s) {
            const float v = float(r) / rings, u = float(s) / segments;
            const float theta = v * float(M_PI), phi = u * 2.0f * float(M_PI);
            const float x = std::sin(theta) * std::cos(phi), y = std::cos(theta),
                        z = std::sin(theta) * std::sin(phi);
            m.positions.insert(m.positions.end(), {x, y, z});
            m.normals.insert(m.normals.end(), {x, y, z});
            m.uvs.insert(m.uvs.end(), {u, v});
        }
    for (int r = 0; r < rings; ++r)
        for (int s = 0; s < segments; ++s) {
            const auto a = std::uint32_t(r * (segments + 1) + s), b = a + 1,
                       c = a + std::uint32_t(segments + 1), d = c + 1;
            m.indices.insert(m.indices.end(), {a, c, b, b, c, d});
        }
    m.texture = Image(2048, 2048, 3);
    for (int y = 0; y < 2048; ++y)
        for (int x = 0; x < 2048; ++x) {
            const bool dark = ((x / 128) + (y / 128)) % 2 != 0;
            std::uint8_t* p = &m.texture.pixels[(std::size_t(y) * 2048 + x) * 3];
            p[0] = dark ? 60 : 220;
            p[1] = dark ? 90 : 200;
            p[2] = dark ? 140 : 160;
        }
    return m;
}

double ms(const QElapsedTimer& t) { return double(t.nsecsElapsed()) / 1e6; }

void measure(const TexturedMesh& mesh, QSize size, int frames) {
    view::MeshView view;
    view.resize(size);
    QElapsedTimer timer;
    timer.start();
    view.setMesh(mesh);
    const QImage first = view.grabFramebuffer();
    std::printf("%s, %zu triangles at %dx%d: first frame %.1f ms%s%s\n", mesh.name.c_str(),
                mesh.triangleCount(), size.width(), size.height(), ms(timer),
                view.glProblem().isEmpty() ? "" : ", OpenGL problem: ",
                qPrintable(view.glProblem()));
    const char* names[] = {"textured", "clay", "normals", "wireframe"};
    for (int mode = 0; mode < 4; ++mode) {
        view.setShadingMode(view::ShadingMode(mode));
        view.grabFramebuffer();
        timer.restart();
        for (int i = 0; i < frames; ++i) {
            view.resetView();
            view.grabFramebuffer();
        }
        const double still = ms(timer) / frames;
        const int stillSamples = view.frameSamples();
        timer.restart();
        for (int i = 0; i < frames; ++i) {
            // An orbit step the way a drag gives it, then the frame the next paint would show.
            QMouseEvent press(QEvent::MouseButtonPress, QPointF(0, 0), QPointF(0, 0),
                              Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
            QMouseEvent move(QEvent::MouseMove, QPointF(4, 0), QPointF(4, 0), Qt::NoButton,
                             Qt::LeftButton, Qt::NoModifier);
            QApplication::sendEvent(&view, &press);
            QApplication::sendEvent(&view, &move);
            view.grabFramebuffer();
        }
        const double moving = ms(timer) / frames;
        std::printf("  %-9s still %6.1f ms (%dx), orbiting %6.1f ms (%dx): %.0f frames/s\n",
                    names[mode], still, stillSamples, moving, view.frameSamples(), 1000.0 / moving);
    }
}

}  // namespace

int main(int argc, char** argv) {
    QApplication app(argc, argv);
    std::string path;
    QSize size(1280, 720);
    int frames = 60;
    for (int i = 1; i < argc; ++i) {
        const std::string arg = argv[i];
        if (arg == "--size" && i + 1 < argc) {
            int w = 0, h = 0;
            if (std::sscanf(argv[++i], "%dx%d", &w, &h) != 2 || w < 1 || h < 1 || w > 8192 ||
                h > 8192) {
                std::fprintf(stderr, "stageload-view-bench: --size %s: not WxH (1..8192)\n", argv[i]);
                return 2;
            }
            size = {w, h};
        } else if (arg == "--frames" && i + 1 < argc) {
            frames = std::atoi(argv[++i]);
            if (frames < 1) {
                std::fprintf(stderr, "stageload-view-bench: --frames %s: needs a count of 1 or more\n", argv[i]);
                return 2;
            }
        } else if (!arg.empty() && arg[0] == '-') {
            std::fprintf(stderr, "usage: stageload-view-bench [MESH.glb|.obj] [--size WxH] [--frames N]\n");
            return 2;
        } else {
            path = arg;
        }
    }
    try {
        if (!path.empty()) {
            measure(readMeshFile(path), size, frames);
        } else {
            measure(sphere(40000), size, frames);
            measure(sphere(200000), size, frames);
        }
    } catch (const Error& e) {
        std::fprintf(stderr, "stageload-view-bench: %s\n", e.what());
        return 1;
    }
    return 0;
}
