#!/usr/bin/env python3
"""Stand-in for upstream Pixal3D's inference.py (TencentARC/Pixal3D), run in its checkout.

python inference.py --image X --output Y.glb --seed 42 [--low_vram] --resolution -1|1024|1536.
argparse (exit 2). tqdm bars with TRELLIS's descriptions on stderr.
"""
import argparse
import os
import sys

import standin_common as sc


def main():
    p = argparse.ArgumentParser(prog="inference.py")
    p.add_argument("--image", required=True)
    p.add_argument("--output", required=True)
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--low_vram", action="store_true")
    p.add_argument("--resolution", type=int, choices=[-1, 1024, 1536], default=-1)
    a = p.parse_args()
    if not os.path.isfile(a.image):
        print(f"FileNotFoundError: {a.image}", file=sys.stderr, flush=True)
        return 1
    resolution = a.resolution if a.resolution > 0 else (1024 if a.low_vram else 1536)
    sc.say(f"Loading pipeline (low_vram={a.low_vram}, resolution={resolution})")
    sc.Held().load("pipeline", 4)
    for desc in ("Sampling sparse structure", "Sampling shape SLat", "Sampling HR shape SLat",
                 "Sampling texture SLat"):
        sc.bar(desc, 8)
    sc.write_glb(a.output, a.seed)
    sc.say(f"Saved {a.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
