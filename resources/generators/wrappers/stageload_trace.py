"""stageload_trace: what the shipped wrappers share.

A wrapper runs a generator that has no command line of its own (TRELLIS.2, Hunyuan3D-2.1) through
its Python API. This module gives it the two things Stageload needs from it:

- ``Trace``: a stageload JSON Lines trace (start line, a sample every 0.5 s of this process's
  resident memory where /proc has it, stage/load/release/mark events, the end line), every line
  flushed so a killed run leaves a readable file;
- ``StageWatcher``: stderr wrapped so the tqdm bars the library draws name the stage they belong
  to ("Sampling shape SLat" -> shape), as stage events in the trace and "[stage] NAME" lines.

Python standard library only; the wrappers import the generator's own packages themselves.
"""
import argparse
import contextlib
import datetime
import json
import os
import re
import sys
import threading
import time

INTERVAL = 0.5
_T0 = time.monotonic()


def now():
    return round(time.monotonic() - _T0, 3)


def _resident_bytes():
    """This process's VmRSS in bytes, or None where /proc does not have it (macOS)."""
    try:
        with open("/proc/self/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return None


class Trace:
    """The stageload trace of one run. Thread-safe; a no-op without a path."""

    def __init__(self, path, **meta):
        self._lock = threading.Lock()
        self._file = None
        self.stage = "setup"
        if path:
            os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
            self._file = open(path, "w", encoding="utf-8")
            utc = datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()
            self._write({"type": "start", "utc": utc, "interval": INTERVAL, **meta})
            self._stop = threading.Event()
            self._sampler = threading.Thread(target=self._sample, daemon=True)
            self._sampler.start()

    def _write(self, obj):
        with self._lock:
            if self._file is not None:
                self._file.write(json.dumps(obj, separators=(",", ":")) + "\n")
                self._file.flush()

    def _sample(self):
        while not self._stop.wait(INTERVAL):
            footprint = _resident_bytes()
            if footprint is not None:
                self._write({"type": "sample", "t": now(), "footprint": footprint})

    def event(self, kind, name, nbytes=None, seconds=None, note=None):
        line = {"type": "event", "kind": kind, "name": name, "stage": self.stage}
        if nbytes is not None:
            line["nbytes"] = int(nbytes)
        if seconds is not None:
            line["seconds"] = round(seconds, 3)
        if note:
            line["note"] = note
        line["t"] = now()
        self._write(line)

    @contextlib.contextmanager
    def loading(self, name):
        """A load event for what the block loads: its seconds, and the growth of this process's
        resident memory as its bytes where /proc tells (weights moved to a GPU are not in it)."""
        before, started = _resident_bytes(), time.monotonic()
        yield
        after = _resident_bytes()
        grown = after - before if before is not None and after is not None and after > before else None
        self.event("load", name, nbytes=grown, seconds=time.monotonic() - started)

    def enter(self, stage):
        """Begins `stage`: a stage event and a "[stage] NAME" line on stdout (once per stage)."""
        if stage == self.stage:
            return
        self.stage = stage
        print(f"[stage] {stage}", flush=True)
        self.event("stage", stage)

    def error(self, message):
        self._write({"type": "error", "t": now(), "error": message})

    def close(self):
        if self._file is None:
            return
        self._stop.set()
        self._sampler.join()
        self._write({"type": "end"})
        with self._lock:
            self._file.close()
            self._file = None


class StageWatcher:
    """A text stream in front of stderr that enters a stage when a line names one.

    `patterns` is a list of (regex, stage) tried in order; tqdm redraws its bar with "\\r", so
    every piece between "\\r" and "\\n" is looked at. Everything is passed on unchanged."""

    def __init__(self, stream, trace, patterns):
        self._stream, self._trace = stream, trace
        self._patterns = [(re.compile(p), s) for p, s in patterns]
        self._pending = ""

    def write(self, text):
        self._pending += text
        *pieces, self._pending = re.split(r"[\r\n]", self._pending)
        for piece in pieces:
            for regex, stage in self._patterns:
                if regex.search(piece):
                    self._trace.enter(stage)
                    break
        if len(self._pending) > 4096:
            self._pending = self._pending[-4096:]
        return self._stream.write(text)

    def flush(self):
        self._stream.flush()

    def __getattr__(self, name):
        return getattr(self._stream, name)


def parser(tool, doc, project, seed, model):
    """The flags every wrapper takes (--checkout, --image, --output, --seed, --texture-size,
    --model, --trace); the wrapper adds its own, then calls check() on what was parsed."""
    p = argparse.ArgumentParser(prog=tool, description=doc.split("\n\n")[0])
    p.add_argument("--checkout", required=True, help=f"the {project} checkout")
    p.add_argument("--image", required=True)
    p.add_argument("--output", required=True, help="the .glb to write")
    p.add_argument("--seed", type=int, default=seed)
    p.add_argument("--texture-size", type=int, default=4096)
    p.add_argument("--model", default=model, help="a hub name or a local folder")
    p.add_argument("--trace", default="", help="write a stageload trace here")
    return p


def check(p, args, project, marker):
    """Refuses (exit 2) a checkout without `marker`, a missing picture, a texture size out of range."""
    if not os.path.isdir(os.path.join(args.checkout, marker)):
        p.error(f"--checkout {args.checkout}: no {marker} there; give the {project} checkout")
    if not os.path.isfile(args.image):
        p.error(f"--image {args.image}: no such picture")
    if not 256 <= args.texture_size <= 8192:
        p.error("--texture-size must be 256..8192")


def publish(output, write):
    """Calls write(path) with a temporary path beside `output`, then renames it into place, so a
    failed or killed run never leaves a half-written mesh at `output`."""
    tmp = output + ".part.glb"
    write(tmp)
    os.replace(tmp, output)


def run(tool, project, trace, output, generate):
    """Runs generate() and exits as a wrapper does: 0 with "[done] OUTPUT (N bytes)"; 2 when the
    project's packages cannot be imported (the wrong Python); 1 when the library fails."""
    try:
        generate()
    except ImportError as e:
        fail(tool, f"{e}: run it with the Python that has {project}'s packages (set 'python')", trace, code=2)
    except Exception as e:  # the library's own failure, named
        fail(tool, f"{type(e).__name__}: {e}", trace)
    print(f"[done] {output} ({os.path.getsize(output)} bytes)", flush=True)
    trace.close()
    return 0


def fail(tool, message, trace=None, code=1):
    """Says what went wrong on stderr (and in the trace) and exits with `code`."""
    print(f"{tool}: error: {message}", file=sys.stderr, flush=True)
    if trace is not None:
        trace.error(message)
        trace.close()
    sys.exit(code)
