#!/usr/bin/env python3
"""Runs `stageload run` on seeded scenes and judges its cut-out and its mesh against the truth.

    python3 tests/quality/report.py --seeds 0-9 --table /tmp/quality.md
    python3 tests/quality/report.py --seeds tuning --jobs 2 --keep /tmp/q --table q.md

For each seed, scenes.py draws the picture and its true subject mask; the picture goes through
`stageload run PICTURE -o OUT.glb --cutout CUT.png` with the default settings (--cutout only
saves what the run found; it changes nothing). Then, per scene:

- mask IoU: the subject the run found (the cut-out's alpha >= 128, put back where it was cut
  from) against the true mask, over the whole picture;
- front IoU: the mesh seen from the front (frontview.py, as tests/engine/test_character.cpp
  renders it), drawn where the run says it lies on the picture (the placement it writes into
  the glb), against the true mask;
- PSNR (unless --no-psnr; about 2 s a scene in pure Python): the front view's colours against
  the drawn picture (before any JPEG compression), two pixels inside the true subject's edge,
  as the C++ test does;
- shadow kept: the share of the visible ground shadow's pixels the front view covers;
- parts dropped: true parts apart from the body, larger than 0.2 % of the subject, that the
  front view covers less than half of;
- the back (backview.py; unless --no-back): the face and emblems must not be repeated on the
  back, and the parts apart must keep their colours from behind. A scene's back is faulty when
  a feature is repeated or a part lost.

The cut-out is a crop (the subject's bounding box with a margin of max(4, 3 % of its longer
side), engine/pipelines/character/subject.cpp); where it was cut from is found by matching its
inner rectangle, which is a copy of the picture, against the drawn picture (exactly for PNG,
closest for JPEG).

The table (stdout, and Markdown with --table) gives per kind of scene: how many, mean mask and
front IoU, the share with front IoU >= 0.97, and failures. With --check the exit status says
whether issue 31's goals hold (0) or not (1), naming what falls short. Only Python's standard
library.
"""

import argparse
import concurrent.futures
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import backview  # noqa: E402
import floor as floors  # noqa: E402
import frontview  # noqa: E402
import pngio  # noqa: E402
import scenes  # noqa: E402
from measures import APART_SHARE, GOAL_IOU, back_faults, share_at_goal, shadow_kept  # noqa: E402

# ----------------------------------------------------------------------------------------
# where the cut-out came from


