#!/usr/bin/env python3
"""Seeded hard test scenes for the character cut-out: a picture and its true subject mask.

Each seed (an integer) draws one character from random parts — bodies, heads, limbs, capes,
held weapons, outlines or none, flat, shaded or textured fills — with random extras: items
apart from the body (weapons, orbs with glows, chains of small pieces, floating heads, stars,
potions), thin stalks, holes and enclosed background, soft and hard ground shadows, glows; on
a random background (white, flat colour, gradient, noise, blurred blobs, photo-like texture,
or transparent), cropped by the frame or not, small or large, RGB or RGBA PNG or JPEG (some
with an EXIF orientation, their pixels stored turned so that a viewer shows them upright).

    python3 tests/quality/scenes.py --seeds 0-199 --out /tmp/scenes
    # /tmp/scenes/scene-0007.png (or .jpg), scene-0007.mask.png, scene-0007.json

The mask (8-bit grey PNG, the picture's upright size) is 255 where the subject is and 0
elsewhere: every part of the character, translucent parts and items apart from it included,
shadows and glows excluded. A pixel is subject when the subject's shapes together cover at
least half of it (their coverages composited; a translucent part covers as if it were opaque). The JSON sidecar lists the scene's kinds (for tables of what fails where), its parts
(each 4-connected piece of the mask, with what it was drawn as and its share of the subject),
and counts of the visible shadow and glow pixels.

Nothing here is tuned per seed: every choice comes from random.Random(seed), with fixed
probabilities, so any seed gives a new scene. Python 3.11 standard library only. The
character is built by figures.py, painted by paint.py with raster.py's scanline fill, and
written with pngio.py and jpeg.py; README.md says more.
"""

import argparse
import json
import math
import os
import random
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import jpeg  # noqa: E402
import pngio  # noqa: E402
import raster  # noqa: E402
from figures import Builder, Part, Shape, boxes_overlap, build_character, ellipse, rrect, regular, union_box, weapon  # noqa: E402
from paint import Canvas, Flat, Shade, Tile, background, hsv, random_colour, scaled  # noqa: E402

VERSION = 1

# The seeds the pipeline may be tuned on: look at these pictures and their results freely.
TUNING_SEEDS = range(0, 200)
# The held-out seeds: a second set, run only as a report once the work is done, to show the
# figures hold on pictures nobody looked at. Never open these pictures, masks or results while
# changing the pipeline, and never tune on them: then they would be tuning seeds too.
HELD_OUT_SEEDS = range(100000, 100200)

# Canvas.top's tag of an outline; a part's tag is its place in Builder.parts, from 1.
OUTLINE_TAG = 0xFFFF

# Every kind a sidecar can list, in table order.
KINDS = [
    "all", "bg-white", "bg-flat", "bg-gradient", "bg-noise", "bg-blobs", "bg-photo", "bg-transparent",
    "alpha", "jpeg", "exif", "small", "large", "cropped", "item-apart", "small-part", "weapon", "orb",
    "chain", "floating-head", "stalk", "enclosed-background", "ground-shadow", "shadow-soft",
    "shadow-hard", "glow", "translucent", "outline", "no-outline", "fill-flat", "fill-shaded",
    "fill-textured", "near-bg-colour",
]

# ----------------------------------------------------------------------------------------
# the scene


