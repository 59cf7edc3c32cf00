#!/usr/bin/env python3
"""Stand-in for TripoSR's run.py (VAST-AI-Research/TripoSR), run in its checkout.

python run.py IMAGE... --output-dir DIR --model-save-format obj|glb --bake-texture
--texture-resolution T [--chunk-size 8192] [--mc-resolution 256] [--device cuda:0]
[--no-remove-bg] [--foreground-ratio 0.85] [--render]. No seed flag. Writes DIR/0/mesh.glb (and
texture.png with --bake-texture); with --no-remove-bg the folder is never made and the export fails.
Log lines as Python's logging prints them.
"""
import argparse
import logging
import os
import sys
import time

import standin_common as sc


def main():
    p = argparse.ArgumentParser(prog="run.py")
    p.add_argument("image", nargs="+")
    p.add_argument("--device", default="cuda:0")
    p.add_argument("--pretrained-model-name-or-path", default="stabilityai/TripoSR")
    p.add_argument("--chunk-size", type=int, default=8192)
    p.add_argument("--mc-resolution", type=int, default=256)
    p.add_argument("--no-remove-bg", action="store_true")
    p.add_argument("--foreground-ratio", type=float, default=0.85)
    p.add_argument("--output-dir", default="output/")
    p.add_argument("--model-save-format", choices=["obj", "glb"], default="obj")
    p.add_argument("--bake-texture", action="store_true")
    p.add_argument("--texture-resolution", type=int, default=2048)
    p.add_argument("--render", action="store_true")
    a = p.parse_args()
    logging.basicConfig(format="%(asctime)s - %(levelname)s - %(message)s", level=logging.INFO)
    logging.info("Initializing model ...")
    sc.Held().load("triposr", 3)
    logging.info("Initializing model finished in 10.00ms.")
    for i, image in enumerate(a.image):
        if not a.no_remove_bg:
            os.makedirs(os.path.join(a.output_dir, str(i)), exist_ok=True)
        logging.info(f"Running image {i + 1}/{len(a.image)} ...")
        logging.info("Running model ...")
        time.sleep(5 * sc.STEP_SECONDS)
        logging.info("Running model finished in 812.33ms.")
        logging.info("Exporting mesh ...")
        folder = os.path.join(a.output_dir, str(i))
        if not os.path.isdir(folder):
            print(f"FileNotFoundError: [Errno 2] No such file or directory: '{folder}/mesh.{a.model_save_format}'",
                  file=sys.stderr, flush=True)
            return 1
        if a.model_save_format == "glb":
            sc.write_glb(os.path.join(folder, "mesh.glb"), 3, a.texture_resolution)
        else:
            with open(os.path.join(folder, "mesh.obj"), "w") as f:
                f.write("v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n")
        if a.bake_texture:
            with open(os.path.join(folder, "texture.png"), "wb") as f:
                f.write(b"\x89PNG\r\n\x1a\n")
        logging.info("Exporting mesh finished in 5.00ms.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
