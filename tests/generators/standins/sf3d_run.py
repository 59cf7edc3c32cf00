#!/usr/bin/env python3
"""Stand-in for stable-fast-3d's run.py (Stability-AI/stable-fast-3d), run in its checkout.

python run.py IMAGE... --output-dir DIR --texture-resolution 1024 --device cuda|mps|cpu
[--foreground-ratio 0.85] [--remesh_option none|triangle|quad] [--target_vertex_count -1]
[--batch_size 1]. No seed flag, no output path: it writes DIR/0/mesh.glb and DIR/0/input.png.
"""
import argparse
import os
import sys

import standin_common as sc


def main():
    p = argparse.ArgumentParser(prog="run.py")
    p.add_argument("image", nargs="+")
    p.add_argument("--device", default="cuda")
    p.add_argument("--pretrained-model", default="stabilityai/stable-fast-3d")
    p.add_argument("--foreground-ratio", type=float, default=0.85)
    p.add_argument("--output-dir", default="output/")
    p.add_argument("--texture-resolution", type=int, default=1024)
    p.add_argument("--remesh_option", choices=["none", "triangle", "quad"], default="none")
    p.add_argument("--target_vertex_count", type=int, default=-1)
    p.add_argument("--batch_size", type=int, default=1)
    a = p.parse_args()
    device = "cpu" if os.environ.get("SF3D_USE_CPU") == "1" else a.device
    sc.say(f"Device used:  {device}")
    held = sc.Held()
    held.load("sf3d", 6)
    for i, image in enumerate(a.image):
        if not os.path.isfile(image):
            print(f"FileNotFoundError: {image}", file=sys.stderr, flush=True)
            return 1
        sc.bar("", 4)
        folder = os.path.join(a.output_dir, str(i))
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, "input.png"), "wb") as f:
            f.write(b"\x89PNG\r\n\x1a\n")
        sc.write_glb(os.path.join(folder, "mesh.glb"), 5, a.texture_resolution)
    sc.say("Peak Memory: 6143.2 MB")
    return 0


if __name__ == "__main__":
    sys.exit(main())
