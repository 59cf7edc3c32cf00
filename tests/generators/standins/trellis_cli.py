#!/usr/bin/env python3
"""Stand-in for trellis.cpp's trellis-cli (v0.5): its hand-written parser and its lines.

trellis-cli IMAGE OUT.glb -m MODELS -s SEED --res 512|1024|1536 --atlas N [--tex-res 512|1024]
[--gpu N] ... Unknown options are an error (exit 1), -h exits 0; the default models folder is the
author's own path, so without -m it fails. Each stage "loads" its GGUF files (memory of a
thousandth of their size) and frees them; the flow steps print one line each on a pipe.
"""
import os
import sys
import time

import standin_common as sc

VALUED = {"-i": "image", "--image": "image", "-o": "output", "--output": "output",
          "-m": "models", "--models": "models", "-s": "seed", "--seed": "seed", "--res": "res",
          "--atlas": "atlas", "--tex": "atlas", "--tex-res": "tex_res", "--gpu": "gpu",
          "--bg-removal": "bg_removal", "--decim": "decim"}
SWITCHES = {"--require-gpu", "--no-texture", "--xatlas", "--box-uv", "--f32", "--no-fa"}


def die(message):
    print(f"error: {message}", file=sys.stderr, flush=True)
    sys.exit(1)


def parse(argv):
    o = {"output": "model.glb", "models": "models/trellis2", "seed": "42", "res": "1024",
         "tex_res": "1024", "gpu": "0", "bg_removal": "birefnet"}
    bare = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            print("usage: trellis-cli IMAGE [OUT.glb] -m MODELS [-s SEED] [--res 512|1024|1536] ...")
            sys.exit(0)
        if a in VALUED:
            if i + 1 >= len(argv):
                die(f"missing value for {a}")
            o[VALUED[a]] = argv[i + 1]
            i += 2
            continue
        if a in SWITCHES:
            o[a] = True
        elif a.startswith("-"):
            die(f"unknown argument: {a}")
        else:
            bare.append(a)
        i += 1
    if len(bare) > 2:
        die(f"unexpected argument: {bare[2]}")
    if bare:
        o["image"] = bare[0]
    if len(bare) > 1:
        o["output"] = bare[1]
    if "image" not in o:
        die("no input image (trellis-cli IMAGE [OUT.glb])")
    if o["res"] not in ("512", "1024", "1536") or o["tex_res"] not in ("512", "1024"):
        die("--res must be 512, 1024 or 1536 and --tex-res 512 or 1024")
    if o["bg_removal"] not in ("threshold", "birefnet"):
        die("--bg-removal must be threshold or birefnet")
    for key in ("seed", "atlas", "gpu"):
        if key in o and not o[key].lstrip("-").isdigit():
            die(f"--{key}: not a number: {o[key]}")
    if not o["output"].endswith(".glb"):
        die(f"output must be .glb: {o['output']}")
    return o


def load(held, models, names):
    for name in names:
        path = os.path.join(models, name)
        if not os.path.isfile(path):
            die(f"cannot open {path}")
        held.load(name, os.path.getsize(path) / 1000 / sc.MIB)


def flow(steps):
    started = time.monotonic()
    for i in range(1, steps + 1):
        time.sleep(sc.STEP_SECONDS)
        elapsed = time.monotonic() - started
        filled = "#" * (20 * i // steps)
        sc.say(f"      [flow] [{filled:.<20}]  {i}/{steps}   {elapsed:.1f}s  ~{elapsed / i * (steps - i):.0f}s left")


def main():
    o = parse(sys.argv[1:])
    if not os.path.isdir(o["models"]):
        die(f"models folder not found: {o['models']}")
    seed = int(o["seed"])
    auto = seed == 0
    print(f"[trellis] generating model with seed {seed or 123}{' (auto)' if auto else ''}",
          file=sys.stderr, flush=True)
    held, models, res = sc.Held(), o["models"], o["res"]
    started = time.monotonic()
    sc.say(f"[1/6] preprocess {os.path.basename(o['image'])} (BiRefNet bg removal, {res} cascade)")
    load(held, models, ["birefnet.gguf"])
    held.release("birefnet.gguf")
    sc.say("[2/6] DINOv3 conditioning")
    load(held, models, ["dinov3.gguf"])
    sc.say("[3/6] sparse-structure flow + decode")
    load(held, models, ["ss_flow.gguf", "ss_dec.gguf"])
    flow(6)
    held.release("ss_flow.gguf")
    held.release("ss_dec.gguf")
    sc.say(f"[4/7] shape SLAT flow ({res} cascade)")
    load(held, models, ["shape_flow_512.gguf"])
    flow(8)
    held.release("shape_flow_512.gguf")
    sc.say(f"[5/7] FlexiDualGrid shape decode -> mesh @res{res}")
    load(held, models, ["shape_dec.gguf"])
    held.release("shape_dec.gguf")
    sc.say("[6/7] texture SLAT flow + PBR decode")
    load(held, models, [f"tex_flow_{o['tex_res']}.gguf", "tex_dec.gguf"])
    flow(6)
    held.release("dinov3.gguf")
    out = o["output"]
    sc.say(f"[7/7] write {os.path.basename(out)}")
    sc.write_glb(out, seed, int(o.get("atlas", "2048")))
    stem = out[: -len(".glb")]
    with open(stem + ".ply", "w") as f:
        f.write("ply\nformat ascii 1.0\nelement vertex 0\nend_header\n")
    with open(stem + "_base.png", "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
    sc.say(f"done in {time.monotonic() - started:.1f}s -> {out} (+ {os.path.basename(stem)}.ply)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
