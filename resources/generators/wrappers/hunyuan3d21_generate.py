#!/usr/bin/env python3
"""hunyuan3d21_generate: Hunyuan3D-2.1 from the command line, for Stageload's hunyuan3d-2.1.json.

Tencent-Hunyuan/Hunyuan3D-2.1 ships only a demo with a fixed picture. This wrapper runs its two
pipelines the way the demo does (hy3dshape's Hunyuan3DDiTFlowMatchingPipeline, then hy3dpaint's
Hunyuan3DPaintPipeline), one after the other, freeing the shape pipeline before the paint one
loads (10 GB and 21 GB instead of 29 GB at once), prints a "[stage] NAME" line per stage and
writes a stageload trace.

    python hunyuan3d21_generate.py --checkout ~/Hunyuan3D-2.1 --image hero.png --output hero.glb \\
        --seed 1 --texture-size 2048 --trace hero.trace.jsonl

Exit codes: 0 written; 2 bad arguments or a checkout without Hunyuan3D-2.1; 1 a pipeline failed.
"""
import gc
import os
import shutil
import sys

sys.dont_write_bytecode = True  # no __pycache__ beside an installed script
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import stageload_trace  # noqa: E402  (beside this script)

TOOL = "hunyuan3d21_generate"
# tqdm's descriptions inside the shape pipeline, and the stage each belongs to.
STAGES = [(r"^Diffusion Sampling", "shape"), (r"^Volume Decoding", "shape_decode")]


def parse_args():
    p = stageload_trace.parser(TOOL, __doc__, "Hunyuan3D-2.1", 1234, "tencent/Hunyuan3D-2.1")
    p.add_argument("--steps", type=int, default=50)
    p.add_argument("--max-views", type=int, default=6)
    p.add_argument("--no-texture", action="store_true", help="the shape alone")
    args = p.parse_args()
    stageload_trace.check(p, args, "Hunyuan3D-2.1", "hy3dshape")
    if args.steps < 1 or not 1 <= args.max_views <= 12:
        p.error("--steps must be at least 1 and --max-views 1..12")
    return args


def free(trace, name, torch):
    """Lets go of a pipeline the way the demo's users do between the two, and says so."""
    gc.collect()
    if torch is not None and getattr(torch, "cuda", None) and torch.cuda.is_available():
        torch.cuda.empty_cache()
    trace.event("release", name)


def generate(args, trace, work):
    try:
        import torch
    except ImportError:
        torch = None
    try:
        from torchvision_fix import apply_fix  # the demo's fix for newer torchvision
        apply_fix()
    except ImportError:
        pass

    trace.enter("load_shape")
    with trace.loading("shape_pipeline"):
        from hy3dshape.pipelines import Hunyuan3DDiTFlowMatchingPipeline
        shape_pipeline = Hunyuan3DDiTFlowMatchingPipeline.from_pretrained(args.model)

    trace.enter("shape")
    generator = torch.Generator().manual_seed(args.seed) if torch is not None else None
    mesh = shape_pipeline(image=args.image, num_inference_steps=args.steps, generator=generator)[0]
    shape_file = os.path.join(work, "shape.glb" if args.no_texture else "shape.obj")
    mesh.export(shape_file)
    del shape_pipeline, mesh
    free(trace, "shape_pipeline", torch)

    result = shape_file
    if not args.no_texture:
        trace.enter("load_paint")
        with trace.loading("paint_pipeline"):
            from textureGenPipeline import Hunyuan3DPaintPipeline, Hunyuan3DPaintConfig
            config = Hunyuan3DPaintConfig(max_num_view=args.max_views, resolution=512)
            if hasattr(config, "texture_size"):
                config.texture_size = args.texture_size
            else:
                print(f"{TOOL}: note: this Hunyuan3DPaintConfig has no texture_size; its own is used",
                      file=sys.stderr, flush=True)
            paint_pipeline = Hunyuan3DPaintPipeline(config)

        trace.enter("texture")
        textured = paint_pipeline(mesh_path=shape_file, image_path=args.image,
                                  output_mesh_path=os.path.join(work, "textured.obj"))
        textured = textured if isinstance(textured, str) else os.path.join(work, "textured.obj")
        # It writes a .glb beside the .obj it returns (save_glb defaults to on).
        result = os.path.splitext(textured)[0] + ".glb"
        if not os.path.isfile(result):
            raise FileNotFoundError(f"the paint pipeline wrote no .glb beside {textured}")
        del paint_pipeline
        free(trace, "paint_pipeline", torch)

    trace.enter("export")
    stageload_trace.publish(args.output, lambda tmp: shutil.copyfile(result, tmp))


def main():
    args = parse_args()
    trace = stageload_trace.Trace(args.trace, tool=TOOL, generator="Hunyuan3D-2.1", seed=args.seed,
                                  texture_size=args.texture_size)
    sys.stderr = stageload_trace.StageWatcher(sys.stderr, trace, STAGES)
    checkout = os.path.abspath(args.checkout)
    for folder in ("hy3dpaint", "hy3dshape", ""):  # as the demo's sys.path.insert lines
        sys.path.insert(0, os.path.join(checkout, folder) if folder else checkout)
    work = os.path.join(os.path.dirname(os.path.abspath(args.output)), "hunyuan3d")
    os.makedirs(work, exist_ok=True)
    return stageload_trace.run(TOOL, "Hunyuan3D-2.1", trace, args.output, lambda: generate(args, trace, work))


if __name__ == "__main__":
    sys.exit(main())