class Scene:
    """Everything about one seed: the plan drawn from its RNG, then the pixels."""

    def __init__(self, seed):
        self.seed = seed
        rng = random.Random(seed)
        self.rng = rng
        # the file
        f = rng.random()
        self.format = "alpha" if f < 0.2 else "jpeg" if f < 0.5 else "png"
        self.orientation = 1
        self.exif = False
        if self.format == "jpeg" and rng.random() < 0.55:
            self.exif = True
            self.orientation = rng.choice([1, 2, 3, 4, 5, 6, 6, 7, 8, 8])
        self.quality = rng.randint(70, 95)
        self.subsampling = rng.random() < 0.8
        self.byteorder = rng.choice(["MM", "II"])
        z = rng.random()
        self.size = rng.randint(128, 250) if z < 0.2 else rng.randint(760, 1000) if z < 0.3 else rng.randint(300, 720)
        if self.format == "jpeg":
            self.size = min(self.size, 720)
        self.bg = "transparent" if self.format == "alpha" else rng.choices(
            ["white", "flat", "gradient", "noise", "blobs", "photo"], [0.22, 0.16, 0.18, 0.14, 0.14, 0.16])[0]
        self.style = rng.choices(["flat", "shaded", "textured"], [0.4, 0.35, 0.25])[0]
        self.outline = rng.random() < 0.6
        self.cropped = rng.random() < 0.2
        self.kinds = set()
        self._plan()

    def _plan(self):
        rng = self.rng
        hue = rng.random()
        main = hsv(hue, rng.uniform(0.3, 0.9), rng.uniform(0.4, 0.95))
        second = hsv(hue + rng.uniform(0.3, 0.7), rng.uniform(0.3, 0.9), rng.uniform(0.3, 0.9))
        skin = hsv(rng.uniform(0.02, 0.12), rng.uniform(0.2, 0.5), rng.uniform(0.75, 1.0)) if rng.random() < 0.7 else \
            random_colour(rng)
        accent = hsv(rng.random(), rng.uniform(0.5, 1.0), rng.uniform(0.6, 1.0))
        metal = tuple([rng.randint(150, 215)] * 3)
        dark = hsv(rng.random(), rng.uniform(0.2, 0.6), rng.uniform(0.08, 0.25))
        self.palette = [main, second, skin, accent, metal, dark]
        self.near_bg = rng.random() < 0.2  # a part of the subject in the background's colour
        self.bg_seed = rng.getrandbits(64)
        b = Builder(rng, self.style)
        self.builder = b
        # a ground shadow, drawn first (behind everything)
        shadow = None
        if rng.random() < 0.35:
            shadow = (rng.random() < 0.55, rng.uniform(0.25, 0.6), rng.uniform(0.12, 0.3), rng.uniform(0.5, 1.0))
        aura = rng.random() < 0.08
        body_start = len(b.parts)
        geo = build_character(rng, b, self.palette)
        self.figure = geo["figure"]
        self.geo = geo
        body_box = union_box(p.unit_box() for p in b.parts[body_start:])
        occupied = [body_box]
        glows = []
        # held weapons
        for side, pose, hx, hy, ex, ey in geo["hands"]:
            if pose in ("out", "up", "down") and rng.random() < 0.4:
                ang = rng.uniform(-0.6, 0.6) + (0 if pose != "down" else side * rng.uniform(0.6, 1.4))
                g = weapon(rng, b, hx, hy, ang, rng.uniform(25, 55), 1, self.palette)
                self.kinds.add("weapon")
                if g:
                    glows.append(g)
        # a thin stalk with a ball on its end (an antenna), from the top of the head
        if rng.random() < 0.2:
            top = geo["head_top"]
            x0 = rng.uniform(-0.4, 0.4) * geo["head_r"]
            ln = rng.uniform(8, 25)
            a = rng.uniform(-0.7, 0.7)
            x1, y1 = x0 + ln * math.sin(a), top + 1 - ln * math.cos(a)
            o = b.owner("stalk")
            b.parts.append(Part("stalk", [Shape("capsule_px", x0, top + 2, x1, y1, rng.uniform(0.75, 1.5))],
                                ("flat", self.palette[5] if rng.random() < 0.5 else self.palette[4]), 1.0, o, False))
            br = rng.uniform(1.5, 4.5)
            b.add("stalk", [ellipse(x1, y1, br, br)], self.palette[3], owner=o, textured_ok=False)
            self.kinds.add("stalk")
            occupied.append((x1 - br, y1 - br, x1 + br, y1 + br))
        # a shield with a hole (background enclosed), on a hand
        if rng.random() < 0.1:
            side, pose, hx, hy = geo["hands"][0][:4]
            r = rng.uniform(8, 14)
            hx += side * r * 0.7  # held at its rim, so that its hole shows the background
            b.add("shield", [ellipse(hx, hy, r, r * 1.1), ellipse(hx, hy, r * rng.uniform(0.35, 0.6), r * 0.6, hole=True)],
                  self.palette[3])
        body_box = union_box(p.unit_box() for p in b.parts[body_start:])
        occupied = [body_box] + occupied[1:]
        # items apart from the body
        n_items = rng.choices([0, 1, 2, 3], [0.45, 0.3, 0.17, 0.08])[0]
        for _ in range(n_items):
            what = rng.choices(["orb", "star", "potion", "weapon", "chain", "floating-head", "gem"],
                               [0.25, 0.12, 0.1, 0.16, 0.17, 0.1, 0.1])[0]
            self._item(what, body_box, occupied, glows)
        # glows: around orbs and gems, sometimes an aura around the whole character
        for gx, gy, gr, gc in glows:
            b.effect("glow", gx, gy, gr, gr, gc, rng.uniform(0.35, 0.8), rng.uniform(1.0, 2.5))
        if aura:
            cx = (body_box[0] + body_box[2]) / 2
            cy = (body_box[1] + body_box[3]) / 2
            b.effect("glow", cx, cy, (body_box[2] - body_box[0]) * 0.75, (body_box[3] - body_box[1]) * 0.65,
                     hsv(rng.random(), 0.6, 1.0), rng.uniform(0.3, 0.6), 1.5)
            glows.append(None)
        # glows are drawn behind what they surround: move them to the front of the list, after
        # the shadow, so the subject is painted over them (an orb glows on the background)
        effects = [p for p in b.parts if p.effect or p.hard]
        b.parts = effects + [p for p in b.parts if not (p.effect or p.hard)]
        if shadow:
            soft, strength, flat, width = shadow
            rx = geo["body_w"] * 0.5 * rng.uniform(1.0, 2.2) * width
            ry = rx * flat
            cy = rng.uniform(-1.5, 1.0)
            colour = (0, 0, 0) if rng.random() < 0.6 else scaled(self.palette[5], 0.5)
            if soft:
                sh = b.effect("shadow", rng.uniform(-3, 3), cy, rx * 1.3, ry * 1.3, colour, strength, rng.uniform(0.8, 2.0))
            else:
                sh = b.effect("shadow", rng.uniform(-3, 3), cy, rx, ry, colour, strength, 1, hard=True)
            b.parts.remove(sh)
            b.parts.insert(0, sh)
            self.shadow_kind = "shadow-soft" if soft else "shadow-hard"
        else:
            self.shadow_kind = None
        self.glows = bool(glows)
        # the frame: the subject's box with random margins, cut on one side when cropped
        subject_box = union_box(p.unit_box() for p in b.parts if not (p.effect or p.hard) and p.owner)
        x0, y0, x1, y1 = subject_box
        bw, bh = x1 - x0, y1 - y0
        m = [rng.uniform(0.03, 0.3) * bw, rng.uniform(0.03, 0.25) * bh, rng.uniform(0.03, 0.3) * bw, rng.uniform(0.03, 0.25) * bh]
        if shadow:
            m[3] = max(m[3], rng.uniform(0.05, 0.15) * bh)
        if self.cropped:
            edge = rng.choices([3, 0, 2, 1], [0.55, 0.18, 0.17, 0.1])[0]
            m[edge] = -rng.uniform(0.04, 0.2) * (bh if edge % 2 else bw)
        if rng.random() < 0.3:  # a wider frame than the figure needs (landscape pictures)
            extra = rng.uniform(0.2, 0.8) * bh
            m[0] += extra / 2
            m[2] += extra / 2
        fx0, fy0, fx1, fy1 = x0 - m[0], y0 - m[1], x1 + m[2], y1 + m[3]
        fw, fh = fx1 - fx0, fy1 - fy0
        s = self.size / max(fw, fh)
        self.scale = s
        self.width = max(32, int(round(fw * s)))
        self.height = max(32, int(round(fh * s)))
        self.tx = -fx0 * s
        self.ty = -fy0 * s
        self.outline_px = rng.uniform(1.0, 2.2) * max(1.0, self.size / 400) if self.outline else 0.0
        self.outline_colour = self.palette[5] if rng.random() < 0.7 else (0, 0, 0)
        self.alpha_under = rng.choice(["black", "black", "white", "background"])
        if self.bg == "transparent" and self.alpha_under == "background":
            self.bg_under = rng.choice(["white", "flat", "gradient", "blobs"])
        self.near_bg_part = rng.choice(["torso", "head", "arm", "leg", "body", "weapon", "hand"])

    def _item(self, what, body_box, occupied, glows):
        rng = self.rng
        b = self.builder
        bx0, by0, bx1, by1 = body_box
        size = {"orb": rng.uniform(1.5, 11), "star": rng.uniform(2, 10), "potion": rng.uniform(3, 9),
                "weapon": rng.uniform(20, 50), "chain": rng.uniform(1.0, 3.5), "floating-head": rng.uniform(5, 12),
                "gem": rng.uniform(1.2, 6)}[what]
        for _ in range(6):
            gap = rng.uniform(1.5, 30)
            side = rng.choices(["left", "right", "above", "ground"], [0.35, 0.35, 0.15, 0.15])[0]
            ext = size if what != "weapon" else size * 0.6
            if side == "left":
                cx, cy = bx0 - gap - ext, rng.uniform(by0, by1 - ext)
            elif side == "right":
                cx, cy = bx1 + gap + ext, rng.uniform(by0, by1 - ext)
            elif side == "above":
                cx, cy = rng.uniform(bx0, bx1), by0 - gap - ext
            else:
                cx, cy = (bx0 - gap - ext) if rng.random() < 0.5 else (bx1 + gap + ext), -ext
            box = (cx - ext, cy - ext, cx + ext, cy + ext)
            if what == "chain":
                box = (cx - 25, cy - 25, cx + 25, cy + 25)
            if not any(boxes_overlap(box, o, 1.0) for o in occupied):
                break
        else:
            return
        o = b.owner(what)
        self.kinds.add(what)
        pal = self.palette
        if what == "orb":
            c = hsv(rng.random(), rng.uniform(0.4, 0.9), rng.uniform(0.7, 1.0))
            if rng.random() < 0.7:
                glows.append((cx, cy, size * rng.uniform(1.6, 3.0), scaled(c, 1.1)))
            b.add("orb", [ellipse(cx, cy, size, size)], c, owner=o, textured_ok=False)
        elif what == "star":
            b.add("star", [regular(cx, cy, size, 5, rng.uniform(-0.3, 0.3), size * rng.uniform(0.4, 0.55))],
                  hsv(rng.uniform(0.1, 0.17), 0.8, 1.0), owner=o, textured_ok=False)
        elif what == "gem":
            c = hsv(rng.random(), 0.8, 0.9)
            b.add("gem", [regular(cx, cy, size, rng.choice([4, 6]), 0)], c, owner=o, textured_ok=False)
            if rng.random() < 0.4:
                glows.append((cx, cy, size * 2.5, c))
        elif what == "potion":
            c = random_colour(rng)
            b.add("potion", [ellipse(cx, cy + size * 0.2, size * 0.8, size * 0.8), rrect(cx, cy - size * 0.6, size * 0.5, size * 0.8, size * 0.1)],
                  c, owner=o, textured_ok=False)
        elif what == "weapon":
            weapon(rng, b, cx, cy + size * 0.4, rng.uniform(-0.8, 0.8), size, o, pal)
        elif what == "floating-head":
            r = size
            b.add("floating-head", [ellipse(cx, cy, r, r * rng.uniform(0.9, 1.1))], pal[2] if rng.random() < 0.5 else (235, 235, 225),
                  owner=o)
            for side in (-1, 1):
                eye = b.add("floating-head", [ellipse(cx + side * r * 0.35, cy, r * 0.16, r * 0.22)], pal[5], owner=o,
                            outline=False, textured_ok=False)
                eye.feature = True
        elif what == "chain":
            n = rng.randint(3, 9)
            linked = rng.random() < 0.3
            ang = rng.uniform(0, 2 * math.pi)
            x, y = cx, cy
            c = pal[4] if rng.random() < 0.6 else pal[3]
            ring = rng.random() < 0.5
            for k in range(n):
                r = size * rng.uniform(0.8, 1.2)
                shapes = [ellipse(x, y, r, r)]
                if ring and r > 1.5:
                    shapes.append(ellipse(x, y, r * 0.45, r * 0.45, hole=True))
                b.add("chain", shapes, c, owner=o, textured_ok=False, outline=r > 2)
                ang += rng.uniform(-0.5, 0.5)
                step = r * (1.6 if linked else rng.uniform(2.4, 4.0))
                x, y = x + step * math.cos(ang), y + step * math.sin(ang)
                if boxes_overlap((x - r, y - r, x + r, y + r), body_box, 2 * r):
                    break
        occupied.append(box)

    # ------------------------------------------------------------------------------------

    def render(self, effects=True, items=True):
        """The upright picture as a Canvas (rgb, alpha, mask, owner, fx; top: the tag of the part
        on top, its place in builder.parts from 1, or OUTLINE_TAG)."""
        rng = random.Random(self.bg_seed)
        w, h = self.width, self.height
        cv = Canvas(w, h, self.bg == "transparent")
        if self.bg != "transparent":
            bgc = background(rng, self.bg, w, h, cv)
        else:
            bgc = None
            if self.alpha_under == "white":
                cv.rgb[:] = b"\xff" * (3 * w * h)
            elif self.alpha_under == "background":
                background(rng, self.bg_under, w, h, cv)
        s, tx, ty = self.scale, self.tx, self.ty
        near_done = False
        for tag, p in enumerate(self.builder.parts, 1):
            if p.effect or p.hard:
                if not effects:
                    continue
                fx = 1 if p.what == "shadow" else 2
                if p.effect:
                    _, cx, cy, rx, ry, colour, strength, power = p.effect
                    cv.soft(s * cx + tx, s * cy + ty, max(1.0, s * rx), max(1.0, s * ry), colour, strength, power, fx)
                else:
                    cs = [sh.contour(s, tx, ty) for sh in p.shapes]
                    cv.paint(cs, Flat(p.fill[1]), p.opacity, 0, fx)
                continue
            if not items and p.owner > 1 and self.builder.owners[p.owner] not in ("stalk",):
                continue
            # Each solid shape with the holes listed after it is filled by the even-odd rule;
            # the solids of a part are painted one after the other (their union), outlines first.
            groups = []
            for sh in p.shapes:
                c = sh.contour(s, tx, ty)
                if sh.hole and groups:
                    groups[-1].append((sh, c))
                else:
                    groups.append([(sh, c)])
            contours = [c for g in groups for _, c in g]
            if p.outline and self.outline_px > 0:
                for g in groups:
                    grown = []
                    for sh, c in g:
                        if sh.hole:
                            o = raster.offset(c, -self.outline_px)
                            if raster.signed_area(o) * raster.signed_area(c) > 0:
                                grown.append(o)
                        else:
                            grown.append(raster.offset(c, self.outline_px))
                    cv.paint(grown, Flat(self.outline_colour), p.opacity, p.owner, tag=OUTLINE_TAG)
            fill = p.fill
            colour = fill[1]
            if self.near_bg and bgc is not None and p.what == self.near_bg_part and self.bg in ("white", "flat", "gradient"):
                colour = tuple(max(0, min(255, v + d)) for v, d in zip(bgc, (-6, -4, -5)))
                fill = ("flat", colour)
                near_done = True
            box = raster.bbox(contours)
            if fill[0] == "flat":
                f = Flat(colour)
            elif fill[0] == "shade":
                f = Shade(colour, box, fill[2], fill[3], fill[4])
            else:
                f = Tile(random.Random(fill[5]), colour, fill[2], fill[4] * max(1.0, s / 4), fill[3])
            for g in groups:
                cv.paint([c for _, c in g], f, p.opacity, p.owner, tag=tag)
        self.near_bg_used = near_done
        cv.finish()
        return cv

    # ------------------------------------------------------------------------------------

    def analyse(self, cv):
        """The sidecar's facts, from the mask itself."""
        w, h = cv.w, cv.h
        mask = cv.mask
        area = mask.count(255)
        # Parts are 8-connected: an anti-aliased tip that touches the rest at a corner is no part
        # of its own. Holes (background the figure encloses) are 4-connected, the dual.
        comps = components(mask, w, h, 255, diagonal=True)
        parts = []
        for c in comps:
            counts = {}
            for y, x0, x1 in c["runs"]:
                for o in set(cv.owner[y * w + x0:y * w + x1]):
                    counts[o] = counts.get(o, 0) + cv.owner[y * w + x0:y * w + x1].count(o)
            owner = max(counts, key=lambda k: counts[k])
            parts.append({"what": self.builder.owners.get(owner, "body"), "area": c["area"],
                          "share": round(c["area"] / max(1, area), 6), "bbox": c["bbox"]})
        parts.sort(key=lambda p: -p["area"])
        holes = [c for c in components(mask, w, h, 0) if not c["border"]]
        hole_area = sum(c["area"] for c in holes if c["area"] >= max(6, 0.001 * area))
        # effect pixels outside the subject: fx AND (NOT mask), byte by byte, as integers
        outside = int.from_bytes(bytes(mask).translate(_INVERT), "big") & int.from_bytes(cv.fx, "big")
        outside = outside.to_bytes(w * h, "big")
        shadow, glow = outside.count(1), outside.count(2)
        touches = []
        if any(mask[0:w]):
            touches.append("top")
        if any(mask[(h - 1) * w:h * w]):
            touches.append("bottom")
        if any(mask[0::w]):
            touches.append("left")
        if any(mask[w - 1::w]):
            touches.append("right")
        kinds = {"all", "bg-" + self.bg}
        kinds |= {k for k in self.kinds if k in ("weapon", "stalk")}
        if self.format == "alpha":
            kinds.add("alpha")
        if self.format == "jpeg":
            kinds.add("jpeg")
        if self.exif and self.orientation != 1:
            kinds.add("exif")
        if max(w, h) < 256:
            kinds.add("small")
        if max(w, h) >= 760:
            kinds.add("large")
        if touches:
            kinds.add("cropped")
        if len(parts) > 1:
            kinds.add("item-apart")
            if any(p["share"] < 0.005 for p in parts[1:]):
                kinds.add("small-part")
        for p in parts:
            if p["what"] in ("orb", "chain", "floating-head", "weapon"):
                kinds.add(p["what"])
        if self.geo.get("floating") and sum(1 for p in parts if p["what"] == "body") > 1:
            kinds.add("floating-head")
        if hole_area > 0:
            kinds.add("enclosed-background")
        if self.shadow_kind and shadow >= max(20, 0.01 * area):
            kinds.add("ground-shadow")
            kinds.add(self.shadow_kind)
        if glow >= max(20, 0.002 * area):
            kinds.add("glow")
        if any(p.opacity < 1.0 and p.owner for p in self.builder.parts if not (p.effect or p.hard)):
            kinds.add("translucent")
        kinds.add("outline" if self.outline else "no-outline")
        kinds.add("fill-" + self.style)
        if self.near_bg_used:
            kinds.add("near-bg-colour")
        return {
            "kinds": [k for k in KINDS if k in kinds],
            "parts": parts,
            "subject_pixels": area,
            "hole_pixels": hole_area,
            "shadow_pixels": shadow,
            "glow_pixels": glow,
            "touches": touches,
        }


