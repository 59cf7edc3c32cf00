# Imports .glb files into Blender (headless) and checks what an artist would: one mesh object
# with UVs and one image texture of the expected size, standing the expected height. Prints one
# line per check, each file's checks after a "file OUT.glb" line; exits 1 on the first failure.
# Several files go to one Blender, which takes a few seconds to start.
#
#   blender -b --factory-startup --python tests/cli/blender_check.py -- OUT.glb [MORE.glb...] 2048 1.8
import sys

import numpy

numpy.bool = bool  # Blender 3.4's glTF importer against Debian's numpy 1.24 (see FACTS.md)
import bpy  # noqa: E402

args = sys.argv[sys.argv.index("--") + 1:]
if len(args) < 3:
    print("usage: blender -b --python blender_check.py -- OUT.glb [MORE.glb...] TEXTURE_SIZE HEIGHT")
    sys.exit(2)
files, texture_size, height = args[:-2], int(args[-2]), float(args[-1])


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        sys.exit(1)


def check_file(glb):
    print(f"file {glb}", flush=True)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    numpy.bool = bool
    bpy.ops.import_scene.gltf(filepath=glb)
    meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
    check(len(meshes) == 1, f"one mesh object (found {len(meshes)})")
    mesh = meshes[0]
    check(len(mesh.data.uv_layers) >= 1, "the mesh has UVs")
    check(len(mesh.data.polygons) > 0, f"{len(mesh.data.polygons)} faces")
    images = [i for i in bpy.data.images if i.size[0] > 0]
    check(len(images) == 1, f"one image texture (found {len(images)})")
    check(tuple(images[0].size) == (texture_size, texture_size),
          f"texture {tuple(images[0].size)} == {(texture_size, texture_size)}")
    uses = [n for m in mesh.data.materials if m and m.use_nodes for n in m.node_tree.nodes
            if n.type == "TEX_IMAGE" and n.image == images[0]]
    check(len(uses) == 1, "the material's base colour uses the texture")
    # glTF is Y-up; Blender is Z-up: the character's height is the object's Z extent.
    zs = [(mesh.matrix_world @ v.co).z for v in mesh.data.vertices]
    check(abs((max(zs) - min(zs)) - height) < 0.01 * height,
          f"height {max(zs) - min(zs):.3f} m == {height} m")
    check(abs(min(zs)) < 1e-3, f"feet at z = {min(zs):.4f}")


for f in files:
    check_file(f)
