#!/usr/bin/env python3
"""Checks that the source tree stacks the way the README's layout table draws it.

The table under "## Layout" in README.md lists the folders of guard/, engine/ and ui/ from the
bottom of the stack up, one row each. This check fails when
  - a folder that holds C++ sources has no row (the table no longer shows the tree),
  - a row names a folder that holds no sources (the table shows a tree that is gone), or
  - a file includes a project header from a folder drawn after its own (an include upwards), or
  - a file includes one of LibTorch's umbrella headers (<torch/torch.h>, <torch/all.h>,
    <torch/nn.h>; <torch/script.h> but in engine/load/torchscript.h): each costs every file that
    sees it seconds of compile (engine/core/torch_core.h says why, and what to include instead).

    python3 tests/layout/check_layers.py REPO_ROOT
"""
import os
import re
import sys

CODE_ROOTS = ("guard", "engine", "ui")
SOURCE_SUFFIXES = (".cpp", ".h")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
UMBRELLA = re.compile(r"^\s*#\s*include\s+<torch/(torch|all|nn|script)\.h>")
SCRIPT_HOME = "engine/load/torchscript.h"  # the TorchScript loader, the one file that needs it
ROW = re.compile(r"^\|\s*`([^`]+)/`\s*\|")


def table_folders(readme):
    """The folder of each row of the layout table, in order (bottom of the stack first)."""
    with open(readme, encoding="utf-8") as f:
        text = f.read()
    start = text.find("\n## Layout")
    if start < 0:
        sys.exit(f"{readme}: no '## Layout' section")
    end = text.find("\n## ", start + 1)
    section = text[start:end if end >= 0 else len(text)]
    return [m.group(1) for line in section.splitlines() if (m := ROW.match(line))]


def source_files(root):
    for top in CODE_ROOTS:
        for folder, _, names in os.walk(os.path.join(root, top)):
            for name in sorted(names):
                if name.endswith(SOURCE_SUFFIXES):
                    yield os.path.relpath(os.path.join(folder, name), root)


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    root = sys.argv[1]
    folders = table_folders(os.path.join(root, "README.md"))
    rank = {folder: i for i, folder in enumerate(folders)}
    if len(rank) != len(folders):
        sys.exit("README.md: a folder has more than one row in the layout table")

    problems = []
    sources = list(source_files(root))
    held = {os.path.dirname(path) for path in sources}
    problems += [f"{f}/: holds sources but has no row in README.md's layout table"
                 for f in sorted(held - rank.keys())]
    problems += [f"{f}/: a row of README.md's layout table, but it holds no sources"
                 for f in folders if f not in held]

    includes = 0
    for path in sources:
        own = os.path.dirname(path)
        with open(os.path.join(root, path), encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                if (u := UMBRELLA.match(line)) and not (u.group(1) == "script" and path == SCRIPT_HOME):
                    problems.append(f"{path}:{number}: includes <torch/{u.group(1)}.h>; include "
                                    "engine/core/torch_core.h or torch_nn.h instead")
                m = INCLUDE.match(line)
                if not m or not os.path.isfile(os.path.join(root, m.group(1))):
                    continue  # a system header, a generated one, or one beside the file
                includes += 1
                target = os.path.dirname(m.group(1))
                if target in rank and own in rank and rank[target] > rank[own]:
                    problems.append(f"{path}:{number}: includes {m.group(1)}, from {target}/, "
                                    f"which the layout table draws above {own}/")

    for p in problems:
        print(p)
    print(f"{len(sources)} files, {includes} project includes, {len(folders)} folders: "
          f"{len(problems)} problem(s)")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