_INVERT = bytes(255 - v for v in range(256))


def components(mask, w, h, value, diagonal=False):
    """Connected components (4-connected, or 8-connected with `diagonal`) of the pixels equal
    to `value` (0 or 255), from row runs: each with its runs (y, x0, x1), area, bbox
    [x0, y0, x1, y1] (inclusive) and whether it touches the picture's border."""
    d = 1 if diagonal else 0
    target = bytes([value])
    other = bytes([255 - value if value in (0, 255) else 0])
    parent = []

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    runs = []
    prev = []
    for y in range(h):
        row = bytes(mask[y * w:(y + 1) * w])
        if value not in (0, 255):
            raise ValueError("components: value must be 0 or 255")
        cur = []
        x = row.find(target)
        while x != -1:
            e = row.find(other, x)
            if e == -1:
                e = w
            idx = len(runs)
            runs.append((y, x, e))
            parent.append(idx)
            cur.append(idx)
            x = row.find(target, e)
        # join with the previous row's runs that overlap
        i = j = 0
        while i < len(cur) and j < len(prev):
            a = runs[cur[i]]
            b = runs[prev[j]]
            if a[1] < b[2] + d and b[1] < a[2] + d:
                ra, rb = find(cur[i]), find(prev[j])
                if ra != rb:
                    parent[max(ra, rb)] = min(ra, rb)
            if a[2] < b[2]:
                i += 1
            else:
                j += 1
        prev = cur
    groups = {}
    for i, (y, x0, x1) in enumerate(runs):
        g = groups.setdefault(find(i), {"runs": [], "area": 0, "bbox": [x0, y, x1 - 1, y], "border": False})
        g["runs"].append((y, x0, x1))
        g["area"] += x1 - x0
        bb = g["bbox"]
        bb[0] = min(bb[0], x0)
        bb[2] = max(bb[2], x1 - 1)
        bb[3] = y
        if y == 0 or y == h - 1 or x0 == 0 or x1 == w:
            g["border"] = True
    return list(groups.values())


