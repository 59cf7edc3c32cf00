#!/usr/bin/env python3
"""fake_port: a stand-in for a heavy image-to-3D generator ("port") used by the C++ tests.

From outside it behaves like a real port: it runs named stages that each hold some memory,
prints "[stage] NAME" and tqdm-like progress lines on stdout, writes a stageload JSON Lines
trace and finally a small valid binary glTF (.glb). Flags make it misbehave on purpose
(runaway memory, ignoring SIGTERM, broken traces, bad output, failing exit codes).
Python 3.11 standard library only. See README.md next to this file.
"""
import argparse
import datetime
import gc
import json
import os
import random
import re
import signal
import struct
import subprocess
import sys
import threading
import time
import zlib

MIB = 1024 * 1024
PAGE = 4096
INTERVAL = 0.1                      # seconds between trace samples
T0 = time.monotonic()               # "t" in the trace counts from here


def now():
    return round(time.monotonic() - T0, 3)


def hold(mb):
    """A bytearray of mb MiB with every page written, so it really is resident."""
    buf = bytearray(mb * MIB)
    buf[::PAGE] = b"\x01" * len(range(0, len(buf), PAGE))
    return buf


def log(msg):
    print(f"fake_port: {msg}", file=sys.stderr, flush=True)


# ----------------------------------------------------------------------------------- trace
class Trace:
    """Writes the stageload trace: one compact JSON object per line, flushed per line.

    Lines written before the file exists (--trace-delay) are kept and written when it is
    created, so the finished file is always complete. With --trace-garbage, a junk line is
    written after every third valid line (never before the start line)."""

    GARBAGE = [b"not json", b'{"type":', b"\x00\x01\xfe\xff\x80 binary \xc3\x28",
               b'{"type":"sample","t":1e400,"footprint":1e400,"swap_used":0,"level":50}',
               b"[1,2,3]"]

    def __init__(self, path, delay, garbage):
        self.path, self.garbage = path, garbage
        self.lock = threading.Lock()
        self.file, self.pending, self.count = None, [], 0
        self.opener = threading.Thread(target=self._open_later, args=(delay,), daemon=True)
        self.opener.start()

    def _open_later(self, delay):
        time.sleep(delay)
        os.makedirs(os.path.dirname(os.path.abspath(self.path)), exist_ok=True)
        with self.lock:
            self.file = open(self.path, "wb")
            for data in self.pending:
                self.file.write(data)
            self.file.flush()
            self.pending = None

    def _raw(self, data):               # caller holds the lock
        if self.file is None:
            self.pending.append(data)
        else:
            self.file.write(data)
            self.file.flush()

    def write(self, obj):
        with self.lock:
            self._raw(json.dumps(obj, separators=(",", ":")).encode() + b"\n")
            self.count += 1
            if self.garbage and self.count % 3 == 0 and obj.get("type") != "end":
                self._raw(self.GARBAGE[(self.count // 3 - 1) % len(self.GARBAGE)] + b"\n")

    def event(self, kind, name, stage, **extra):
        self.write({"type": "event", "kind": kind, "name": name, "stage": stage, **extra,
                    "t": now()})

    def close(self, partial):
        self.opener.join()              # the file appears no earlier than --trace-delay
        with self.lock:
            if partial:                 # a line cut off mid-way, no newline, no end line
                self._raw(b'{"type":"sample","t":%.3f,"footprint":12' % now())
            else:
                self._raw(b'{"type":"end"}\n')
            self.file.close()


class NoTrace:
    """Stands in for Trace when --trace is not given."""
    def write(self, obj): pass
    def event(self, *args, **extra): pass
    def close(self, partial): pass


def read_kib(path, *keys):
    """Values (converted to bytes) of 'Key:   N kB' lines in a /proc file."""
    out = dict.fromkeys(keys, 0)
    with open(path) as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in out:
                out[key] = int(rest.split()[0]) * 1024
    return out


def sampler(trace, stop):
    """Background thread: one sample line every INTERVAL seconds until stop is set."""
    deadline = time.monotonic()
    while True:
        rss = read_kib("/proc/self/status", "VmRSS")["VmRSS"]
        m = read_kib("/proc/meminfo", "MemTotal", "MemAvailable", "SwapTotal", "SwapFree")
        trace.write({"type": "sample", "t": now(), "footprint": rss,
                     "swap_used": m["SwapTotal"] - m["SwapFree"],
                     "level": round(100.0 * m["MemAvailable"] / max(m["MemTotal"], 1), 1)})
        deadline = max(deadline + INTERVAL, time.monotonic())   # late (GIL busy): no catch-up
        if stop.wait(deadline - time.monotonic()):
            return


# ------------------------------------------------------------------------------------ glb
def png_rgb(width, height, pixel):
    """A PNG (8-bit RGB, no filtering) whose pixel (x, y) is pixel(x, y) -> (r, g, b)."""
    def chunk(kind, data):
        return (struct.pack(">I", len(data)) + kind + data
                + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))
    rows = b"".join(b"\x00" + bytes(c for x in range(width) for c in pixel(x, y))
                    for y in range(height))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height,
                                                               8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))


