"""Stand-in for TRELLIS.2's o_voxel.postprocess.to_glb: the keyword arguments its example passes
(nothing else is accepted), an "Extracting GLB" bar, and an object whose export() writes a .glb."""
import standin_common as sc


class _Glb:
    def __init__(self, seed, texture_size):
        self.seed, self.texture_size = seed, texture_size

    def export(self, path, extension_webp=False):
        sc.write_glb(path, self.seed, self.texture_size)


def to_glb(*, vertices, faces, attr_volume, coords, attr_layout, voxel_size, aabb, decimation_target=1000000,
           texture_size=2048, remesh=False, remesh_band=1, remesh_project=0, verbose=False, use_tqdm=False):
    if decimation_target <= 0 or texture_size <= 0:
        raise ValueError("to_glb: decimation_target and texture_size must be positive")
    sc.bar("Extracting GLB", 4)
    return _Glb(len(vertices), texture_size)
