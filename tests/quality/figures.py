"""The character of a scene, in its own units (100 units tall, feet at y = 0, y down): shapes
as specs turned into pixel contours once the scene's scale is known, parts (what is drawn, in
order, with its fill, opacity and owner), and the builders of bodies, faces and weapons.

    b = Builder(rng, "shaded")
    geo = build_character(rng, b, palette)             # owner 1: the body
    weapon(rng, b, x, y, angle, 40, owner, palette)    # a held or floating weapon
"""

import math

import raster
from paint import hsv, random_colour, scaled

# ----------------------------------------------------------------------------------------
# shapes: specs in the character's units (100 units tall, feet at y = 0, y down), turned into
# pixel contours once the scale is known


class Shape:
    def __init__(self, kind, *args, hole=False):
        self.kind = kind
        self.args = args
        self.hole = hole

    def contour(self, s, tx, ty):
        a = self.args
        k = self.kind
        if k == "ellipse":
            cx, cy, rx, ry, rot = a
            return raster.ellipse(s * cx + tx, s * cy + ty, max(0.3, s * rx), max(0.3, s * ry), rot)
        if k == "capsule":
            x0, y0, x1, y1, r0, r1 = a
            return raster.capsule(s * x0 + tx, s * y0 + ty, s * x1 + tx, s * y1 + ty, max(0.3, s * r0), max(0.3, s * r1))
        if k == "capsule_px":  # radius in pixels whatever the scale: a thin stalk
            x0, y0, x1, y1, r = a
            return raster.capsule(s * x0 + tx, s * y0 + ty, s * x1 + tx, s * y1 + ty, r, r, n=12)
        if k == "rrect":
            cx, cy, w, h, r, rot = a
            return raster.rounded_rect(s * cx + tx, s * cy + ty, s * w, s * h, s * r, rot)
        if k == "regular":
            cx, cy, r, n, rot, inner = a
            return raster.regular(s * cx + tx, s * cy + ty, s * r, n, rot, s * inner if inner else None)
        if k == "poly":
            return [(s * x + tx, s * y + ty) for x, y in a[0]]
        raise ValueError(k)

    def unit_box(self):
        c = self.contour(1.0, 0.0, 0.0) if self.kind != "capsule_px" else raster.capsule(*self.args[:4], 0.5, 0.5)
        return raster.bbox([c])


def ellipse(cx, cy, rx, ry, rot=0.0, hole=False):
    return Shape("ellipse", cx, cy, rx, ry, rot, hole=hole)


def capsule(x0, y0, x1, y1, r0, r1=None):
    return Shape("capsule", x0, y0, x1, y1, r0, r0 if r1 is None else r1)


def rrect(cx, cy, w, h, r, rot=0.0, hole=False):
    return Shape("rrect", cx, cy, w, h, r, rot, hole=hole)


def poly(pts, hole=False):
    return Shape("poly", list(pts), hole=hole)


def regular(cx, cy, r, n, rot=0.0, inner=None):
    return Shape("regular", cx, cy, r, n, rot, inner)


# The parts drawn on the figure that a back made up from the front must not repeat: the face
# and emblems (a floating head's eyes are flagged where they are drawn, in scenes.py).
FEATURES = ("eye", "pupil", "mouth", "visor", "emblem")


class Part:
    """Something drawn: subject (owner > 0, into the mask) or an effect (a shadow, a glow)."""

    def __init__(self, what, shapes, fill, opacity=1.0, owner=1, outline=False, effect=None, hard=False):
        self.what = what
        self.feature = what in FEATURES
        self.hard = hard  # a hard-edged effect (a hard shadow): drawn from its shapes
        self.shapes = shapes
        self.fill = fill
        self.opacity = opacity
        self.owner = owner
        self.outline = outline
        self.effect = effect  # None, or ("soft", cx, cy, rx, ry, colour, strength, power)

    def unit_box(self):
        if self.effect:
            _, cx, cy, rx, ry = self.effect[:5]
            return cx - rx, cy - ry, cx + rx, cy + ry
        boxes = [sh.unit_box() for sh in self.shapes if not sh.hole]
        return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def union_box(boxes):
    boxes = list(boxes)
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def boxes_overlap(a, b, pad=0.0):
    return a[0] - pad < b[2] and b[0] - pad < a[2] and a[1] - pad < b[3] and b[1] - pad < a[3]


# ----------------------------------------------------------------------------------------
# the character