def f32(v):
    """v rounded to float32, so accessor min/max equal the stored values exactly."""
    return struct.unpack("<f", struct.pack("<f", v))[0]


def make_glb(seed, texture_size):
    """A textured box (24 vertices, 12 triangles), about 1.8 units tall; same seed, same bytes."""
    rnd = random.Random(seed)
    half = (0.5 * rnd.uniform(0.9, 1.3), 0.9 * rnd.uniform(0.98, 1.02), 0.5 * rnd.uniform(0.6, 1.0))
    # (normal, u, v) with u x v = normal, so corners in (-,-) (+,-) (+,+) (-,+) order are CCW
    X, Y, Z, mX, mY, mZ = (1, 0, 0), (0, 1, 0), (0, 0, 1), (-1, 0, 0), (0, -1, 0), (0, 0, -1)
    faces = [(X, Y, Z), (mX, Z, Y), (Y, Z, X), (mY, X, Z), (Z, X, Y), (mZ, Y, X)]
    pos, nrm, uv, idx = [], [], [], []
    for n, u, v in faces:
        base = len(pos)
        for su, sv in ((-1, -1), (1, -1), (1, 1), (-1, 1)):
            pos.append(tuple(f32((n[i] + su * u[i] + sv * v[i]) * half[i]) for i in range(3)))
            nrm.append(n)
            uv.append(((su + 1) / 2, (1 - sv) / 2))
        idx += [base, base + 1, base + 2, base, base + 2, base + 3]
    c1, c2 = [tuple(rnd.randrange(256) for _ in range(3)) for _ in range(2)]
    png = png_rgb(texture_size, texture_size, lambda x, y: c1 if (x + y) % 2 else c2)

    parts = [b"".join(struct.pack("<3f", *p) for p in pos),
             b"".join(struct.pack("<3f", *n) for n in nrm),
             b"".join(struct.pack("<2f", *t) for t in uv),
             struct.pack(f"<{len(idx)}H", *idx), png]
    views, binary = [], b""
    for i, data in enumerate(parts):
        view = {"buffer": 0, "byteOffset": len(binary), "byteLength": len(data)}
        if i < 4:
            view["target"] = 34962 if i < 3 else 34963   # ARRAY_BUFFER / ELEMENT_ARRAY_BUFFER
        views.append(view)
        binary += data + b"\x00" * (-len(data) % 4)
    gltf = {
        "asset": {"version": "2.0", "generator": "fake_port"},
        "scene": 0, "scenes": [{"nodes": [0]}],
        "nodes": [{"mesh": 0, "name": "fake_port_mesh"}],
        "meshes": [{"primitives": [{"attributes": {"POSITION": 0, "NORMAL": 1, "TEXCOORD_0": 2},
                                    "indices": 3, "material": 0, "mode": 4}]}],
        "materials": [{"name": "fake_port_material", "pbrMetallicRoughness": {
            "baseColorTexture": {"index": 0}, "metallicFactor": 0.0, "roughnessFactor": 1.0}}],
        "textures": [{"sampler": 0, "source": 0}],
        "samplers": [{"magFilter": 9729, "minFilter": 9729, "wrapS": 10497, "wrapT": 10497}],
        "images": [{"bufferView": 4, "mimeType": "image/png"}],
        "accessors": [
            {"bufferView": 0, "componentType": 5126, "count": len(pos), "type": "VEC3",
             "min": [min(p[i] for p in pos) for i in range(3)],
             "max": [max(p[i] for p in pos) for i in range(3)]},
            {"bufferView": 1, "componentType": 5126, "count": len(nrm), "type": "VEC3"},
            {"bufferView": 2, "componentType": 5126, "count": len(uv), "type": "VEC2"},
            {"bufferView": 3, "componentType": 5123, "count": len(idx), "type": "SCALAR"}],
        "bufferViews": views,
        "buffers": [{"byteLength": len(binary)}],
    }
    js = json.dumps(gltf, separators=(",", ":")).encode()
    js += b" " * (-len(js) % 4)
    total = 12 + 8 + len(js) + 8 + len(binary)
    return (struct.pack("<4sII", b"glTF", 2, total) + struct.pack("<II", len(js), 0x4E4F534A)
            + js + struct.pack("<II", len(binary), 0x004E4942) + binary)


