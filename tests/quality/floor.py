"""The quality report's floor: what the pipeline reached on each scene, so that it does not slip
back while issue 31's goals are open (report.py --floor, --write-floor; README.md here).

    f = floor.floor_of(results, "tuning")      # per scene: front IoU, shadow kept, counts of faults
    floor.write_floor("floor-tuning.json", f)  # a scene a line, through a temporary file
    short = floor.below_floor(results, floor.read_floor("floor-tuning.json"))   # what fell, named
"""

import json
import os

import scenes
from measures import GOAL_IOU, share_at_goal, shadow_kept

# A scene's front IoU may fall this much below what it recorded: the same binary gives the same
# figures, but LibTorch's threads may sum a convolution in another order.
FLOOR_SLACK = 0.01

# What a floor records per scene, and the words for a count that grew.
_COUNTS = {
    "apart_dropped": "parts apart dropped",
    "features_repeated": "features repeated on the back",
    "apart_lost": "parts apart lost from behind",
}
_KEYS = {"front_iou", "shadow_kept", *_COUNTS}


def floor_of(results, seeds_text):
    """What `results` reached, per scene: the floor a later run must not fall below."""
    scenes_floor = {}
    for r in sorted(results, key=lambda r: r["seed"]):
        f = {"front_iou": r["front_iou"], "shadow_kept": shadow_kept(r)}
        f.update({key: len(r.get(key, [])) for key in _COUNTS})
        scenes_floor[str(r["seed"])] = f
    return {"seeds": seeds_text, "share_at_goal": round(share_at_goal(results), 4), "scenes": scenes_floor}


def below_floor(results, floor):
    """Where `results` fall below `floor` (floor_of): a scene's front IoU more than FLOOR_SLACK
    under its own, a shadow kept that was not, more parts dropped, features repeated on the back
    or parts lost from behind than it recorded, a run that failed, a smaller share of scenes at
    the goal, or a scene the floor does not know."""
    short = []
    scenes_floor = floor["scenes"]
    for r in results:
        name = scenes.scene_name(r["seed"])
        f = scenes_floor.get(str(r["seed"]))
        if f is None:
            short.append("%s: not in the floor (write it again with --write-floor)" % name)
            continue
        if "error" in r:
            short.append("%s: the run failed: %s" % (name, r["error"]))
        elif r["front_iou"] < f["front_iou"] - FLOOR_SLACK:
            short.append("%s: front IoU %.3f, was %.3f" % (name, r["front_iou"], f["front_iou"]))
        if shadow_kept(r) and not f["shadow_kept"]:
            short.append("%s: the ground shadow is kept now" % name)
        for key, words in _COUNTS.items():
            if len(r.get(key, [])) > f[key]:
                short.append("%s: %d %s (%s), was %d" % (name, len(r[key]), words, ", ".join(r[key]), f[key]))
    share = share_at_goal(results)
    if len(results) == len(scenes_floor) and share < floor["share_at_goal"] - 0.01:
        short.append("front IoU >= %.2f on %.1f %% of the scenes, was %.1f %%" % (
            GOAL_IOU, 100 * share, 100 * floor["share_at_goal"]))
    return short


def above_floor(results, floor):
    """The scenes now better than `floor` records: front IoU more than FLOOR_SLACK above it, or
    fewer faults counted. The floor may be raised (--write-floor)."""
    better = []
    for r in results:
        f = floor["scenes"].get(str(r["seed"]))
        if f is None or "error" in r:
            continue
        if r["front_iou"] > f["front_iou"] + FLOOR_SLACK or any(len(r.get(k, [])) < f[k] for k in _COUNTS):
            better.append(r)
    return better


def read_floor(path):
    """The floor write_floor wrote to `path`; ValueError (or OSError) naming what is wrong."""
    with open(path) as f:
        floor = json.load(f)
    if not isinstance(floor, dict) or not isinstance(floor.get("scenes"), dict) or "share_at_goal" not in floor:
        raise ValueError("no scenes or share_at_goal in it")
    for seed, f in floor["scenes"].items():
        missing = _KEYS - set(f) if isinstance(f, dict) else _KEYS
        if missing:
            raise ValueError("scene %s lacks %s: written by an older report.py, write it again with --write-floor"
                             % (seed, ", ".join(sorted(missing))))
    return floor


def write_floor(path, floor):
    """`floor` (floor_of) as JSON, a scene a line, written to a temporary file and renamed."""
    lines = ['{"seeds": %s, "share_at_goal": %s, "scenes": {' % (json.dumps(floor["seeds"]), json.dumps(floor["share_at_goal"]))]
    items = sorted(floor["scenes"].items(), key=lambda kv: int(kv[0]))
    for i, (seed, f) in enumerate(items):
        lines.append("  %s: %s%s" % (json.dumps(seed), json.dumps(f, sort_keys=True), "," if i + 1 < len(items) else ""))
    lines.append("}}")
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, path)