class Builder:
    """Collects what a scene draws, in order, in the character's units."""

    def __init__(self, rng, style):
        self.rng = rng
        self.style = style  # "flat", "shaded" or "textured"
        self.parts = []
        self.owners = {1: "body"}
        self.items = []  # (what, apart)

    def owner(self, what):
        o = len(self.owners) + 1
        self.owners[o] = what
        return o

    def fill(self, colour, textured_ok=True):
        rng = self.rng
        if self.style == "shaded":
            return ("shade", colour, rng.uniform(-2.6, -1.9), rng.uniform(0.12, 0.35), rng.choice([0, 0, 2, 3]))
        if self.style == "textured" and textured_ok and rng.random() < 0.6:
            c2 = scaled(colour, rng.choice([0.75, 0.85, 1.2])) if rng.random() < 0.7 else random_colour(rng)
            return ("tile", colour, c2, rng.choice(["stripes", "hstripes", "checks", "dots", "noise", "scales"]),
                    rng.uniform(3, 12), rng.getrandbits(32))
        return ("flat", colour)

    def add(self, what, shapes, colour, owner=1, opacity=1.0, outline=True, textured_ok=True):
        p = Part(what, shapes, self.fill(colour, textured_ok), opacity, owner, outline)
        self.parts.append(p)
        return p

    def effect(self, what, cx, cy, rx, ry, colour, strength, power, hard=False):
        if hard:
            p = Part(what, [ellipse(cx, cy, rx, ry)], ("flat", colour), strength, 0, False, hard=True)
        else:
            p = Part(what, [], None, strength, 0, False, ("soft", cx, cy, rx, ry, colour, strength, power))
        self.parts.append(p)
        return p


def _dir(angle_from_down, side):
    """A unit vector at `angle_from_down` (radians) from straight down, turned outward on `side`."""
    return side * math.sin(angle_from_down), math.cos(angle_from_down)


