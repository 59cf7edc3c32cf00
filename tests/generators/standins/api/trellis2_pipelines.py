"""Stand-in for TRELLIS.2's trellis2.pipelines: Trellis2ImageTo3DPipeline as its example uses it
(from_pretrained, cuda, run(image, seed=..., pipeline_type=...)[0], mesh.simplify), with the tqdm
descriptions its samplers print."""
import standin_common as sc

PIPELINE_TYPES = ("512", "1024", "1024_cascade", "1536_cascade")


class _Mesh:
    def __init__(self, seed):
        self.seed = seed
        self.vertices, self.faces, self.attrs, self.coords = [0.0] * 9, [0, 1, 2], [1.0], [0]
        self.layout, self.voxel_size = {"base_color": slice(0, 3)}, 1 / 512

    def simplify(self, target):
        if target <= 0:
            raise ValueError("simplify: target must be positive")


class Trellis2ImageTo3DPipeline:
    def __init__(self, name):
        self.name = name
        self._held = sc.Held()
        self._held.load("trellis2", 8)

    @classmethod
    def from_pretrained(cls, path):
        return cls(path)

    def cuda(self):
        return self

    def run(self, image, num_samples=1, seed=42, pipeline_type="1024_cascade", **kwargs):
        if pipeline_type not in PIPELINE_TYPES:
            raise ValueError(f"Invalid pipeline type: {pipeline_type}")
        if not getattr(image, "stand_in_image", False):
            raise TypeError("run() takes a PIL image")
        for desc in ("Sampling sparse structure", "Sampling shape SLat", "Sampling texture SLat"):
            sc.bar(desc, 6)
        return [_Mesh(seed)]