def parts_apart(sc, cv, share):
    """The true parts apart from the body larger than `share` of the subject: the mask's
    8-connected pieces but the largest, each {"what" (what most of it was drawn as), "area",
    "runs"}."""
    w, h = cv.w, cv.h
    comps = sorted(components(cv.mask, w, h, 255, diagonal=True), key=lambda c: -c["area"])
    area = sum(c["area"] for c in comps)
    out = []
    for comp in comps[1:]:
        if comp["area"] <= share * area:
            continue
        owners = [cv.owner[y * w + x0] for y, x0, _ in comp["runs"]]
        out.append({"what": sc.builder.owners.get(max(set(owners), key=owners.count), "body"), "area": comp["area"],
                    "runs": comp["runs"]})
    return out


# ----------------------------------------------------------------------------------------
# files


def scene_name(seed):
    return "scene-%04d" % seed if seed >= 0 else "scene-m%04d" % -seed


def make(seed):
    """(scene, canvas, picture bytes, extension, sidecar dict) of one seed."""
    sc = Scene(seed)
    cv = sc.render()
    info = sc.analyse(cv)
    w, h = sc.width, sc.height
    if sc.format == "alpha":
        px = bytearray(w * h * 4)
        for c in range(3):
            px[c::4] = cv.rgb[c::3]
        px[3::4] = cv.alpha
        data = pngio.encode_png(w, h, 4, bytes(px))
        ext = "png"
    elif sc.format == "png":
        data = pngio.encode_png(w, h, 3, bytes(cv.rgb))
        ext = "png"
    else:
        sw, sh, stored = jpeg.store_for_orientation(w, h, 3, bytes(cv.rgb), sc.orientation)
        data = jpeg.encode_jpeg(sw, sh, stored, sc.quality, sc.orientation if sc.exif else None, sc.byteorder,
                                sc.subsampling)
        ext = "jpg"
    name = scene_name(seed)
    sidecar = {
        "version": VERSION,
        "seed": seed,
        "picture": name + "." + ext,
        "mask": name + ".mask.png",
        "width": w,
        "height": h,
        "format": sc.format,
        "exif_orientation": sc.orientation if sc.exif else None,
        "background": sc.bg,
        "figure": sc.figure,
        "style": sc.style,
    }
    sidecar.update(info)
    return sc, cv, data, ext, sidecar


