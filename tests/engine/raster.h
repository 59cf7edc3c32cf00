#pragma once
// A small software renderer: the mesh seen orthographically from the front (looking down −Z),
// textured, with a depth buffer. It makes thumbnails without OpenGL and lets tests compare the
// mesh with the picture it came from (silhouette IoU, colour PSNR).
//
//   auto view = stageload::renderFront(mesh, {x0, y0, x1, y1}, 512, 1024);
//   // view.image: RGBA, alpha 255 where the mesh covers the pixel centre
//   auto onPicture = stageload::renderFront(mesh, pictureBox(*mesh.placement), w, h);

#include <array>

#include "engine/media/mesh.h"

namespace stageload {

struct FrontView {
    Image image;  ///< RGBA: texture colour where covered, alpha 0 elsewhere
};

/// Renders `mesh` so that the rectangle `box` = {left, bottom, right, top} in mesh X/Y fills a
/// `width`×`height` picture; pixel (0, 0) is the top-left corner. Pixel centres are sampled;
/// texture lookups are bilinear. Without a texture, covered pixels are white.
FrontView renderFront(const TexturedMesh& mesh, std::array<float, 4> box, int width, int height);

/// The box that makes renderFront draw the mesh where it lies on the picture it was made from
/// (at the picture's size, `p.width`×`p.height`).
std::array<float, 4> pictureBox(const PicturePlacement& p);

}  // namespace stageload
