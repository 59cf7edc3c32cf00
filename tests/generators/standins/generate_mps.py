#!/usr/bin/env python3
"""Stand-in for Pixal3D-mac's generate_mps.py, run in its checkout with .venv/bin/python.

generate_mps.py IMAGE --output OUT.glb --seed S --texture-size 512|1024|2048|4096 --device mps|cpu
[--pipeline-type 1024_cascade|1536_cascade] [--model-path] [--fov] [--no-texture] [--steps]
[--save-mesh/--load-mesh]. argparse (exit 2). Its [..] lines on stdout, tqdm bars with their
descriptions on stderr. It expects the environment its README sets (MPS fallback, sdpa).
"""
import argparse
import os
import sys

import standin_common as sc


def main():
    p = argparse.ArgumentParser(prog="generate_mps.py")
    p.add_argument("image")
    p.add_argument("--output", default="output.glb")
    p.add_argument("--model-path", default="TencentARC/Pixal3D")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--fov", type=float, default=-1.0)
    p.add_argument("--pipeline-type", choices=["1024_cascade", "1536_cascade"], default="1024_cascade")
    p.add_argument("--texture-size", type=int, choices=[512, 1024, 2048, 4096], default=2048)
    p.add_argument("--no-texture", action="store_true")
    p.add_argument("--steps", type=int)
    p.add_argument("--save-mesh")
    p.add_argument("--load-mesh")
    p.add_argument("--device", choices=["mps", "cpu"], default="mps")
    a = p.parse_args()
    for var, value in (("PYTORCH_ENABLE_MPS_FALLBACK", "1"), ("ATTN_BACKEND", "sdpa"),
                       ("SPARSE_ATTN_BACKEND", "sdpa")):
        if os.environ.get(var) != value:
            print(f"RuntimeError: {var} must be {value} (see README)", file=sys.stderr, flush=True)
            return 1
    if not os.path.isfile(a.image):
        print(f"FileNotFoundError: {a.image}", file=sys.stderr, flush=True)
        return 1
    out = os.path.splitext(a.output)[0] + ".glb"  # .glb is forced
    held = sc.Held()
    sc.say(f"[Pipeline] Loading from {a.model_path}")
    held.load("pipeline", 4)
    sc.say("[MoGe] Estimating camera parameters...")
    sc.say(f"[Generate] pipeline={a.pipeline_type}, seed={a.seed}")
    for desc in ("Sampling sparse structure (proj)", "Sampling shape SLat (proj)",
                 "Sampling HR shape SLat (proj, 1024)", "Sampling texture SLat (proj)"):
        sc.bar(desc, 8)
    sc.say("[Mesh] 24 vertices, 12 triangles")
    sc.say(f"[Export] Baking PBR textures via native o_voxel ({a.texture_size}x{a.texture_size}, 1 views)...")
    sc.write_glb(out, a.seed, a.texture_size)
    sc.say(f"[Done] GLB saved to {out} ({os.path.getsize(out)} bytes)")
    sc.say("[Timing] Total: 1.2s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
