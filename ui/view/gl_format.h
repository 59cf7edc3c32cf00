#pragma once
// The OpenGL context every QOpenGLWidget of the app gets: OpenGL 3.3 core profile and a 24-bit
// depth buffer. No multisampling: the default format is also the top-level window's, which Qt
// composes with OpenGL whenever any widget in it changes (a chart replot 10+ times a second);
// 4× samples there cost llvmpipe 4× on every frame. MeshView asks for 4× samples for itself
// (MeshView::kSamples). MeshView's shaders are GLSL 330 core, so this must be the
// default before the first widget exists, i.e. before QApplication is constructed:
//
//   int main(int argc, char** argv) {
//       stageload::ui::useDefaultGlFormat();
//       QApplication app(argc, argv);
//       ...
//   }
//
// Throws nothing. Call it once, from the main thread, before QApplication.

namespace stageload::ui {

/// Sets QSurfaceFormat::setDefaultFormat to OpenGL 3.3 core, depth 24, no multisampling.
void useDefaultGlFormat();

}  // namespace stageload::ui
