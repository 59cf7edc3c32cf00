"""What the stand-ins of real generators share: memory held per stage, tqdm-like bars, the mesh.

Each stand-in in this folder acts as one real program does from outside, from the facts in
../shared/GENERATORS.md: the same flags (unknown ones refused with the real exit code), the same
lines on stdout and stderr, the mesh written where the real one writes it. make_standins.py lays
them out as checkouts; fake_port.py (copied beside this file) makes the glb.
Python 3.11 standard library only.
"""
import os
import sys
import time

import fake_port

MIB = 1024 * 1024
STEP_SECONDS = float(os.environ.get("STANDIN_STEP_SECONDS", "0.03"))


class Held:
    """The memory of the models a stage has loaded: every page touched, freed by release()."""

    def __init__(self):
        self.buffers = {}

    def load(self, name, mb):
        self.buffers[name] = fake_port.hold(max(1, int(mb)))

    def release(self, name):
        self.buffers.pop(name, None)


def bar(desc, steps, stream=sys.stderr):
    """A tqdm bar of `steps` steps redrawn with \\r, then a newline, as tqdm writes to a pipe."""
    started = time.monotonic()
    for i in range(steps + 1):
        pct = 100 * i // steps
        filled = "#" * (pct // 10)
        elapsed = time.monotonic() - started
        prefix = f"{desc}: " if desc else ""
        stream.write(f"\r{prefix}{pct:3d}%|{filled:<10}| {i}/{steps} [{elapsed:05.2f}<00:00, 2.50it/s]")
        stream.flush()
        if i < steps:
            time.sleep(STEP_SECONDS)
    stream.write("\n")
    stream.flush()


def write_glb(path, seed=1, texture_size=8):
    """A small textured box as a binary glTF, written through a temporary file."""
    fake_port.write_atomically(path, fake_port.make_glb(seed, min(max(texture_size // 256, 2), 16)))


def say(line, stream=sys.stdout):
    print(line, file=stream, flush=True)
