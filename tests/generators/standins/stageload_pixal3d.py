#!/usr/bin/env python3
"""Stand-in for stageload-pixal3d, the Python stageload library's staged Pixal3D runner.

stageload-pixal3d IMAGE -o OUT.glb --seed S --texture-size T --load staged|eager --trace F
[--port DIR] [--pipeline 1024_cascade]. argparse: errors exit 2 as "stageload-pixal3d: error: ...".
It writes the stageload trace (stage/load/release events, samples of its footprint), prints the
port's tqdm bars and ends with its summary line. Models hold a thousandth of the real sizes.
"""
import argparse
import os
import sys
import threading
import time

import fake_port
import standin_common as sc

# Pixal3D's 1024_cascade plan with the resident sizes (GiB) of the real staged trace.
PLAN = [("preprocess", [("rmbg", 0.824)]), ("camera", [("moge", 0.6)]),
        ("structure", [("ss_flow", 2.529), ("ss_decoder", 0.137)]),
        ("shape_512", [("shape_flow_512", 2.616), ("shape_decoder", 0.883)]),
        ("shape_1024", [("shape_flow_1024", 2.616)]), ("texture", [("texture_flow", 2.616)]),
        ("decode", [("shape_decoder", 0.883), ("texture_decoder", 0.883)]), ("export", [])]
BARS = {"structure": "Sampling sparse structure (proj)", "shape_512": "Sampling shape SLat (proj)",
        "shape_1024": "Sampling HR shape SLat (proj, 1024)", "texture": "Sampling texture SLat (proj)"}


def main():
    p = argparse.ArgumentParser(prog="stageload-pixal3d")
    p.add_argument("image")
    p.add_argument("-o", "--output", required=True)
    p.add_argument("--seed", type=int, default=7)
    p.add_argument("--texture-size", type=int, default=2048)
    p.add_argument("--load", choices=["staged", "eager"], default="staged")
    p.add_argument("--pipeline", choices=["1024_cascade"], default="1024_cascade")
    p.add_argument("--trace")
    p.add_argument("--port")
    a = p.parse_args()
    port = a.port or os.environ.get("PIXAL3D_MAC_DIR") or os.getcwd()
    if not os.path.isfile(os.path.join(port, "generate_mps.py")):
        p.error(f"{port} is not a Pixal3D-mac checkout (no generate_mps.py); give --port")
    if not os.path.isfile(a.image):
        p.error(f"no such image: {a.image}")
    trace_path = a.trace or a.output + ".trace.jsonl"
    trace = fake_port.Trace(trace_path, 0.0, False)
    trace.write({"type": "start", "utc": "2026-12-02T10:00:00+00:00", "interval": 0.5,
                 "tool": "stageload-pixal3d", "load": a.load, "seed": a.seed,
                 "texture_size": a.texture_size})
    stop = threading.Event()
    sampler = threading.Thread(target=fake_port.sampler, args=(trace, stop), daemon=True)
    sampler.start()
    held, started, peak = sc.Held(), time.monotonic(), 0
    models = {name for _, used in PLAN for name, _ in used}
    if a.load == "eager":
        for name, gib in {n: g for _, used in PLAN for n, g in used}.items():
            held.load(name, gib * 1024 / 1000)
            trace.event("load", name, "setup", nbytes=int(gib * 2**30), seconds=0.01)
    for stage, used in PLAN:
        trace.event("stage", stage, stage)
        if a.load == "staged":
            for name in sorted(models - {n for n, _ in used}):
                if name in held.buffers:
                    held.release(name)
                    trace.event("release", name, stage, nbytes=1)
            for name, gib in used:
                if name not in held.buffers:
                    held.load(name, gib * 1024 / 1000)
                    trace.event("load", name, stage, nbytes=int(gib * 2**30), seconds=0.01)
        if stage in BARS:
            sc.bar(BARS[stage], 10)
        peak = max(peak, sum(len(b) for b in held.buffers.values()))
    fake_port.write_atomically(a.output, fake_port.make_glb(a.seed, 4))
    stop.set()
    sampler.join()
    trace.close(partial=False)
    sc.say(f"stageload-pixal3d: {a.output} | {a.load} | peak footprint {peak / 2**30:.1f} GB | "
           f"{time.monotonic() - started:.0f} s | trace {trace_path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