def crop_margin(cw, ch):
    """The margin subject.cpp put around the subject's box, from the crop's size."""
    for m in range(4, max(cw, ch)):
        if max(4, max(cw - 2 * m, ch - 2 * m) * 3 // 100) == m:
            return m
    raise ValueError("a %dx%d cut-out fits no margin" % (cw, ch))


def locate(cut, cw, ch, picture, w, h, guess):
    """(ox, oy, margin, inner width, inner height, mean abs difference): where the cut-out's
    inner rectangle (the subject's box) lies in the picture (RGB bytes). A few dozen points
    (where the colour changes, where the cut-out's alpha crosses half, and a grid) rank every
    offset; the closest few are then compared on a dense grid, so that a repeating texture
    cannot pass for the place."""
    m = crop_margin(cw, ch)
    iw, ih = cw - 2 * m, ch - 2 * m
    if iw > w or ih > h:
        raise ValueError("the cut-out's box (%dx%d) is larger than the picture (%dx%d)" % (iw, ih, w, h))

    def colour(x, y):
        i = ((y + m) * cw + x + m) * 4
        return cut[i], cut[i + 1], cut[i + 2]

    def alpha(x, y):
        return cut[((y + m) * cw + x + m) * 4 + 3]

    step = max(1, min(iw, ih) // 40)
    contrast = []
    edges = []
    for y in range(0, ih - 1, step):
        for x in range(0, iw - 1, step):
            a, r, d = colour(x, y), colour(x + 1, y), colour(x, y + 1)
            contrast.append((sum(abs(a[c] - r[c]) + abs(a[c] - d[c]) for c in range(3)), x, y))
            if (alpha(x, y) >= 128) != (alpha(x + 1, y) >= 128) or (alpha(x, y) >= 128) != (alpha(x, y + 1) >= 128):
                edges.append((x, y))
    contrast.sort(reverse=True)
    picked = []
    for g, x, y in contrast:
        if all(abs(x - px) + abs(y - py) > 2 * step for px, py in picked):
            picked.append((x, y))
        if len(picked) >= 32:
            break
    picked += edges[::max(1, len(edges) // 32)]
    picked += [(x, y) for y in range(0, ih, max(1, ih // 6)) for x in range(0, iw, max(1, iw // 6))]
    points = [(x, y, colour(x, y)) for x, y in picked]

    def error(pts, ox, oy, limit):
        e = 0
        for x, y, c in pts:
            j = ((oy + y) * w + ox + x) * 3
            e += abs(picture[j] - c[0]) + abs(picture[j + 1] - c[1]) + abs(picture[j + 2] - c[2])
            if e > limit:
                return e
        return e

    # Rank: keep every offset within a slack of the best so far (JPEG's error is never 0).
    slack = 6 * 3 * len(points)
    best = math.inf
    near = []
    gx, gy = guess
    order = [(ox, oy) for oy in range(max(0, gy - 2), min(h - ih, gy + 2) + 1)
             for ox in range(max(0, gx - 2), min(w - iw, gx + 2) + 1)]
    for ox, oy in order + [(ox, oy) for oy in range(0, h - ih + 1) for ox in range(0, w - iw + 1)]:
        e = error(points, ox, oy, best + slack)
        if e <= best + slack:
            near.append((e, ox, oy))
            best = min(best, e)
    near = sorted(set(n for n in near if n[0] <= best + slack))[:64]
    dense = [(x, y, colour(x, y)) for y in range(0, ih, max(1, ih // 60)) for x in range(0, iw, max(1, iw // 60))]
    scored = sorted((error(dense, ox, oy, math.inf), ox, oy) for _, ox, oy in near)
    e, ox, oy = scored[0]
    return ox, oy, m, iw, ih, e / (3.0 * len(dense))


# ----------------------------------------------------------------------------------------
# one scene


def iou(a, b):
    """IoU of two equally long bytes/bytearrays of 0/1 (any non-zero is 1)."""
    ia = int.from_bytes(bytes(1 if v else 0 for v in a), "big")
    ib = int.from_bytes(bytes(1 if v else 0 for v in b), "big")
    both = bin(ia & ib).count("1")
    either = bin(ia | ib).count("1")
    return both / either if either else 1.0


def erode(mask, w, h, r):
    """The 0/1 mask eroded by a (2r+1) square: 1 where every pixel around within r is 1, and
    none within r of the picture's border (outside the picture counts as 0)."""
    rows = []
    for y in range(h):
        v = int.from_bytes(mask[y * w:(y + 1) * w], "big")
        e = v
        for k in range(1, r + 1):
            e &= (v << 8 * k) & ((1 << 8 * w) - 1)
            e &= v >> 8 * k
        rows.append(e)
    out = bytearray(w * h)
    for y in range(r, h - r):
        e = rows[y]
        for k in range(1, r + 1):
            e &= rows[y - k] & rows[y + k]
        out[y * w:(y + 1) * w] = e.to_bytes(w, "big")
    return out


def judge(seed, work, stageload, weights, psnr, timeout, keep=False, back=True):
    t0 = time.time()
    sc, cv, data, ext, side = scenes.make(seed)
    gen_s = time.time() - t0
    name = scenes.scene_name(seed)
    w, h = sc.width, sc.height
    pic = os.path.join(work, name + "." + ext)
    with open(pic, "wb") as f:
        f.write(data)
    pngio.write_png(os.path.join(work, name + ".mask.png"), w, h, 1, bytes(cv.mask))
    with open(os.path.join(work, name + ".json"), "w") as f:
        json.dump(side, f, indent=1, sort_keys=True)
    glb = os.path.join(work, name + ".glb")
    cut = os.path.join(work, name + ".cutout.png")
    cmd = [stageload, "run", pic, "-o", glb, "--cutout", cut]
    if weights:
        cmd += ["--weights", weights]
    r = {"seed": seed, "kinds": side["kinds"], "width": w, "height": h, "generate_s": round(gen_s, 3)}
    t1 = time.time()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        rc, out, err = p.returncode, p.stdout, p.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = -1, "", "timed out after %d s" % timeout
    except OSError as e:  # e.g. the program is being relinked
        rc, out, err = -1, "", "could not start %s: %s" % (stageload, e.strerror)
    r["run_s"] = round(time.time() - t1, 3)
    r["exit"] = rc
    with open(os.path.join(work, name + ".log"), "w") as f:
        f.write(" ".join(cmd) + "\n" + out + err)
    mo = re.search(r"subject from (\w+) in (\d+) parts?(?: \((\d+) specks? dropped\))?", out)
    if mo:
        r["source"] = mo.group(1)
        r["parts"] = int(mo.group(2))
        r["specks"] = int(mo.group(3) or 0)
    r["notes"] = [line[len("stageload: note: "):] for line in err.splitlines() if line.startswith("stageload: note: ")]
    truth = bytes(1 if v else 0 for v in cv.mask)
    if rc != 0 or not os.path.exists(glb) or not os.path.exists(cut):
        r["error"] = (err.strip().splitlines() or ["exit %d" % rc])[-1]
        r["mask_iou"] = r["front_iou"] = 0.0
        return r

    # the subject found, put back into the picture
    cw, ch, cc, cpx = pngio.read_png(cut)
    if cc != 4:
        raise ValueError("%s: the cut-out is not RGBA" % cut)
    guess = (min((p["bbox"][0] for p in side["parts"]), default=0), min((p["bbox"][1] for p in side["parts"]), default=0))
    ox, oy, m, iw, ih, mad = locate(cpx, cw, ch, cv.rgb, w, h, guess)
    r["cutout_match"] = round(mad, 2)  # mean difference per channel at the matched points
    found = bytearray(w * h)
    for y in range(ch):
        py = oy + y - m
        if py < 0 or py >= h:
            continue
        for x in range(cw):
            px = ox + x - m
            if 0 <= px < w and cpx[(y * cw + x) * 4 + 3] >= 128:
                found[py * w + px] = 1
    r["mask_iou"] = round(iou(found, truth), 5)

    # the mesh from the front, where it lies on the picture
    mesh = frontview.read_glb(glb)
    if mesh.placement is None or mesh.placement[:2] != (w, h):
        r["error"] = "the mesh does not say where it lies on the %dx%d picture (placement %s)" % (w, h, mesh.placement)
        r["front_iou"] = 0.0
        return r
    box = frontview.picture_box(mesh.placement)
    if psnr and mesh.texture_png:
        rgb, front = frontview.textured(mesh, box, w, h)
    else:
        rgb, front = None, frontview.silhouette(mesh, box, w, h)
    r["front_iou"] = round(iou(front, truth), 5)
    if keep:
        # What the front view got right (white), missed (red) and added (blue), over the picture dimmed.
        ov = bytearray(3 * w * h)
        for i in range(w * h):
            t, f = truth[i], front[i]
            if t and f:
                ov[3 * i:3 * i + 3] = b"\xff\xff\xff"
            elif t:
                ov[3 * i:3 * i + 3] = b"\xe0\x20\x20"
            elif f:
                ov[3 * i:3 * i + 3] = b"\x30\x60\xf0"
            else:
                ov[3 * i:3 * i + 3] = bytes(v // 3 for v in cv.rgb[3 * i:3 * i + 3])
        pngio.write_png(os.path.join(work, name + ".judged.png"), w, h, 3, bytes(ov))

    if rgb is not None:
        # Colours two pixels inside the true subject's edge (a 5 x 5 erosion), where the front
        # view covers, against the drawn picture (upright, before any JPEG compression).
        inner = erode(truth, w, h, 2)
        se = n = 0
        for y in range(h):
            row = int.from_bytes(inner[y * w:(y + 1) * w], "big") & int.from_bytes(front[y * w:(y + 1) * w], "big")
            if not row:
                continue
            row = row.to_bytes(w, "big")
            x = row.find(1)
            while x != -1:
                i = y * w + x
                j = i * 3
                for c in range(3):
                    d = rgb[j + c] - cv.rgb[3 * i + c]
                    se += d * d
                n += 3
                x = row.find(1, x + 1)
        r["psnr"] = round(10 * math.log10(255.0 * 255.0 / max(1e-9, se / max(1, n))), 2)

    # shadows kept, parts dropped
    shadow = [i for i in range(w * h) if cv.fx[i] == 1 and not truth[i]] if "ground-shadow" in side["kinds"] else []
    if shadow:
        r["shadow_kept"] = round(sum(front[i] for i in shadow) / len(shadow), 4)
    dropped = []
    for part in scenes.parts_apart(sc, cv, APART_SHARE):
        kept = sum(front[y * w + x0:y * w + x1].count(1) for y, x0, x1 in part["runs"])
        if kept < 0.5 * part["area"]:
            dropped.append(part["what"])
    r["apart_dropped"] = dropped

    # the back: no face or emblem repeated, the parts apart kept
    if back and mesh.texture_png:
        r.update(backview.judge_back(sc, cv, backview.feature_places(sc, cv), mesh, box, (0, 0, w, h), front,
                                     APART_SHARE))
    return r


# ----------------------------------------------------------------------------------------
# the table


def table(results):
    rows = []
    for kind in scenes.KINDS:
        rs = [r for r in results if kind in r["kinds"]]
        if not rs:
            continue
        sh = [r for r in rs if "shadow_kept" in r]
        rows.append({
            "kind": kind,
            "n": len(rs),
            "mask": sum(r["mask_iou"] for r in rs) / len(rs),
            "front": sum(r["front_iou"] for r in rs) / len(rs),
            "ok": share_at_goal(rs),
            "psnr": [r["psnr"] for r in rs if "psnr" in r],
            "shadow": sum(1 for r in sh if shadow_kept(r)),
            "nshadow": len(sh),
            "dropped": sum(len(r.get("apart_dropped", [])) for r in rs),
            "back": sum(1 for r in rs if back_faults(r)),
            "nback": sum(1 for r in rs if r.get("features_judged") or r.get("apart_judged")),
            "errors": sum(1 for r in rs if "error" in r),
        })
    return rows


def markdown(rows, title):
    psnr = any(r["psnr"] for r in rows)
    head = ("| kind | scenes | mask IoU | front IoU | front IoU ≥ %.2f |%s shadow kept | parts dropped | back faulty "
            "| failed runs |" % (GOAL_IOU, " PSNR dB |" if psnr else ""))
    lines = ["### " + title, "", head, "|" + "---|" * (head.count("|") - 1)]
    for r in rows:
        p = (" %.1f |" % (sum(r["psnr"]) / len(r["psnr"])) if r["psnr"] else " – |") if psnr else ""
        lines.append("| %s | %d | %.3f | %.3f | %.0f %% |%s %s | %d | %s | %d |" % (
            r["kind"], r["n"], r["mask"], r["front"], 100 * r["ok"], p,
            "%d of %d" % (r["shadow"], r["nshadow"]) if r["nshadow"] else "–", r["dropped"],
            "%d of %d" % (r["back"], r["nback"]) if r["nback"] else "–", r["errors"]))
    return "\n".join(lines) + "\n"


def goals(results, rows):
    """What falls short of issue 31's goals: front IoU >= 0.97 on 95 % of the scenes and on 90 %
    of every kind, no ground shadow kept, nothing apart larger than 0.2 % dropped, no feature
    repeated on the back and no part apart lost from behind, no failed run."""
    short = []
    everything = rows[0] if rows and rows[0]["kind"] == "all" else None
    if everything and everything["ok"] < 0.95:
        short.append("front IoU >= %.2f on %.0f %% of the scenes (goal 95 %%)" % (GOAL_IOU, 100 * everything["ok"]))
    for r in rows:
        if r["kind"] != "all" and r["ok"] < 0.90:
            short.append("%s: front IoU >= %.2f on %.0f %% (goal 90 %%)" % (r["kind"], GOAL_IOU, 100 * r["ok"]))
    kept = [scenes.scene_name(r["seed"]) for r in results if shadow_kept(r)]
    if kept:
        short.append("ground shadow kept in %s" % ", ".join(kept))
    dropped = ["%s (%s)" % (scenes.scene_name(r["seed"]), ", ".join(r["apart_dropped"])) for r in results if r.get("apart_dropped")]
    if dropped:
        short.append("parts apart dropped in %s" % ", ".join(dropped))
    repeated = ["%s (%s)" % (scenes.scene_name(r["seed"]), ", ".join(r["features_repeated"])) for r in results
                if r.get("features_repeated")]
    if repeated:
        short.append("features repeated on the back in %s" % ", ".join(repeated))
    lost = ["%s (%s)" % (scenes.scene_name(r["seed"]), ", ".join(r["apart_lost"])) for r in results if r.get("apart_lost")]
    if lost:
        short.append("parts apart lost from behind in %s" % ", ".join(lost))
    failed = [scenes.scene_name(r["seed"]) for r in results if "error" in r]
    if failed:
        short.append("failed runs: %s" % ", ".join(failed))
    return short


def sources(results):
    out = {}
    for r in results:
        s = r.get("source", "failed")
        out.setdefault(s, []).append(r["front_iou"])
    return ", ".join("%s %d (front IoU %.3f)" % (k, len(v), sum(v) / len(v)) for k, v in sorted(out.items()))


def default_weights():
    """The weights stageload finds by itself, else those the CTest fixture installs into
    build/weights (what CI runs with)."""
    if os.environ.get("STAGELOAD_WEIGHTS_DIR"):
        return None
    if os.path.isdir(os.path.expanduser("~/.local/share/stageload/weights")):
        return None
    built = os.path.join(ROOT, "build", "weights")
    return built if os.path.isdir(built) else None


def main(argv=None):
    ap = argparse.ArgumentParser(description="Judge stageload's cut-out and front view on seeded scenes")
    ap.add_argument("--stageload", default=os.path.join(ROOT, "build", "ui", "cli", "stageload"))
    ap.add_argument("--seeds", default="0-199", help="e.g. 0-9, 3,7,9-12, tuning or held-out")
    ap.add_argument("--jobs", type=int, default=1)
    ap.add_argument("--keep", help="keep the scenes, meshes, cut-outs, logs, results.jsonl and a picture of "
                    "each judgement (NAME.judged.png: white both, red missed, blue added) here")
    ap.add_argument("--table", help="write the table as Markdown here")
    ap.add_argument("--weights", help="folder of installed weights (default: stageload's own, else build/weights)")
    ap.add_argument("--no-psnr", dest="psnr", action="store_false",
                    help="skip the texture's PSNR (saves about 2 s a scene: the 2048² texture is decoded in Python)")
    ap.add_argument("--no-back", dest="back", action="store_false",
                    help="skip judging the back (saves about 1 s a scene: the texture is decoded in Python)")
    ap.add_argument("--timeout", type=int, default=600, help="seconds per run")
    ap.add_argument("--check", action="store_true",
                    help="exit 1 unless issue 31's goals hold (front IoU >= 0.97 on 95 %% of the scenes and 90 %% "
                         "of every kind, no shadow kept, nothing apart > 0.2 %% dropped, no feature repeated on the "
                         "back, no part apart lost from behind, no failed run)")
    ap.add_argument("--floor", help="exit 1 where a scene falls below what this file (--write-floor) recorded: "
                    "front IoU more than %.2f lower, a shadow kept, more parts dropped, features repeated on the back "
                    "or parts lost from behind than it was, a failed run" % floors.FLOOR_SLACK)
    ap.add_argument("--write-floor", help="record what these scenes reached as the floor, in this file (not when "
                    "they fell below --floor)")
    args = ap.parse_args(argv)
    if not os.access(args.stageload, os.X_OK):
        ap.error("%s: no stageload there; build it (cmake --build build --target stageload) or give --stageload" % args.stageload)
    if args.write_floor and not args.back:
        ap.error("--write-floor records the back's faults too: it cannot be written with --no-back")
    seeds = scenes.parse_seeds(args.seeds)
    floor = None
    if args.floor:
        try:
            floor = floors.read_floor(args.floor)
        except (OSError, ValueError) as e:
            ap.error("%s: not a floor that --write-floor wrote (%s)" % (args.floor, e))
    weights = args.weights or default_weights()
    work = args.keep or tempfile.mkdtemp(prefix="stageload-quality-")
    os.makedirs(work, exist_ok=True)
    t0 = time.time()
    results = []
    try:
        if args.jobs > 1:
            with concurrent.futures.ProcessPoolExecutor(args.jobs) as pool:
                futures = [pool.submit(judge, s, work, args.stageload, weights, args.psnr, args.timeout, bool(args.keep),
                                       args.back) for s in seeds]
                for f in futures:
                    results.append(f.result())
                    _progress(results[-1])
        else:
            for s in seeds:
                results.append(judge(s, work, args.stageload, weights, args.psnr, args.timeout, bool(args.keep), args.back))
                _progress(results[-1])
    finally:
        if args.keep:
            with open(os.path.join(work, "results.jsonl"), "w") as f:
                for r in results:
                    f.write(json.dumps(r, sort_keys=True) + "\n")
        else:
            shutil.rmtree(work, ignore_errors=True)
    rows = table(results)
    title = "Seeds %s: %d scenes, %s" % (args.seeds, len(results), time.strftime("%Y-%m-%d"))
    md = markdown(rows, title)
    md += "\nMasks from: %s. Generation %.2f s, stageload run %.2f s per scene on average.\n" % (
        sources(results), sum(r["generate_s"] for r in results) / max(1, len(results)),
        sum(r["run_s"] for r in results) / max(1, len(results)))
    print()
    print(md)
    if args.table:
        with open(args.table, "w") as f:
            f.write(md)
    print("%d scenes in %.1f s" % (len(results), time.time() - t0), file=sys.stderr)
    status = 0
    if floor is not None:
        short = floors.below_floor(results, floor)
        for line in short:
            print("below the floor: " + line, file=sys.stderr)
        status = 1 if short else status
        better = floors.above_floor(results, floor)
        if better and not args.write_floor:
            print("%d scenes are above the floor (front IoU by more than %.2f, or fewer faults): raise it with "
                  "--write-floor %s" % (len(better), floors.FLOOR_SLACK, args.floor), file=sys.stderr)
    if args.write_floor:
        if status:
            # Written now, the floor would hide what fell.
            print("%s: not written, the scenes above fell below the floor" % args.write_floor, file=sys.stderr)
        else:
            floors.write_floor(args.write_floor, floors.floor_of(results, args.seeds))
            print("%s: the floor of these %d scenes" % (args.write_floor, len(results)), file=sys.stderr)
    if args.check:
        short = goals(results, rows)
        for line in short:
            print("short of the goal: " + line, file=sys.stderr)
        status = 1 if short else status
    return status


def _progress(r):
    extra = ""
    if "error" in r:
        extra = " ERROR " + r["error"]
    if r.get("features_repeated"):
        extra += " back repeats " + ", ".join(r["features_repeated"])
    if r.get("apart_lost"):
        extra += " back loses " + ", ".join(r["apart_lost"])
    print("%s %-9s mask %.3f front %.3f%s%s  (%s)" % (
        scenes.scene_name(r["seed"]), r.get("source", "-"), r["mask_iou"], r["front_iou"],
        " psnr %.1f" % r["psnr"] if "psnr" in r else "", extra, " ".join(r["kinds"][1:])), flush=True)


if __name__ == "__main__":
    sys.exit(main())