def build_character(rng, b, palette):
    """Draws the body (owner 1); returns its geometry for the extras."""
    figure = rng.choices(["humanoid", "robot", "slime", "ghost"], [0.5, 0.22, 0.14, 0.14])[0]
    main, second, skin, accent, metal, dark = palette
    geo = {"figure": figure}
    if figure in ("humanoid", "robot"):
        robot = figure == "robot"
        head_r = rng.uniform(11, 22)
        leg_len = rng.uniform(18, 32)
        torso_h = max(18.0, 100 - 2 * head_r - leg_len + rng.uniform(-2, 4))
        hip_y = -leg_len
        top = hip_y - torso_h
        torso_w = rng.uniform(20, 38)
        head_cy = top - head_r * rng.uniform(0.75, 0.95)
        floating = rng.random() < 0.12
        if floating:
            head_cy = top - head_r - rng.uniform(3, 10)
        geo.update(head_r=head_r, head_cy=head_cy, top=top, hip_y=hip_y, torso_w=torso_w, floating=floating)
        # cape behind (translucent sometimes)
        if rng.random() < 0.22:
            spread = torso_w * rng.uniform(0.6, 1.1)
            capy = rng.uniform(-6, -1)
            translucent = rng.random() < 0.5
            b.add("cape", [poly([(-torso_w * 0.4, top + 2), (torso_w * 0.4, top + 2), (spread, capy), (-spread, capy)])],
                  random_colour(rng), opacity=rng.uniform(0.5, 0.85) if translucent else 1.0)
        # wings (translucent sometimes)
        if rng.random() < 0.15:
            translucent = rng.random() < 0.6
            wc = random_colour(rng)
            op = rng.uniform(0.5, 0.85) if translucent else 1.0
            for side in (-1, 1):
                wx = side * (torso_w * 0.3 + rng.uniform(8, 16))
                b.add("wing", [ellipse(wx, top + torso_h * 0.3, rng.uniform(8, 14), rng.uniform(12, 20), side * 0.5)],
                      wc, opacity=op)
        # legs and feet
        lr = rng.uniform(3.0, 6.5) * torso_w / 30
        lx = torso_w * rng.uniform(0.15, 0.32)
        spread = rng.uniform(-1, 10)
        foot_h = rng.uniform(3, 6)
        leg_colour = second if rng.random() < 0.6 else main
        for side in (-1, 1):
            fx = side * (lx + spread)
            b.add("leg", [capsule(side * lx, hip_y - 2, fx, -foot_h, lr) if not robot else
                          rrect((side * lx + fx) / 2, (hip_y - foot_h) / 2, lr * 2, -hip_y - foot_h + 2, lr * 0.4,
                                -math.atan2(fx - side * lx, -hip_y))], leg_colour)
            b.add("foot", [ellipse(fx + side * rng.uniform(0, 3), -foot_h / 2, rng.uniform(4.5, 8), foot_h / 2 + 0.5)],
                  dark if rng.random() < 0.5 else accent)
        # torso
        ts = rng.choice(["ellipse", "rrect", "trapezoid", "barrel"]) if not robot else "box"
        cy = (top + hip_y) / 2
        if ts == "ellipse":
            torso = [ellipse(0, cy, torso_w / 2, torso_h / 2 + 2)]
        elif ts == "rrect" or ts == "box":
            torso = [rrect(0, cy, torso_w, torso_h + 2, torso_w * (0.08 if robot else rng.uniform(0.1, 0.3)))]
        elif ts == "barrel":
            torso = [rrect(0, cy, torso_w, torso_h + 2, torso_w * 0.45)]
        else:
            tw, bw = torso_w * rng.uniform(0.8, 1.2), torso_w * rng.uniform(0.7, 1.25)
            torso = [poly([(-tw / 2, top), (tw / 2, top), (bw / 2, hip_y + 1), (-bw / 2, hip_y + 1)])]
        window = robot and rng.random() < 0.3
        if window:  # a hole through the torso: background enclosed by the figure
            torso.append(rrect(0, cy, torso_w * rng.uniform(0.3, 0.55), torso_h * rng.uniform(0.25, 0.45),
                               rng.uniform(0.5, 3), hole=True))
        b.add("torso", torso, main)
        if rng.random() < 0.5 and not window:  # a belt
            b.add("belt", [rrect(0, hip_y - torso_h * 0.15, torso_w * 0.98, rng.uniform(2.5, 5), 1)], accent,
                  outline=False, textured_ok=False)
        if rng.random() < 0.4 and not window:  # an emblem
            b.add("emblem", [regular(0, cy - torso_h * 0.1, torso_w * rng.uniform(0.12, 0.22), rng.choice([4, 5, 6]),
                                     0, rng.choice([None, torso_w * 0.07]))], accent, outline=False, textured_ok=False)
        # arms
        ar = rng.uniform(2.3, 5.0) * torso_w / 30
        ua, la = rng.uniform(13, 22), rng.uniform(12, 20)
        hands = []
        for side in (-1, 1):
            sx, sy = side * (torso_w / 2 - ar * 0.4), top + ar + 2
            pose = rng.choices(["down", "out", "up", "hip"], [0.35, 0.3, 0.15, 0.2])[0]
            if pose == "hip":
                a1 = rng.uniform(0.6, 1.1)
                ex, ey = sx + side * ua * math.sin(a1), sy + ua * math.cos(a1)
                hx, hy = side * (torso_w / 2 - ar * 0.2), hip_y - rng.uniform(2, 8)
            else:
                a1 = {"down": rng.uniform(0.15, 0.6), "out": rng.uniform(1.0, 1.75), "up": rng.uniform(2.1, 2.9)}[pose]
                a2 = a1 + rng.uniform(-0.3, 0.5)
                d1 = _dir(a1, side)
                d2 = _dir(a2, side)
                ex, ey = sx + ua * d1[0], sy + ua * d1[1]
                hx, hy = ex + la * d2[0], ey + la * d2[1]
            arm_colour = skin if rng.random() < 0.4 else main
            b.add("arm", [capsule(sx, sy, ex, ey, ar), capsule(ex, ey, hx, hy, ar * rng.uniform(0.85, 1.0))], arm_colour)
            b.add("hand", [ellipse(hx, hy, ar * 1.3, ar * 1.3)], skin if not robot else metal, textured_ok=False)
            hands.append((side, pose, hx, hy, ex, ey))
        geo["hands"] = hands
        # head
        hs = rng.choice(["circle", "ellipse", "square", "hexagon"]) if not robot else rng.choice(["square", "square", "hexagon"])
        if rng.random() < 0.35 and not robot:  # hair or hood behind the head
            b.add("hair", [ellipse(0, head_cy - head_r * 0.15, head_r * 1.12, head_r * 1.05)], random_colour(rng))
        if hs == "circle":
            head = [ellipse(0, head_cy, head_r, head_r)]
        elif hs == "ellipse":
            head = [ellipse(0, head_cy, head_r * rng.uniform(1.0, 1.25), head_r * rng.uniform(0.8, 1.0))]
        elif hs == "square":
            head = [rrect(0, head_cy, head_r * 2, head_r * 1.8, head_r * rng.uniform(0.1, 0.5))]
        else:
            head = [regular(0, head_cy, head_r * 1.08, 6, math.pi / 6)]
        for side in (-1, 1):  # ears or horns
            if rng.random() < 0.3:
                ex = side * head_r * 0.7
                b.add("horn", [poly([(ex - 3, head_cy - head_r * 0.6), (ex + 3, head_cy - head_r * 0.6),
                                     (ex + side * rng.uniform(2, 8), head_cy - head_r - rng.uniform(5, 12))])],
                      accent if rng.random() < 0.5 else skin)
        b.add("head", head, skin if not robot else metal)
        geo["head_top"] = head_cy - head_r
        features(rng, b, head_cy, head_r, dark, robot)
        if rng.random() < 0.25:  # a hat
            hy = head_cy - head_r * 0.7
            if rng.random() < 0.5:
                b.add("hat", [poly([(-head_r * 1.1, hy), (head_r * 1.1, hy), (rng.uniform(-5, 5), hy - rng.uniform(15, 28))])],
                      random_colour(rng))
                geo["head_top"] = hy - 20
            else:
                b.add("hat", [rrect(0, hy, head_r * 2.6, 3.5, 1), rrect(0, hy - 6, head_r * 1.5, 10, 2)], random_colour(rng))
                geo["head_top"] = hy - 11
        geo["body_w"] = torso_w + 2 * lr
    else:
        # a slime or a ghost: one round body, features, maybe stubby feet or a tail
        ghost = figure == "ghost"
        bw = rng.uniform(30, 48)
        bh = rng.uniform(34, 55) if not ghost else rng.uniform(40, 60)
        cy = -bh * (0.5 if not ghost else 0.75)
        if ghost:
            tail_y = rng.uniform(-8, 0)
            translucent = rng.random() < 0.5
            b.add("tail", [poly([(-bw * 0.8, cy), (bw * 0.8, cy), (bw * rng.uniform(0.1, 0.6), tail_y),
                                 (-bw * rng.uniform(0.1, 0.6), tail_y)])],
                  main, opacity=rng.uniform(0.5, 0.85) if translucent else 1.0)
        else:
            for side in (-1, 1):
                if rng.random() < 0.6:
                    b.add("foot", [ellipse(side * bw * 0.5, -2.5, rng.uniform(4, 7), 2.5)], second)
        b.add("body", [ellipse(0, cy, bw, bh / 2 if not ghost else bh * 0.55)], main)
        if rng.random() < 0.5:  # drips or spikes on top
            for k in range(rng.randint(1, 3)):
                x = rng.uniform(-bw * 0.6, bw * 0.6)
                b.add("spike", [poly([(x - 4, cy - bh * 0.4), (x + 4, cy - bh * 0.4), (x + rng.uniform(-3, 3), cy - bh * 0.5 - rng.uniform(5, 12))])],
                      second)
        head_r = bh * 0.3
        features(rng, b, cy - bh * 0.1, head_r * 1.2, dark, False)
        geo.update(head_r=head_r, head_cy=cy, top=cy - bh / 2, hip_y=0, torso_w=bw * 2, floating=False,
                   hands=[(-1, "none", -bw, cy, -bw, cy), (1, "none", bw, cy, bw, cy)], head_top=cy - bh * 0.6,
                   body_w=bw * 2)
    return geo