def write(seed, out):
    sc, cv, data, ext, sidecar = make(seed)
    name = scene_name(seed)
    with open(os.path.join(out, name + "." + ext), "wb") as f:
        f.write(data)
    pngio.write_png(os.path.join(out, name + ".mask.png"), sc.width, sc.height, 1, bytes(cv.mask))
    with open(os.path.join(out, name + ".json"), "w") as f:
        json.dump(sidecar, f, indent=1, sort_keys=True)
        f.write("\n")
    return sidecar


def parse_seeds(text):
    """'0-199', '5', '1,4,9-12', 'tuning' or 'held-out' -> a list of seeds."""
    if text == "tuning":
        return list(TUNING_SEEDS)
    if text == "held-out":
        return list(HELD_OUT_SEEDS)
    seeds = []
    for part in text.split(","):
        if "-" in part.strip()[1:]:
            a, b = part.rsplit("-", 1)
            seeds.extend(range(int(a), int(b) + 1))
        else:
            seeds.append(int(part))
    return seeds


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seeds", default="0-199", help="e.g. 0-199, 3,7,9-12, tuning or held-out")
    ap.add_argument("--out", required=True, help="folder to write the scenes into")
    args = ap.parse_args(argv)
    os.makedirs(args.out, exist_ok=True)
    import time
    t0 = time.time()
    seeds = parse_seeds(args.seeds)
    for seed in seeds:
        s = write(seed, args.out)
        print("%s %dx%d %s" % (scene_name(seed), s["width"], s["height"], " ".join(s["kinds"][1:])))
    print("%d scenes in %.1f s" % (len(seeds), time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
