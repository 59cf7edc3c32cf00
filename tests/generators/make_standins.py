#!/usr/bin/env python3
"""Lays out stand-ins of the real generators as the checkouts a user has, for the preset tests.

    make_standins.py DIR

DIR gets one folder per program, shaped as its real checkout is (the program where the preset
looks for it, its weights where the preset counts them), each running a stand-in from
standins/ that parses its flags and prints its lines as the real one does (see
standins/standin_common.py), and DIR/presets.json: for each shipped preset, the params that point
it at its stand-in, the stages its run must show and whether its output has progress lines (the
CLI's and the app's suites both run from it). Python 3.11 standard library only.
"""
import json
import os
import shutil
import stat
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
STANDINS = os.path.join(HERE, "standins")
API = os.path.join(STANDINS, "api")

# trellis.cpp's GGUF files and the sizes the stand-ins get, in KiB (each different, so a forecast
# that counts the wrong file is seen).
GGUF_KIB = {"birefnet": 1024, "dinov3": 1536, "ss_flow": 2048, "ss_dec": 256, "shape_flow_512": 2560,
            "shape_flow_1024": 2600, "shape_dec": 768, "tex_flow_512": 1280, "tex_flow_1024": 2304,
            "tex_dec": 512}


# Each preset (resources/generators/NAME.json): the params that set it up here (paths relative to
# DIR), the stages a run of its stand-in has, in order, and whether it prints progress.
PRESETS = {
    "trellis-cpp": ({"trellis_cli": "trellis.cpp/build/bin/trellis-cli", "models": "trellis.cpp/models"},
                    ["preprocess", "conditioning", "structure", "shape", "shape_decode", "texture", "export"], True),
    "stageload-pixal3d": ({"checkout": "Pixal3D-mac"},
                          ["preprocess", "camera", "structure", "shape_512", "shape_1024", "texture", "decode",
                           "export"], True),
    "pixal3d-mac": ({"checkout": "Pixal3D-mac"},
                    ["load", "camera", "structure", "shape_512", "shape_1024", "texture", "decode", "export"], True),
    "pixal3d": ({"checkout": "Pixal3D"}, ["structure", "shape_512", "shape_1024", "texture"], True),
    "sf3d": ({"checkout": "stable-fast-3d"}, ["load", "generate", "export"], True),
    "triposr": ({"checkout": "TripoSR"}, ["generate"], False),
    "triposg": ({"checkout": "TripoSG"}, ["generate", "export"], True),
    "trellis2": ({"checkout": "TRELLIS.2"}, ["load", "preprocess", "structure", "shape", "texture", "export"], True),
    "hunyuan3d-2.1": ({"checkout": "Hunyuan3D-2.1"},
                      ["load_shape", "shape", "shape_decode", "load_paint", "texture", "export"], True),
}


def put(source, dest, executable=False):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    shutil.copyfile(source, dest)
    if executable:
        os.chmod(dest, os.stat(dest).st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)


def common(folder):
    """What every stand-in imports, beside it."""
    put(os.path.join(HERE, "fake_port.py"), os.path.join(folder, "fake_port.py"))
    put(os.path.join(STANDINS, "standin_common.py"), os.path.join(folder, "standin_common.py"))


def text(dest, content=""):
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    with open(dest, "w") as f:
        f.write(content)


def python_link(dest):
    """A venv's bin/python: this Python."""
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    if os.path.lexists(dest):
        os.remove(dest)
    os.symlink(sys.executable, dest)


def main():
    if len(sys.argv) != 2:
        print("usage: make_standins.py DIR", file=sys.stderr)
        return 2
    root = os.path.abspath(sys.argv[1])

    trellis = os.path.join(root, "trellis.cpp")
    put(os.path.join(STANDINS, "trellis_cli.py"), os.path.join(trellis, "build/bin/trellis-cli"), True)
    common(os.path.join(trellis, "build/bin"))
    for name, kib in GGUF_KIB.items():
        path = os.path.join(trellis, "models", name + ".gguf")
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(b"GGUF" + bytes(kib * 1024 - 4))

    mac = os.path.join(root, "Pixal3D-mac")
    put(os.path.join(STANDINS, "stageload_pixal3d.py"), os.path.join(mac, ".venv/bin/stageload-pixal3d"), True)
    common(os.path.join(mac, ".venv/bin"))
    python_link(os.path.join(mac, ".venv/bin/python"))
    put(os.path.join(STANDINS, "generate_mps.py"), os.path.join(mac, "generate_mps.py"))
    common(mac)

    for folder, source, dest in (("Pixal3D", "pixal3d_inference.py", "inference.py"),
                                 ("stable-fast-3d", "sf3d_run.py", "run.py"),
                                 ("TripoSR", "triposr_run.py", "run.py"),
                                 ("TripoSG", "inference_triposg.py", "scripts/inference_triposg.py")):
        put(os.path.join(STANDINS, source), os.path.join(root, folder, dest))
        common(os.path.join(root, folder))
    text(os.path.join(root, "TripoSG/scripts/__init__.py"))

    t2 = os.path.join(root, "TRELLIS.2")
    text(os.path.join(t2, "trellis2/__init__.py"))
    put(os.path.join(API, "trellis2_pipelines.py"), os.path.join(t2, "trellis2/pipelines/__init__.py"))
    text(os.path.join(t2, "o_voxel/__init__.py"), "from . import postprocess  # noqa: F401\n")
    put(os.path.join(API, "o_voxel_postprocess.py"), os.path.join(t2, "o_voxel/postprocess.py"))
    text(os.path.join(t2, "PIL/__init__.py"))
    put(os.path.join(API, "pil_image.py"), os.path.join(t2, "PIL/Image.py"))
    common(t2)

    hy = os.path.join(root, "Hunyuan3D-2.1")
    text(os.path.join(hy, "hy3dshape/hy3dshape/__init__.py"))
    put(os.path.join(API, "hy3dshape_pipelines.py"), os.path.join(hy, "hy3dshape/hy3dshape/pipelines.py"))
    put(os.path.join(API, "hy3dpaint_texture.py"), os.path.join(hy, "hy3dpaint/textureGenPipeline.py"))
    common(hy)

    presets = {name: {"params": {k: os.path.join(root, v) for k, v in params.items()}, "stages": stages,
                      "progress": progress}
               for name, (params, stages, progress) in PRESETS.items()}
    with open(os.path.join(root, "presets.json"), "w") as f:
        json.dump(presets, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