def features(rng, b, cy, r, dark, robot):
    """Eyes and a mouth: small, on the head (part of the subject, never apart)."""
    ex = r * rng.uniform(0.3, 0.5)
    ey = cy + r * rng.uniform(-0.1, 0.2)
    er = r * rng.uniform(0.1, 0.2)
    if robot and rng.random() < 0.6:
        b.add("visor", [rrect(0, ey, ex * 2 + er * 3, er * 2.2, er * 0.5)], dark, outline=False, textured_ok=False)
        return
    white = rng.random() < 0.5
    for side in (-1, 1):
        if white:
            b.add("eye", [ellipse(side * ex, ey, er * 1.4, er * 1.7)], (250, 250, 250), outline=False, textured_ok=False)
            b.add("pupil", [ellipse(side * ex, ey + er * 0.2, er * 0.8, er * 1.0)], dark, outline=False, textured_ok=False)
        else:
            b.add("eye", [ellipse(side * ex, ey, er, er * 1.3)], dark, outline=False, textured_ok=False)
    if rng.random() < 0.6:
        b.add("mouth", [ellipse(0, ey + r * rng.uniform(0.3, 0.45), r * rng.uniform(0.1, 0.25), r * rng.uniform(0.04, 0.1))],
              dark, outline=False, textured_ok=False)


