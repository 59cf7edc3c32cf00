#pragma once
// A mesh for the stand-in cascade's export stage, so the cascade can run as a generator that
// writes a file like a real one: a closed sphere whose radius follows the last stage's latent
// and whose 4×4 texture is coloured by its fingerprint. Same latents, same mesh (and bytes).
//
//   auto r = stageload::runCascade(p);
//   stageload::writeMeshFile(stageload::cascadeMesh(r), "cascade.glb");

#include "engine/media/mesh.h"
#include "engine/pipelines/cascade/cascade_run.h"

namespace stageload {

/// About 1.8 m tall, feet at 0; an empty result (stopped before any stage) gives a plain sphere.
TexturedMesh cascadeMesh(const CascadeResult& result);

}  // namespace stageload
