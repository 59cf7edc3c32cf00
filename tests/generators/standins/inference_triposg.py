"""Stand-in for TripoSG's scripts/inference_triposg.py, run as `python -m scripts.inference_triposg`
in its checkout: --image-input X --output-path Y.glb --seed 42 --num-inference-steps 50
--guidance-scale 7.0 --faces -1. argparse (exit 2); a diffusers bar with no description.
"""
import argparse
import os
import sys

import standin_common as sc


def main():
    p = argparse.ArgumentParser(prog="inference_triposg.py")
    p.add_argument("--image-input", required=True)
    p.add_argument("--output-path", default="./output.glb")
    p.add_argument("--seed", type=int, default=42)
    p.add_argument("--num-inference-steps", type=int, default=50)
    p.add_argument("--guidance-scale", type=float, default=7.0)
    p.add_argument("--faces", type=int, default=-1)
    a = p.parse_args()
    if not os.path.isfile(a.image_input):
        print(f"FileNotFoundError: {a.image_input}", file=sys.stderr, flush=True)
        return 1
    sc.Held().load("triposg", 4)
    sc.bar("", min(a.num_inference_steps, 10))
    sc.write_glb(a.output_path, a.seed)
    sc.say(f"Mesh saved to {a.output_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