def weapon(rng, b, x, y, angle, size, owner, palette):
    """A sword, an axe, a hammer, a spear or a staff with its grip at (x, y), pointing at `angle`
    (radians, 0 = up, clockwise). Returns the glow spot of a staff's gem, if any."""
    main, second, skin, accent, metal, dark = palette
    kind = rng.choice(["sword", "axe", "hammer", "spear", "staff"])
    dx, dy = math.sin(angle), -math.cos(angle)
    px, py = -dy, dx  # perpendicular
    length = size * rng.uniform(0.8, 1.2)
    glow = None
    if kind == "sword":
        bw = length * rng.uniform(0.07, 0.12)
        g = length * 0.15
        b.add("weapon", [capsule(x - dx * g * 0.8, y - dy * g * 0.8, x + dx * g * 0.3, y + dy * g * 0.3, bw * 0.35)],
              dark, owner=owner, textured_ok=False)
        b.add("weapon", [poly([(x + dx * g * 0.3 + px * bw / 2, y + dy * g * 0.3 + py * bw / 2),
                               (x + dx * length * 0.92 + px * bw / 2, y + dy * length * 0.92 + py * bw / 2),
                               (x + dx * length, y + dy * length),
                               (x + dx * length * 0.92 - px * bw / 2, y + dy * length * 0.92 - py * bw / 2),
                               (x + dx * g * 0.3 - px * bw / 2, y + dy * g * 0.3 - py * bw / 2)])],
              metal if rng.random() < 0.7 else (235, 238, 240), owner=owner, textured_ok=False)
        b.add("weapon", [capsule(x + dx * g * 0.3 + px * bw * 1.4, y + dy * g * 0.3 + py * bw * 1.4,
                                 x + dx * g * 0.3 - px * bw * 1.4, y + dy * g * 0.3 - py * bw * 1.4, bw * 0.3)],
              accent, owner=owner, textured_ok=False)
    else:
        hr = length * rng.uniform(0.025, 0.045)
        b.add("weapon", [capsule(x - dx * length * 0.15, y - dy * length * 0.15, x + dx * length, y + dy * length, hr)],
              (120, 80, 45) if rng.random() < 0.6 else metal, owner=owner, textured_ok=False)
        tx, ty = x + dx * length * 0.9, y + dy * length * 0.9
        if kind == "axe":
            hw = length * rng.uniform(0.18, 0.32)
            side = rng.choice([-1, 1])
            pts = [(tx - dx * hw * 0.2, ty - dy * hw * 0.2), (tx + dx * hw * 0.2, ty + dy * hw * 0.2)]
            for k in range(7):
                a = -0.9 + 1.8 * k / 6
                ox = hw * math.cos(a)
                oy = hw * 0.9 * math.sin(a)
                pts.append((tx + side * px * ox + dx * oy, ty + side * py * ox + dy * oy))
            pts = raster._hull(pts)
            b.add("weapon", [poly(pts)], metal, owner=owner, textured_ok=False)
        elif kind == "hammer":
            hw = length * rng.uniform(0.12, 0.2)
            b.add("weapon", [rrect(tx, ty, hw * 2.2, hw * 1.3, hw * 0.15, math.atan2(py, px))], metal, owner=owner,
                  textured_ok=False)
        elif kind == "spear":
            hw = length * rng.uniform(0.05, 0.09)
            b.add("weapon", [poly([(tx + px * hw, ty + py * hw), (tx + dx * hw * 4, ty + dy * hw * 4), (tx - px * hw, ty - py * hw)])],
                  metal, owner=owner, textured_ok=False)
        else:
            gr = length * rng.uniform(0.06, 0.1)
            gx, gy = x + dx * (length + gr * 0.6), y + dy * (length + gr * 0.6)
            gc = hsv(rng.random(), rng.uniform(0.5, 0.9), 1.0)
            if rng.random() < 0.6:
                glow = (gx, gy, gr * rng.uniform(1.8, 3.0), gc)
            b.add("weapon", [ellipse(gx, gy, gr, gr)], gc, owner=owner, textured_ok=False)
    return glow