def write_atomically(path, data):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(path + ".tmp", "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    os.replace(path + ".tmp", path)


# ------------------------------------------------------------------------------ the stages
def progress(args, i, steps=10):
    if not args.quiet:
        bar = "\u2588" * i + " " * (steps - i)
        print(f"{100 * i // steps:3d}%|{bar}| {i}/{steps}", flush=True)


def start_child(args, name, seconds, trace):
    cmd = [sys.executable, os.path.abspath(__file__), "--as-child", str(args.child_mb), str(seconds)]
    cmd += ["--ignore-sigterm"] * args.ignore_sigterm + ["--child-setsid"] * args.child_setsid
    child = subprocess.Popen(cmd, stdin=subprocess.DEVNULL)   # same process group by default
    trace.event("mark", "", name, note="child started", pid=child.pid)
    return child


def run_stages(args, trace):
    held, prev, runaway_at = None, None, max(0, len(args.stages) - 2)
    for k, (name, mb, seconds) in enumerate(args.stages):
        if not args.quiet:
            print(f"[stage] {name}", flush=True)
        trace.event("stage", name, name)
        if held is not None:                 # drop the previous stage's "model"
            nbytes = len(held)
            held = None
            gc.collect()
            trace.event("release", f"{prev}_model", name, nbytes=nbytes)
        if mb > 0:
            t = time.monotonic()
            held = hold(mb)
            trace.event("load", f"{name}_model", name, nbytes=len(held),
                        seconds=round(time.monotonic() - t, 3))
        log(f"{name} holds {mb} MiB")
        prev = name
        child = start_child(args, name, seconds, trace) if name == args.child_stage else None
        progress(args, 0)
        if args.runaway and k == runaway_at:
            log(f"{name} runs away: +64 MiB every 0.1 s until killed")
            hog, deadline = [], time.monotonic()
            while True:
                try:
                    hog.append(hold(64))
                except MemoryError:
                    pass
                deadline = max(deadline + 0.1, time.monotonic())
                time.sleep(max(0.0, deadline - time.monotonic()))
        for i in range(1, 11):
            time.sleep(seconds / 10)
            progress(args, i)
        if child is not None:
            child.wait()
    if held is not None:                     # the last stage's memory goes before the output
        nbytes, held = len(held), None
        gc.collect()
        trace.event("release", f"{prev}_model", prev, nbytes=nbytes)


def as_child(mb, seconds, setsid):
    """Hidden --as-child mode: hold mb MiB for the given seconds, then exit."""
    if setsid:
        os.setsid()
    buf = hold(mb)
    log(f"child {os.getpid()} holds {mb} MiB for {seconds} s")
    time.sleep(seconds)
    del buf
    return 0


def parse_args():
    p = argparse.ArgumentParser(prog="fake_port", description=__doc__.splitlines()[0])
    p.add_argument("--image", help="input image (must exist)")
    p.add_argument("--out", help="output .glb")
    p.add_argument("--trace", help="stageload JSON Lines trace to write")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--texture-size", type=int, default=4, help="PNG side in pixels (1..1024)")
    p.add_argument("--stages", default="preprocess:50,shape:200,texture:120,export:30",
                   help="comma-separated NAME:MiB[:SECONDS] held during each stage, for "
                        "SECONDS (default: --stage-seconds)")
    p.add_argument("--stage-seconds", type=float, default=0.4)
    p.add_argument("--child-stage", help="stage during which a child process runs")
    p.add_argument("--child-mb", type=int, default=150)
    p.add_argument("--trace-delay", type=float, default=0.0, help="create the trace this late")
    p.add_argument("--exit-code", type=int, default=0, help="exit status after the stages")
    for flag, text in (
            ("--runaway", "last-but-one stage: +64 MiB every 0.1 s until killed"),
            ("--ignore-sigterm", "parent and child ignore SIGTERM"),
            ("--child-setsid", "the child leaves the process group (setsid)"),
            ("--trace-partial", "end the trace with a cut-off line and no end line"),
            ("--trace-garbage", "put junk lines among the trace lines"),
            ("--no-output", "write no output"), ("--bad-output", "write junk as the output"),
            ("--half-output", "write only the first half of the .glb, in place (a crash mid-write)"),
            ("--quiet", "nothing on stdout")):
        p.add_argument(flag, action="store_true", help=text)
    p.add_argument("--as-child", nargs=2, type=float, metavar=("MB", "SECONDS"),
                   help=argparse.SUPPRESS)
    args = p.parse_args()
    if args.as_child:
        return args
    if not args.image or not args.out:
        p.error("--image and --out are required")
    stages = []
    for item in args.stages.split(","):
        m = re.fullmatch(r"\s*([A-Za-z0-9_]+):(\d+)(?::(\d+(?:\.\d+)?))?\s*", item)
        if not m:
            p.error(f"bad --stages item {item!r} (want NAME:MiB or NAME:MiB:SECONDS)")
        stages.append((m.group(1), int(m.group(2)),
                       float(m.group(3)) if m.group(3) else args.stage_seconds))
    args.stages = stages
    if args.child_stage and args.child_stage not in [s for s, _, _ in stages]:
        p.error(f"--child-stage {args.child_stage!r} is not one of the stages")
    if not 0 <= args.exit_code <= 255 or not 1 <= args.texture_size <= 1024:
        p.error("--exit-code must be 0..255 and --texture-size 1..1024")
    if min(args.stage_seconds, args.trace_delay, args.child_mb) < 0:
        p.error("--stage-seconds, --trace-delay and --child-mb must not be negative")
    return args


def main():
    sys.stdout.reconfigure(encoding="utf-8", errors="replace")   # the bar is UTF-8 always
    args = parse_args()
    if args.ignore_sigterm:             # first thing, so there is no window (also in the child)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if args.as_child:
        return as_child(int(args.as_child[0]), args.as_child[1], args.child_setsid)
    if not os.path.isfile(args.image):
        log(f"error: input image not found: {args.image}")
        return 2

    trace, stop, thread = NoTrace(), threading.Event(), None
    if args.trace:
        trace = Trace(args.trace, args.trace_delay, args.trace_garbage)
        trace.write({"type": "start", "utc": datetime.datetime.now(datetime.timezone.utc)
                     .replace(microsecond=0).isoformat(), "interval": INTERVAL,
                     "tool": "fake_port", "pid": os.getpid(), "seed": args.seed,
                     "texture_size": args.texture_size, "image": os.path.basename(args.image)})
        thread = threading.Thread(target=sampler, args=(trace, stop), daemon=True)
        thread.start()

    run_stages(args, trace)
    if args.bad_output:
        write_atomically(args.out, b"this is not a glb\x00\xff" + bytes(range(256)) * 4)
    elif args.half_output:
        glb = make_glb(args.seed, args.texture_size)
        with open(args.out, "wb") as f:
            f.write(glb[:len(glb) // 2])
    elif not args.no_output:
        write_atomically(args.out, make_glb(args.seed, args.texture_size))

    if thread:
        stop.set()
        thread.join()
    trace.close(partial=args.trace_partial)
    if args.exit_code:
        print("Traceback (most recent call last):", file=sys.stderr)
        print('  File "fake_port.py", in main', file=sys.stderr)
        log(f"error: failing on purpose with code {args.exit_code}")
    return args.exit_code


if __name__ == "__main__":
    sys.exit(main())
