"""Stand-in for Hunyuan3D-2.1's hy3dshape.pipelines: Hunyuan3DDiTFlowMatchingPipeline as its demo
uses it (from_pretrained, pipeline(image=path, ...)[0] a mesh with export()), with its tqdm bars."""
import os

import standin_common as sc


class _Trimesh:
    def __init__(self, seed):
        self.seed = seed

    def export(self, path):
        if path.endswith(".glb"):
            sc.write_glb(path, self.seed)
        elif path.endswith(".obj"):
            with open(path, "w") as f:
                f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
        else:
            raise ValueError(f"export: unknown format {path}")


class Hunyuan3DDiTFlowMatchingPipeline:
    def __init__(self, path):
        self._held = sc.Held()
        self._held.load("hunyuan_shape", 10)

    @classmethod
    def from_pretrained(cls, model_path, **kwargs):
        return cls(model_path)

    def __call__(self, image=None, num_inference_steps=50, generator=None, octree_resolution=384, **kwargs):
        if not isinstance(image, str) or not os.path.isfile(image):
            raise FileNotFoundError(f"image: {image}")
        sc.bar("Diffusion Sampling:", min(num_inference_steps, 8))
        sc.bar("Volume Decoding", 4)
        return [_Trimesh(7)]
