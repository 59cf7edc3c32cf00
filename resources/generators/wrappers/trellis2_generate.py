#!/usr/bin/env python3
"""trellis2_generate: TRELLIS.2 from the command line, for Stageload's trellis2.json.

microsoft/TRELLIS.2 ships only example scripts with a fixed picture. This wrapper takes the
picture, output, seed and texture size, calls its Python API the way its example does
(Trellis2ImageTo3DPipeline.from_pretrained, pipeline.run, o_voxel.postprocess.to_glb), prints a
"[stage] NAME" line per stage and writes a stageload trace, so Stageload's chart shows its stages.

    python trellis2_generate.py --checkout ~/TRELLIS.2 --image hero.png --output hero.glb \\
        --seed 1 --texture-size 2048 --trace hero.trace.jsonl

Exit codes: 0 written; 2 bad arguments or a checkout without TRELLIS.2; 1 the pipeline failed.
"""
import os
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside an installed script
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stageload_trace  # noqa: E402  (beside this script)

TOOL = "trellis2_generate"
# tqdm's descriptions inside pipeline.run and to_glb, and the stage each belongs to.
STAGES = [(r"^Sampling sparse structure", "structure"), (r"^Sampling shape SLat", "shape"),
          (r"^Sampling texture SLat", "texture"), (r"^Extracting GLB", "export")]


def parse_args():
    p = stageload_trace.parser(TOOL, __doc__, "TRELLIS.2", 42, "microsoft/TRELLIS.2-4B")
    p.add_argument("--pipeline-type", default="1024_cascade",
                   choices=["512", "1024", "1024_cascade", "1536_cascade"])
    p.add_argument("--decimation-target", type=int, default=1000000)
    args = p.parse_args()
    stageload_trace.check(p, args, "TRELLIS.2", "trellis2")
    return args


def generate(args, trace):
    trace.enter("load")
    with trace.loading("pipeline"):
        from PIL import Image
        from trellis2.pipelines import Trellis2ImageTo3DPipeline
        import o_voxel
        pipeline = Trellis2ImageTo3DPipeline.from_pretrained(args.model)
        if hasattr(pipeline, "cuda"):
            pipeline.cuda()

    trace.enter("preprocess")
    with Image.open(args.image) as image:
        mesh = pipeline.run(image, seed=args.seed, pipeline_type=args.pipeline_type)[0]
    mesh.simplify(16777216)  # nvdiffrast's limit, as the example does

    trace.enter("export")
    glb = o_voxel.postprocess.to_glb(
        vertices=mesh.vertices, faces=mesh.faces, attr_volume=mesh.attrs, coords=mesh.coords,
        attr_layout=mesh.layout, voxel_size=mesh.voxel_size, aabb=[[-0.5, -0.5, -0.5], [0.5, 0.5, 0.5]],
        decimation_target=args.decimation_target, texture_size=args.texture_size, remesh=True, remesh_band=1,
        remesh_project=0, verbose=True)
    stageload_trace.publish(args.output, glb.export)


def main():
    args = parse_args()
    trace = stageload_trace.Trace(args.trace, tool=TOOL, generator="TRELLIS.2", seed=args.seed,
                                  texture_size=args.texture_size, pipeline_type=args.pipeline_type)
    sys.stderr = stageload_trace.StageWatcher(sys.stderr, trace, STAGES)
    sys.path.insert(0, os.path.abspath(args.checkout))
    return stageload_trace.run(TOOL, "TRELLIS.2", trace, args.output, lambda: generate(args, trace))


if __name__ == "__main__":
    sys.exit(main())
