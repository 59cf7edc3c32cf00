"""Stand-in for Hunyuan3D-2.1's hy3dpaint textureGenPipeline: Hunyuan3DPaintConfig and
Hunyuan3DPaintPipeline as its demo uses them; it writes the textured .obj and a .glb beside it."""
import os

import standin_common as sc


class Hunyuan3DPaintConfig:
    def __init__(self, max_num_view, resolution):
        self.max_num_view, self.resolution = max_num_view, resolution
        self.texture_size = 4096


class Hunyuan3DPaintPipeline:
    def __init__(self, config):
        self.config = config
        self._held = sc.Held()
        self._held.load("hunyuan_paint", 12)

    def __call__(self, mesh_path=None, image_path=None, output_mesh_path=None, use_remesh=True, save_glb=True):
        if not os.path.isfile(mesh_path) or not os.path.isfile(image_path):
            raise FileNotFoundError(f"{mesh_path} or {image_path}")
        output_mesh_path = output_mesh_path or os.path.splitext(mesh_path)[0] + "_textured.obj"
        sc.bar("", self.config.max_num_view)
        with open(output_mesh_path, "w") as f:
            f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
        if save_glb:
            sc.write_glb(os.path.splitext(output_mesh_path)[0] + ".glb", 11, self.config.texture_size)
        return output_mesh_path
