#!/usr/bin/python3
"""Draw Stageload Studio's sample input pictures from code.

Every picture here is made by this script: characters are built from signed-distance
shapes (circles, ellipses, capsules, rounded boxes, polygons), painted with analytic
anti-aliasing (coverage = clamp(0.5 - d / pixel_size)), cel shading, a rim light and
outlines, then written as PNG by a small encoder below (zlib + struct, no PIL).

    /usr/bin/python3 resources/samples/make_samples.py          # write the pictures
    /usr/bin/python3 resources/samples/make_samples.py --check  # only read them back

Needs only the standard library and numpy. The output is deterministic: no clock, no
unseeded randomness, no timestamps in the PNG files. For the RGBA pictures the colour of
fully transparent pixels is 0 (black); partly covered edge pixels hold the subject's
own (un-premultiplied) colour.
"""

import hashlib
import math
import os
import struct
import sys
import time
import zlib
from functools import reduce

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
F32 = np.float32


# ----------------------------------------------------------------------------------------
# colours

def C(h):
    h = h.lstrip("#")
    return np.array([int(h[i:i + 2], 16) / 255.0 for i in (0, 2, 4)], F32)


def mix(a, b, t):
    return a + (b - a) * t


WHITE = np.ones(3, F32)
INK = C("#2b1f38")


# ----------------------------------------------------------------------------------------
# signed-distance shapes (design units; negative inside)

def _rot(x, y, a):
    if a == 0:
        return x, y
    c, s = math.cos(a), math.sin(a)
    return c * x + s * y, -s * x + c * y


def circle(cx, cy, r):
    return lambda x, y: np.sqrt((x - cx) ** 2 + (y - cy) ** 2) - r


def ellipse(cx, cy, rx, ry, a=0.0):
    rmin = min(rx, ry)

    def f(x, y):
        px, py = _rot(x - cx, y - cy, a)
        k0 = np.sqrt((px / rx) ** 2 + (py / ry) ** 2)
        k1 = np.sqrt((px / (rx * rx)) ** 2 + (py / (ry * ry)) ** 2)
        return np.where(k1 > 1e-9, k0 * (k0 - 1.0) / np.maximum(k1, 1e-9), -rmin)
    return f


def capsule(ax, ay, bx, by, ra, rb=None):
    """Segment a-b with radius ra at a and rb at b (tapered when they differ)."""
    rb = ra if rb is None else rb
    bax, bay = bx - ax, by - ay
    l2 = bax * bax + bay * bay

    def f(x, y):
        pax, pay = x - ax, y - ay
        h = np.clip((pax * bax + pay * bay) / l2, 0.0, 1.0)
        return np.sqrt((pax - bax * h) ** 2 + (pay - bay * h) ** 2) - (ra + (rb - ra) * h)
    return f


def chain(points, radii, k=0.0):
    """Tapered capsules through a list of points, smoothly joined."""
    fs = [capsule(*points[i], *points[i + 1], radii[i], radii[i + 1])
          for i in range(len(points) - 1)]
    return smooth_union(k, *fs) if k > 0 else union(*fs)


def rbox(cx, cy, hw, hh, r=0.0, a=0.0):
    def f(x, y):
        px, py = _rot(x - cx, y - cy, a)
        qx = np.abs(px) - (hw - r)
        qy = np.abs(py) - (hh - r)
        return (np.sqrt(np.maximum(qx, 0) ** 2 + np.maximum(qy, 0) ** 2)
                + np.minimum(np.maximum(qx, qy), 0) - r)
    return f


def polygon(pts, r=0.0):
    """Exact polygon distance; r > 0 rounds it (and grows it by r)."""
    pts = [(float(a), float(b)) for a, b in pts]

    def f(x, y):
        d = (x - pts[0][0]) ** 2 + (y - pts[0][1]) ** 2
        s = np.ones_like(x)
        for i in range(len(pts)):
            vix, viy = pts[i]
            vjx, vjy = pts[i - 1]
            ex, ey = vjx - vix, vjy - viy
            wx, wy = x - vix, y - viy
            h = np.clip((wx * ex + wy * ey) / (ex * ex + ey * ey), 0.0, 1.0)
            bx, by = wx - ex * h, wy - ey * h
            d = np.minimum(d, bx * bx + by * by)
            c1 = y >= viy
            c2 = y < vjy
            c3 = ex * wy > ey * wx
            s = np.where((c1 & c2 & c3) | (~c1 & ~c2 & ~c3), -s, s)
        return s * np.sqrt(d) - r
    return f


def star(cx, cy, ro, ri, n=5, a=0.0, r=0.0):
    pts = []
    for i in range(2 * n):
        ang = a - math.pi / 2 + i * math.pi / n
        rr = ro if i % 2 == 0 else ri
        pts.append((cx + rr * math.cos(ang), cy + rr * math.sin(ang)))
    return polygon(pts, r)


def arc(cx, cy, ra, rb, aperture, a=0.0):
    """Arc of radius ra and half-thickness rb, symmetric about the +y (downward) axis,
    spanning +-aperture radians; a rotates it. A smile is arc(...) with a=0."""
    sx, sy = math.sin(aperture), math.cos(aperture)

    def f(x, y):
        px, py = _rot(x - cx, y - cy, a)
        px = np.abs(px)
        end = np.sqrt((px - sx * ra) ** 2 + (py - sy * ra) ** 2)
        ring = np.abs(np.sqrt(px * px + py * py) - ra)
        return np.where(sy * px > sx * py, end, ring) - rb
    return f


def halfplane(nx, ny, c):
    """Inside where nx*x + ny*y < c (n need not be unit; it is normalised)."""
    n = math.hypot(nx, ny)
    nx, ny, c = nx / n, ny / n, c / n
    return lambda x, y: x * nx + y * ny - c


def union(*fs):
    return lambda x, y: reduce(np.minimum, [f(x, y) for f in fs])


def _smin(a, b, k):
    h = np.clip(0.5 + 0.5 * (b - a) / k, 0.0, 1.0)
    return b + (a - b) * h - k * h * (1.0 - h)


def smooth_union(k, *fs):
    return lambda x, y: reduce(lambda a, b: _smin(a, b, k), [f(x, y) for f in fs])


def inter(*fs):
    return lambda x, y: reduce(np.maximum, [f(x, y) for f in fs])


def smooth_inter(k, a, b):
    return lambda x, y: -_smin(-a(x, y), -b(x, y), k)


def sub(a, b):
    return lambda x, y: np.maximum(a(x, y), -b(x, y))


def grow(f, r):
    return lambda x, y: f(x, y) - r


def onion(f, t):
    return lambda x, y: np.abs(f(x, y)) - t


def moved(f, dx, dy):
    return lambda x, y: f(x - dx, y - dy)


def mirrored(f, cx):
    return lambda x, y: f(2 * cx - x, y)


# ----------------------------------------------------------------------------------------
# painting

class Op:
    def __init__(self, kind, f, col, kw):
        self.kind, self.f, self.col, self.kw = kind, f, col, kw
        self.sil = kw.pop("sil", kind == "part")


class Scene:
    """A list of paint operations in design units, rendered back to front.

    part(): a shaded body part with its own outline; it belongs to the silhouette.
    fill(): a flat or gradient detail (eyes, belt, patterns); not part of the silhouette
            unless sil=True; clip= limits it to another shape.
    The whole silhouette also gets a thicker outer outline (owo) drawn behind everything.
    """

    def __init__(self, owo=7.0, ow=3.2):
        self.ops = []
        self.owo, self.ow = owo, ow

    def part(self, f, col, **kw):
        self.ops.append(Op("part", f, col, kw))

    def fill(self, f, col, **kw):
        self.ops.append(Op("fill", f, col, kw))

    # -- fitting -------------------------------------------------------------------------
    def _union(self, x, y):
        return reduce(np.minimum, [op.f(x, y) for op in self.ops if op.sil])

    def design_bbox(self, w, h, step=4.0):
        xs = np.arange(-0.5 * w, 1.5 * w, step, dtype=F32)
        ys = np.arange(-0.5 * h, 1.5 * h, step, dtype=F32)
        gx, gy = np.meshgrid(xs, ys)
        m = self._union(gx, gy) < self.owo
        yy, xx = np.nonzero(m)
        return (xs[xx.min()] - step, ys[yy.min()] - step, xs[xx.max()] + step, ys[yy.max()] + step)

    # -- rendering -----------------------------------------------------------------------
    def render(self, W, H, fit_h=0.80, fit_w=0.86, bias_y=0.0, design=None):
        """Returns premultiplied colour P (H,W,3) and coverage A (H,W), floats 0..1.
        design: the (w, h) of the design space, when the picture is not drawn at its size."""
        bx0, by0, bx1, by1 = self.design_bbox(*(design or (W, H)))
        s = min(fit_h * H / (by1 - by0), fit_w * W / (bx1 - bx0))
        ox = W / 2 - s * (bx0 + bx1) / 2
        oy = H / 2 - s * (by0 + by1) / 2 + bias_y * H
        pxs = 1.0 / s                    # design units per pixel
        self.scale = s

        step = 8
        cxs = ((np.arange(0, W, step) + step / 2 - ox) / s).astype(F32)
        cys = ((np.arange(0, H, step) + step / 2 - oy) / s).astype(F32)
        CX, CY = np.meshgrid(cxs, cys)
        pad = self.owo + (6 + step) * pxs

        P = np.zeros((H, W, 3), F32)
        A = np.zeros((H, W), F32)
        U = np.full((H, W), 1e6, F32)
        jobs = []
        for op in self.ops:
            f = op.f
            clip = op.kw.get("clip")
            if clip is not None:
                f = inter(f, clip)
            dc = f(CX, CY)
            m = dc < pad
            if not m.any():
                continue
            yy, xx = np.nonzero(m)
            x0 = max(0, xx.min() * step - step)
            x1 = min(W, xx.max() * step + 2 * step)
            y0 = max(0, yy.min() * step - step)
            y1 = min(H, yy.max() * step + 2 * step)
            X, Y = np.meshgrid(((np.arange(x0, x1) + 0.5 - ox) / s).astype(F32),
                               ((np.arange(y0, y1) + 0.5 - oy) / s).astype(F32))
            d = f(X, Y).astype(F32)
            sl = (slice(y0, y1), slice(x0, x1))
            inside = dc < 0
            if inside.any():
                iy, ix = np.nonzero(inside)
                pb = (cxs[ix.min()] - step * pxs, cys[iy.min()] - step * pxs,
                      cxs[ix.max()] + step * pxs, cys[iy.max()] + step * pxs)
            else:
                pb = (X.min(), Y.min(), X.max(), Y.max())
            if op.sil:
                U[sl] = np.minimum(U[sl], d)
            jobs.append((op, f, sl, X, Y, d, pb))

        def over(sl, col, cov):
            c = cov[..., None]
            P[sl] = P[sl] * (1 - c) + col * c
            A[sl] = A[sl] * (1 - cov) + cov

        # outer outline of the whole silhouette, behind everything
        cov = np.clip(0.5 - (U - self.owo) / pxs, 0, 1)
        full = (slice(0, H), slice(0, W))
        over(full, INK, cov)

        for op, f, sl, X, Y, d, pb in jobs:
            kw = op.kw
            if op.kind == "part":
                self._paint_part(op, f, sl, X, Y, d, pb, pxs, over)
            else:
                col = op.col(X, Y) if callable(op.col) else op.col
                ow = kw.get("ow", 0.0)
                if ow > 0:
                    ink = kw.get("ink", INK)
                    over(sl, ink, np.clip(0.5 - (d - ow) / pxs, 0, 1) * kw.get("alpha", 1.0))
                cov = np.clip(0.5 - d / pxs, 0, 1) * kw.get("alpha", 1.0)
                over(sl, col, cov)
        return P, A

    def _paint_part(self, op, f, sl, X, Y, d, pb, pxs, over):
        kw = op.kw
        base = op.col
        ow = kw.get("ow", self.ow)
        ink = kw.get("ink", mix(base * 0.30, INK, 0.55))
        if ow > 0:
            over(sl, ink, np.clip(0.5 - (d - ow) / pxs, 0, 1))
        cov = np.clip(0.5 - d / pxs, 0, 1)
        x0, y0, x1, y1 = pb
        size = max(8.0, min(x1 - x0, y1 - y0))
        # vertical gradient: lighter at the top
        t = np.clip((Y - y0) / max(1e-3, (y1 - y0)), 0, 1)[..., None]
        grad = kw.get("grad", 0.16)
        col = np.clip(base * (1.0 + grad * (0.5 - t)), 0, 1)
        lx, ly = kw.get("light", (-0.6, -0.8))
        soft = kw.get("soft", 2.5) * pxs
        # cel shadow on the side away from the light
        shade = kw.get("shade", 0.85)
        if shade > 0:
            so = kw.get("so", float(np.clip(0.17 * size, 5, 46)))
            shadow = kw.get("shadow", np.clip(base * np.array([0.70, 0.68, 0.82], F32)
                                              + np.array([0.02, 0.0, 0.06], F32), 0, 1))
            ds = f(X - lx * so, Y - ly * so)
            sm = np.clip(0.5 + ds / soft, 0, 1)[..., None]
            col = mix(col, shadow, sm * shade)
        # rim light on the lit side, just inside the outline
        hl = kw.get("hl", 0.55)
        if hl > 0:
            ho = kw.get("ho", float(np.clip(0.06 * size, 3, 14)))
            hin = kw.get("hin", 2.0 * pxs + 2.0)
            light = kw.get("lightcol", mix(base, WHITE, 0.55))
            dh = f(X + lx * ho, Y + ly * ho)
            hm = (np.clip(0.5 - (d + hin) / pxs, 0, 1) * np.clip(0.5 + dh / soft, 0, 1))[..., None]
            col = mix(col, light, hm * hl)
        over(sl, col, cov)


# ----------------------------------------------------------------------------------------
# shared details

def face(sc, lx, rx, ey, er=(19, 28), iris=C("#3a66c8"), mouth=None, blush=None,
         pupil=C("#1d1533"), blush_alpha=0.45):
    """Two big glossy eyes at (lx,ey) and (rx,ey)."""
    ex, eyy = er
    for cx in (lx, rx):
        e = ellipse(cx, ey, ex, eyy)
        sc.fill(e, pupil)
        sc.fill(ellipse(cx, ey + eyy * 0.35, ex * 0.85, eyy * 0.55), iris, clip=e)
        sc.fill(ellipse(cx, ey + eyy * 0.55, ex * 0.55, eyy * 0.3), mix(iris, WHITE, 0.45),
                clip=e, alpha=0.8)
        sc.fill(circle(cx - ex * 0.32, ey - eyy * 0.38, ex * 0.42), WHITE)
        sc.fill(circle(cx + ex * 0.38, ey + eyy * 0.22, ex * 0.18), WHITE, alpha=0.9)
    if blush is not None:
        for (bx, by) in blush:
            sc.fill(ellipse(bx, by, 24, 13), C("#ff7f9a"), alpha=blush_alpha)
    if mouth is not None:
        mx, my, mr = mouth
        sc.fill(arc(mx, my - mr, mr, 3.2, 0.95), C("#5a2633"))


# ----------------------------------------------------------------------------------------
# 1/2: the knight (design space 768 x 1024)

def knight():
    sc = Scene(owo=7.5, ow=3.4)
    steel = C("#b9c6d8")
    steel_dk = C("#8391ad")
    blue = C("#3f6fd6")
    gold = C("#f2c14e")
    red = C("#e5484d")
    skin = C("#ffd9bd")
    hair = C("#c9733a")
    brown = C("#8a5a3c")
    leather = C("#6e4631")

    # plume, sweeping back from the helmet crest
    plume = chain([(384, 200), (372, 130), (322, 92), (262, 98), (226, 132)],
                  [40, 40, 34, 26, 16], k=18)
    sc.part(plume, red, so=20)
    sc.fill(onion(chain([(368, 160), (330, 118), (276, 116)], [0, 0, 0]), 2.0),
            C("#b02a3a"), alpha=0.6, clip=grow(plume, -8))

    # sword (behind the hand)
    hx, hy = 552, 650
    ux, uy = 0.30, -0.954
    nx, ny = -uy, ux
    gx, gy = hx + ux * 40, hy + uy * 40
    L = 300
    blade_pts = [(gx + nx * 18, gy + ny * 18), (gx + ux * (L - 46) + nx * 18, gy + uy * (L - 46) + ny * 18),
                 (gx + ux * L, gy + uy * L),
                 (gx + ux * (L - 46) - nx * 18, gy + uy * (L - 46) - ny * 18), (gx - nx * 18, gy - ny * 18)]
    blade = polygon(blade_pts, r=3)
    sc.part(blade, C("#dfe7f2"), so=10, shade=0.6, grad=0.25)
    sc.fill(capsule(gx + ux * 20, gy + uy * 20, gx + ux * (L - 40), gy + uy * (L - 40), 3.5, 1.5),
            C("#9fb0c8"), alpha=0.9)
    sc.part(capsule(hx - ux * 40, hy - uy * 40, gx, gy, 11), leather, shade=0.4)
    sc.part(circle(hx - ux * 48, hy - uy * 48, 17), gold, so=6)
    sc.part(capsule(gx - nx * 54, gy - ny * 54, gx + nx * 54, gy + ny * 54, 12), gold, so=6)
    sc.fill(circle(gx, gy, 8), red, ow=2.0)

    # legs and boots (behind the body)
    sc.part(capsule(346, 720, 330, 858, 34), steel_dk, so=12)
    sc.part(capsule(424, 720, 442, 858, 34), steel_dk, so=12)
    boot_l = smooth_union(10, rbox(326, 884, 50, 34, 24, a=-0.05), ellipse(300, 896, 40, 24))
    boot_r = smooth_union(10, rbox(446, 884, 50, 34, 24, a=0.05), ellipse(472, 896, 40, 24))
    sc.part(boot_l, brown, so=12)
    sc.part(boot_r, brown, so=12)
    sc.fill(rbox(330, 858, 44, 11, 8), leather, ow=2.5, clip=boot_l)
    sc.fill(rbox(442, 858, 44, 11, 8), leather, ow=2.5, clip=boot_r)

    # body: tunic, skirt, breastplate, belt
    torso = polygon([(306, 470), (462, 470), (494, 690), (274, 690)], r=26)
    sc.part(torso, blue, so=26)
    skirt = polygon([(294, 660), (474, 660), (500, 748), (268, 748)], r=14)
    sc.part(skirt, blue, so=20)
    sc.fill(rbox(384, 710, 34, 40, 10), gold, ow=2.5, clip=grow(skirt, -4))
    sc.fill(star(384, 708, 16, 7, r=1.5), C("#fff3c4"), alpha=0.9)
    plate = inter(torso, ellipse(384, 520, 150, 105))
    sc.part(plate, steel, so=22, sil=False)
    sc.fill(capsule(384, 490, 384, 600, 3), C("#eef3fa"), alpha=0.8, clip=grow(plate, -6))
    belt = rbox(384, 652, 132, 20, 8)
    sc.fill(belt, leather, ow=2.8, clip=grow(torso, 1))
    sc.fill(rbox(384, 652, 26, 22, 7), gold, ow=2.8)
    sc.fill(rbox(384, 652, 12, 9, 3), leather)

    # shoulder guards
    sc.part(ellipse(292, 502, 54, 44, a=0.25), steel, so=16)
    sc.part(ellipse(476, 502, 54, 44, a=-0.25), steel, so=16)

    # arms and gloves
    sc.part(capsule(292, 526, 256, 628, 30, 27), blue, so=14)
    sc.part(capsule(478, 526, 536, 624, 30, 27), blue, so=14)
    sc.part(circle(hx, hy, 30), leather, so=10)
    sc.part(circle(250, 648, 29), leather, so=10)

    # heater shield on the left arm, overlapping the body so no gap is enclosed
    shield = polygon([(168, 582), (316, 582), (316, 684), (242, 770), (168, 684)], r=18)
    sc.part(shield, steel, so=22)
    field = polygon([(184, 598), (300, 598), (300, 678), (242, 746), (184, 678)], r=6)
    sc.fill(field, blue, ow=2.8)
    sc.fill(inter(field, halfplane(-1, 0, -242)), C("#3562c4"), alpha=0.9)
    sc.fill(star(242, 662, 44, 19, r=3), gold, ow=2.8)
    for (rx_, ry_) in ((164, 578), (320, 578), (164, 676), (320, 676)):
        sc.fill(circle(rx_, ry_, 5), C("#eef3fa"))

    # head: helmet, face, hair fringe
    helmet = ellipse(384, 322, 180, 168)
    sc.part(helmet, steel, so=34)
    faceo = smooth_inter(18, ellipse(398, 368, 128, 112), halfplane(0, -1, -272))
    sc.fill(faceo, skin, ow=3.2, ink=C("#6b4a55"))
    # soft shade on the face below the brim and on the far side
    sc.fill(inter(faceo, halfplane(0, 1, 300)), C("#f3b99c"), alpha=0.55)
    fringe = union(circle(300, 272, 34), circle(352, 286, 34), circle(410, 290, 32),
                   circle(466, 282, 32), circle(510, 266, 28))
    sc.fill(inter(fringe, grow(faceo, 1)), hair, ow=2.8, ink=C("#6a3420"))
    sc.fill(inter(grow(fringe, -9), moved(fringe, 5, -8), grow(faceo, -2)), C("#e89a5b"), alpha=0.9)
    # helmet brim and crest
    brim = inter(helmet, rbox(384, 262, 200, 20, 10))
    sc.fill(brim, steel_dk, ow=2.8)
    sc.fill(inter(helmet, rbox(384, 256, 200, 5, 3)), C("#dbe3ee"), alpha=0.9)
    for rx_ in (246, 300, 468, 522):
        sc.fill(circle(rx_, 263, 6), gold, ow=1.8)
    crest = inter(helmet, rbox(384, 200, 20, 70, 10))
    sc.fill(crest, gold, ow=2.8)
    sc.fill(inter(helmet, ellipse(318, 196, 42, 24, a=-0.5)), WHITE, alpha=0.55)

    face(sc, 346, 456, 368, er=(20, 29), iris=C("#2f63c9"),
         mouth=(402, 418, 13), blush=[(318, 406), (486, 406)])
    return sc


def knight_with_parts():
    """The knight with three things that do not touch him: a floating orb on his left, a star
    above his sword and a potion on the ground beside his boots."""
    sc = knight()
    sc.part(circle(120, 420, 44), C("#7fd3ff"), so=14)
    sc.fill(circle(104, 402, 13), WHITE, alpha=0.75, ow=0)
    sc.part(star(668, 196, 40, 18, r=4), C("#f2c14e"), so=8)
    sc.part(smooth_union(8, circle(610, 868, 34), rbox(610, 822, 12, 20, 4)), C("#b76ee0"), so=10)
    sc.part(rbox(610, 798, 15, 8, 3), C("#8a5a3c"), so=3, hl=0)
    sc.fill(circle(598, 858, 9), WHITE, alpha=0.6, ow=0)
    return sc


# ----------------------------------------------------------------------------------------
# 3: the slime dragon (design space 768 x 896)

def slime():
    sc = Scene(owo=7.5, ow=3.4)
    mint = C("#5fd39a")
    mint_dk = C("#34a878")
    belly = C("#d9f7c8")
    horn = C("#ffe3a3")
    wing = C("#a57ce0")
    foot = C("#47b886")

    # bat wings behind the shoulders
    wing_l = polygon([(252, 440), (146, 330), (126, 362), (138, 400), (118, 432), (148, 468),
                      (140, 502), (242, 522)], r=12)
    wing_r = mirrored(wing_l, 384)
    sc.part(wing_l, wing, so=16)
    sc.part(wing_r, wing, so=16)
    for f, sg in ((wing_l, 1), (wing_r, -1)):
        for (ax, ay, bx, by) in ((236, 462, 150, 352), (236, 476, 140, 428), (236, 492, 150, 490)):
            sc.fill(capsule(384 + sg * (ax - 384), ay, 384 + sg * (bx - 384), by, 3.2, 1.6),
                    C("#7b54b8"), alpha=0.85, clip=grow(f, -5))

    # tail curling up on the right, with a spade tip
    tail = chain([(556, 700), (636, 706), (680, 672), (690, 628)], [42, 32, 22, 14], k=14)
    tip = polygon([(690, 632), (718, 600), (692, 562), (664, 600)], r=8)
    tail_all = smooth_union(6, tail, tip)
    sc.part(tail_all, mint, so=14)
    sc.fill(tip, wing, ow=2.8, clip=grow(tail_all, 0.5))

    # horns
    horn_l = chain([(330, 356), (300, 290), (276, 232)], [32, 21, 8], k=6)
    horn_r = mirrored(horn_l, 384)
    sc.part(horn_l, horn, so=10)
    sc.part(horn_r, horn, so=10)
    for f, sg in ((horn_l, -1), (horn_r, 1)):
        for yy in (300, 330):
            sc.fill(onion(ellipse(384 + sg * 80, yy, 60, 200), 2.6), C("#e6b86c"),
                    alpha=0.85, clip=grow(f, -3))

    # feet
    sc.part(ellipse(302, 772, 54, 34), foot, so=12)
    sc.part(ellipse(466, 772, 54, 34), foot, so=12)

    # body: a gumdrop blob
    body = smooth_union(90, circle(384, 452, 150), ellipse(384, 612, 212, 150))
    sc.part(body, mint, so=44, hl=0.7, shadow=C("#2f9c85"))
    bell = ellipse(384, 668, 140, 92)
    sc.fill(inter(body, bell), belly, alpha=0.95)
    for yy in (628, 664, 700):
        sc.fill(inter(body, bell, onion(ellipse(384, yy + 60, 150, 64), 1.6)),
                C("#b5e6a4"), alpha=0.9)
    # back spots
    for (cx, cy, r) in ((226, 566, 20), (212, 620, 13), (542, 566, 20), (556, 620, 13),
                        (318, 372, 11), (450, 372, 12), (384, 340, 9)):
        sc.fill(circle(cx, cy, r), mint_dk, clip=grow(body, -4), alpha=0.8)
    # toes
    for cx in (280, 302, 324, 444, 466, 488):
        sc.fill(circle(cx, 798, 8), mix(foot, WHITE, 0.4), alpha=0.8)
    # glossy highlight
    sc.fill(ellipse(314, 392, 40, 20, a=-0.7), WHITE, alpha=0.75)
    sc.fill(circle(280, 432, 8), WHITE, alpha=0.75)

    face(sc, 324, 444, 504, er=(28, 38), iris=C("#2a8f6c"),
         blush=[(280, 560), (488, 560)], blush_alpha=0.75)
    mc = circle(384, 550, 22)
    sc.fill(inter(mc, halfplane(0, -1, -554)), C("#a8324a"))
    sc.fill(ellipse(381, 580, 10, 6), C("#ff8aa0"), clip=inter(mc, halfplane(0, -1, -554)))
    sc.fill(arc(384, 550, 22, 3.4, 1.0), C("#3d1d2b"))
    sc.fill(polygon([(396, 569), (408, 569), (402, 582)], r=1.5), WHITE)
    return sc


# ----------------------------------------------------------------------------------------
# 4: the living lantern (design space 768 x 896)

def lantern():
    sc = Scene(owo=7.5, ow=3.4)
    copper = C("#c9773f")
    gold = C("#f3c557")
    dark = C("#7a3f2a")

    # arms (behind the frame)
    sc.part(capsule(262, 470, 196, 548, 20, 17), copper, so=8)
    sc.part(capsule(506, 470, 572, 548, 20, 17), copper, so=8)
    sc.part(circle(190, 556, 24), gold, so=8)
    sc.part(circle(578, 556, 24), gold, so=8)

    # feet
    sc.part(ellipse(318, 744, 50, 30), dark, so=10)
    sc.part(ellipse(450, 744, 50, 30), dark, so=10)

    # finial, roof and rims
    sc.part(capsule(384, 150, 384, 210, 14), gold, so=6)
    sc.part(circle(384, 138, 30), gold, so=10)
    roof = polygon([(344, 204), (424, 204), (500, 292), (268, 292)], r=16)
    sc.part(roof, copper, so=22)
    sc.fill(inter(roof, onion(halfplane(0, 1, 250), 6)), gold, alpha=0.9)
    top_rim = rbox(384, 312, 152, 22, 12)
    sc.part(top_rim, gold, so=8)

    frame = rbox(384, 476, 132, 160, 34)
    sc.part(frame, copper, so=24, sil=True)
    gl = rbox(384, 476, 106, 136, 26)

    def glow(X, Y):
        r = np.sqrt(((X - 384) / 106) ** 2 + ((Y - 470) / 136) ** 2)[..., None]
        return np.clip(mix(C("#fffbe0"), C("#ffc46b"), np.clip(r * 0.95, 0, 1)), 0, 1)
    sc.fill(gl, glow, ow=3.0, ink=dark)
    # flame above the face
    flame = smooth_union(14, circle(384, 424, 30), chain([(384, 410), (392, 380), (380, 350)], [24, 12, 2]))

    def fire(X, Y):
        t = np.clip((Y - 350) / 104.0, 0, 1)[..., None]
        return mix(C("#ff8a2a"), C("#ffc13d"), t)
    sc.fill(flame, fire, alpha=0.9, ow=2.5, ink=C("#d8641c"))
    sc.fill(smooth_union(8, circle(384, 430, 15), capsule(384, 424, 386, 392, 11, 2)), C("#fff4c2"))
    # glass shine
    sc.fill(rbox(306, 440, 9, 70, 9), WHITE, alpha=0.6, clip=gl)
    sc.fill(rbox(328, 395, 6, 22, 6), WHITE, alpha=0.5, clip=gl)
    # corner rivets on the frame
    for (rx_, ry_) in ((274, 336), (494, 336), (274, 616), (494, 616)):
        sc.fill(circle(rx_, ry_, 7), gold, ow=2.0)

    bot_rim = rbox(384, 646, 158, 24, 12)
    sc.part(bot_rim, gold, so=8)
    base = polygon([(256, 664), (512, 664), (488, 724), (280, 724)], r=10)
    sc.part(base, copper, so=14)
    for cx in (320, 384, 448):
        sc.fill(circle(cx, 696, 8), dark, ow=0)

    face(sc, 336, 432, 500, er=(20, 27), iris=C("#c2571f"), pupil=C("#3a1a12"),
         blush=[(306, 540), (462, 540)])
    sc.fill(inter(circle(384, 530, 20), halfplane(0, -1, -534)), C("#9c2f2f"))
    sc.fill(arc(384, 530, 20, 3.2, 1.05), C("#3a1a12"))
    return sc


# ----------------------------------------------------------------------------------------
# 5: the mushroom buddy (design space 640 x 896)

def mushroom():
    sc = Scene(owo=7.0, ow=3.2)
    red = C("#e1524f")
    cream = C("#fbe9cf")
    gills = C("#d9b892")
    boot = C("#8c5a3f")
    leafc = C("#6cc26a")

    # sprout on the cap
    sc.part(capsule(320, 214, 326, 168, 7), C("#5aa65a"), so=4, hl=0)
    leaf = ellipse(362, 150, 42, 18, a=-0.45)
    sc.part(leaf, leafc, so=8)
    sc.fill(capsule(330, 166, 390, 138, 2), C("#3f8f48"), alpha=0.8, clip=leaf)

    # feet and arms behind the body
    sc.part(ellipse(262, 764, 50, 30), boot, so=10)
    sc.part(ellipse(382, 764, 50, 30), boot, so=10)
    sc.part(capsule(222, 566, 172, 628, 18, 15), cream, so=8)
    sc.part(capsule(420, 566, 470, 628, 18, 15), cream, so=8)
    sc.part(circle(168, 634, 21), cream, so=7)
    sc.part(circle(474, 634, 21), cream, so=7)

    body = smooth_union(40, ellipse(322, 590, 122, 150), rbox(322, 690, 112, 60, 50))
    sc.part(body, cream, so=30)
    # cap
    cap = smooth_inter(30, ellipse(320, 380, 248, 178), halfplane(0, 1, 450))
    sc.part(cap, red, so=40, hl=0.6)
    sc.fill(inter(cap, ellipse(320, 452, 200, 30)), gills, ow=2.5)
    for (cx, cy, r) in ((200, 342, 30), (310, 262, 36), (430, 330, 28), (262, 408, 18),
                        (400, 410, 16), (510, 410, 16), (140, 420, 14)):
        sc.fill(circle(cx, cy, r), C("#fff8ec"), clip=grow(cap, -1), ow=0)
    sc.fill(ellipse(232, 268, 44, 20, a=-0.6), WHITE, alpha=0.45, clip=cap)

    face(sc, 280, 368, 560, er=(19, 26), iris=C("#6b4fb5"),
         mouth=(324, 606, 13), blush=[(248, 594), (402, 594)])
    # belly button / buttons
    sc.fill(circle(322, 672, 7), C("#e0c39f"))
    sc.fill(circle(322, 708, 7), C("#e0c39f"))
    return sc


# ----------------------------------------------------------------------------------------
# 6: the robot with a floating head (design space 768 x 1024)

def robot():
    """A boxy robot whose head hovers above its neck with a clear gap, one hand on its hip
    (the arm and the body enclose a hole of background) and an axe held out at arm's length."""
    sc = Scene(owo=7.5, ow=3.4)
    teal = C("#3fb7b0")
    teal_dk = C("#2a8c88")
    orange = C("#f28c38")
    steel = C("#c5ccd6")
    dark = C("#4a4f5c")
    wood = C("#9a6236")

    # the axe, behind the hand: a long haft and a crescent blade well clear of the body
    sc.part(capsule(664, 362, 664, 806, 11), wood, so=6, hl=0.3)
    blade = smooth_union(6, inter(circle(640, 392, 86), halfplane(-1, 0, -676)),
                         rbox(676, 392, 16, 40, 6))
    sc.part(blade, steel, so=12, shade=0.6, grad=0.25)
    sc.fill(onion(circle(640, 392, 80), 2.5), C("#eef3fa"), clip=blade, alpha=0.8)
    sc.part(circle(664, 356, 14), orange, so=4)

    # legs and feet
    sc.part(rbox(330, 792, 28, 70, 12), dark, so=10)
    sc.part(rbox(438, 792, 28, 70, 12), dark, so=10)
    sc.part(rbox(318, 880, 56, 26, 14), orange, so=10)
    sc.part(rbox(450, 880, 56, 26, 14), orange, so=10)

    # arms: the left one bent to the hip, the right one straight out to the axe
    sc.part(chain([(266, 486), (178, 584), (244, 676)], [26, 22, 20], k=10), teal_dk, so=12)
    sc.part(circle(254, 682, 28), orange, so=8)
    sc.part(capsule(500, 490, 636, 560, 24, 21), teal_dk, so=12)
    sc.part(circle(664, 566, 30), orange, so=8)

    # body with a chest panel and a neck stub
    sc.part(rbox(384, 360 + 120, 26, 30, 8), dark, so=6)
    body = rbox(384, 610, 134, 150, 30)
    sc.part(body, teal, so=30)
    panel = rbox(384, 596, 74, 58, 12)
    sc.fill(panel, C("#1f3b4d"), ow=2.8)
    for i, col in enumerate((C("#ff5d73"), C("#ffd23f"), C("#7cf29a"))):
        sc.fill(circle(344 + 40 * i, 580, 12), col, ow=1.8)
    sc.fill(rbox(384, 626, 52, 8, 4), C("#6fe3ff"), alpha=0.9)
    sc.part(ellipse(250, 486, 46, 38), steel, so=12)
    sc.part(ellipse(518, 486, 46, 38), steel, so=12)

    # the head, floating: its outline and the neck's never meet
    head = rbox(384, 318, 138, 104, 34)
    sc.part(head, teal, so=30)
    visor = rbox(384, 326, 104, 50, 24)
    sc.fill(visor, C("#1f3b4d"), ow=2.8)
    for cx in (336, 432):
        sc.fill(ellipse(cx, 324, 22, 26), C("#6fe3ff"))
        sc.fill(circle(cx - 7, 315, 7), WHITE, alpha=0.9)
    sc.fill(arc(384, 352, 18, 2.6, 0.9), C("#6fe3ff"))
    sc.part(capsule(384, 214, 384, 168, 6), dark, so=3, hl=0)
    sc.part(circle(384, 160, 16), C("#ff5d73"), so=6)
    for cx in (240, 528):
        sc.part(rbox(cx, 318, 14, 36, 6), orange, so=5)
    return sc


# ----------------------------------------------------------------------------------------
# backgrounds

class Lcg:
    """Tiny deterministic generator so the pictures never depend on numpy's streams."""

    def __init__(self, seed):
        self.s = seed & 0xFFFFFFFF

    def next(self):
        self.s = (1664525 * self.s + 1013904223) & 0xFFFFFFFF
        return self.s / 4294967296.0

    def uni(self, a, b):
        return a + (b - a) * self.next()


def pix_grid(W, H):
    return np.meshgrid(np.arange(W, dtype=F32) + 0.5, np.arange(H, dtype=F32) + 0.5)


def paint(img, d, col, alpha=1.0):
    cov = (np.clip(0.5 - d, 0, 1) * alpha)[..., None]
    img[...] = img * (1 - cov) + col * cov


def busy_background(W, H, subject_bottom):
    X, Y = pix_grid(W, H)
    # diagonal checker in two warm tones
    s = 56.0
    u = (X + Y) / math.sqrt(2)
    v = (X - Y) / math.sqrt(2)

    def tri(t):
        return s / 2 - np.abs(np.mod(t + s / 2, 2 * s) - s)
    pu = np.clip(tri(u) + 0.5, 0, 1)
    pv = np.clip(tri(v) + 0.5, 0, 1)
    chk = (pu * (1 - pv) + (1 - pu) * pv)[..., None]
    img = mix(C("#ffd7a8"), C("#f7b98a"), chk).astype(F32)
    # soft diagonal stripes of light on top
    img = mix(img, WHITE, (0.12 * (0.5 + 0.5 * np.sin(u / 37.0)))[..., None])
    rng = Lcg(20240611)
    palette = [C("#ff6f91"), C("#6fa8ff"), C("#ffd23f"), C("#b084f5"), C("#3bc4c4"), C("#ff9f43")]
    for i in range(70):
        cx, cy = rng.uni(0, W), rng.uni(0, H)
        r = rng.uni(9, 30)
        col = palette[int(rng.next() * len(palette))]
        kind = rng.next()
        if kind < 0.55:
            d = np.sqrt((X - cx) ** 2 + (Y - cy) ** 2) - r
            paint(img, d, col, 0.9)
            paint(img, np.sqrt((X - cx + r * 0.3) ** 2 + (Y - cy + r * 0.3) ** 2) - r * 0.3, WHITE, 0.35)
        elif kind < 0.8:
            f = star(cx, cy, r * 1.2, r * 0.55, a=rng.uni(0, 1.2), r=2)
            paint(img, f(X, Y), col, 0.9)
        else:
            f = onion(circle(cx, cy, r), 4.0)
            paint(img, f(X, Y), col, 0.9)
    # leaves
    for i in range(26):
        cx, cy = rng.uni(-20, W + 20), rng.uni(-20, H + 20)
        a = rng.uni(0, math.pi)
        L = rng.uni(34, 62)
        col = mix(C("#2e9e5b"), C("#9bd44a"), rng.next())
        f = inter(circle(cx + math.cos(a + math.pi / 2) * L * 0.55, cy + math.sin(a + math.pi / 2) * L * 0.55, L),
                  circle(cx - math.cos(a + math.pi / 2) * L * 0.55, cy - math.sin(a + math.pi / 2) * L * 0.55, L))
        paint(img, f(X, Y), col, 0.95)
        vein = capsule(cx - math.cos(a) * L * 0.7, cy - math.sin(a) * L * 0.7,
                       cx + math.cos(a) * L * 0.7, cy + math.sin(a) * L * 0.7, 1.5)
        paint(img, inter(vein, f)(X, Y), mix(col, C("#0f3d22"), 0.5), 0.7)
    # a wooden plank floor with a wavy front edge and a soft contact shadow
    top = subject_bottom - 46
    floor = np.clip(0.5 + (Y - top - 6 * np.sin(X / 41.0)), 0, 1)[..., None]
    plank = np.floor((Y - top) / 34.0)
    wood = mix(C("#b9794a"), C("#a4663c"), (np.mod(plank, 2))[..., None])
    seam = np.abs(np.mod(Y - top, 34.0) - 17.0) - 15.5
    wood = mix(wood, C("#6e3f24"), np.clip(0.5 + seam, 0, 1)[..., None])
    joint = np.abs(np.mod(X + 97.0 * plank * plank, 233.0) - 116.5) - 115.0
    wood = mix(wood, C("#6e3f24"), (0.8 * np.clip(0.5 + joint, 0, 1))[..., None])
    img = mix(img, wood, floor)
    edge = np.abs(Y - top - 6 * np.sin(X / 41.0)) - 2.5
    paint(img, edge, C("#5c341f"), 0.9)
    sh = np.sqrt(((X - W / 2) / (W * 0.36)) ** 2 + ((Y - subject_bottom + 4) / 26.0) ** 2)
    img = mix(img, C("#2f4a2a"), (0.45 * np.clip(1 - sh, 0, 1) ** 1.5)[..., None])
    return np.clip(img, 0, 1).astype(F32)


def gray_background(W, H, subject_bottom):
    X, Y = pix_grid(W, H)
    t = (Y / H)[..., None]
    img = mix(C("#a3a7ad"), C("#7f8389"), t)
    r = np.sqrt(((X - W / 2) / (W * 0.7)) ** 2 + ((Y - H * 0.45) / (H * 0.7)) ** 2)
    img = mix(img, C("#6b6f75"), (0.35 * np.clip(r - 0.4, 0, 1))[..., None])
    sh = np.sqrt(((X - W / 2) / (W * 0.33)) ** 2 + ((Y - subject_bottom + 4) / 22.0) ** 2)
    img = mix(img, C("#3d4046"), (0.5 * np.clip(1 - sh, 0, 1) ** 1.5)[..., None])
    return np.clip(img, 0, 1).astype(F32)


def white_background(W, H):
    return np.ones((H, W, 3), F32) * C("#fbfbfa")


def white_background_with_shadow(W, H, subject_bottom):
    """The off-white background darkened by a soft ground shadow around the feet, wider than
    the stance (a shadow only darkens: the background's hue is kept)."""
    X, Y = pix_grid(W, H)
    sh = np.sqrt(((X - W / 2) / (W * 0.34)) ** 2 + ((Y - subject_bottom + 6) / 34.0) ** 2)
    dark = 0.62 * np.clip(1 - sh, 0, 1) ** 1.1
    return (white_background(W, H) * (1 - dark)[..., None]).astype(F32)


def beige_background(W, H):
    return np.ones((H, W, 3), F32) * C("#efe4cf")


def photo_background(W, H):
    """What a phone photo of a room looks like behind a figure: large soft blobs of muted
    colour (out of focus), a vignette, and per-pixel sensor noise of ±3 %."""
    X, Y = pix_grid(W, H)
    img = mix(C("#b8a890"), C("#6f7f8c"), (Y / H)[..., None]).astype(F32)
    rng = Lcg(20261201)
    muted = [C("#d8c9a8"), C("#8e9aa6"), C("#a98f74"), C("#c7b9a1"), C("#5f6b62"), C("#e2d6c2")]
    for i in range(14):
        cx, cy = rng.uni(-0.1 * W, 1.1 * W), rng.uni(-0.1 * H, 1.1 * H)
        r = rng.uni(0.12, 0.32) * W
        col = muted[int(rng.next() * len(muted))]
        w = np.exp(-((X - cx) ** 2 + (Y - cy) ** 2) / (2 * r * r))[..., None]
        img = mix(img, col, 0.55 * w)
    v = np.sqrt(((X - W / 2) / W) ** 2 + ((Y - H / 2) / H) ** 2)
    img = img * (1.0 - 0.35 * np.clip(v - 0.25, 0, 1) ** 1.2)[..., None]
    # Sensor noise: a hash of each sample's index (the 32-bit murmur finaliser), so no two
    # neighbours are related and no stream has to be stepped.
    m = np.uint64(0xFFFFFFFF)
    h = np.arange(H * W * 3, dtype=np.uint64) * np.uint64(0x9E3779B1) & m
    h ^= h >> np.uint64(16)
    h = h * np.uint64(0x85EBCA6B) & m
    h ^= h >> np.uint64(13)
    h = h * np.uint64(0xC2B2AE35) & m
    h ^= h >> np.uint64(16)
    noise = (h / 4294967296.0 - 0.5).reshape(H, W, 3).astype(F32)
    img = img + 0.06 * noise
    return np.clip(img, 0, 1).astype(F32)


# ----------------------------------------------------------------------------------------
# PNG writing and reading (no PIL)

def _chunk(tag, data):
    return (struct.pack(">I", len(data)) + tag + data
            + struct.pack(">I", zlib.crc32(tag + data) & 0xFFFFFFFF))


def png_bytes(arr):
    """arr: uint8 (H, W, 3) or (H, W, 4). Filter per row: None, Sub or Up, whichever has the
    smallest sum of absolute signed bytes (a cheap, deterministic heuristic)."""
    H, W, Cn = arr.shape
    raw = arr.reshape(H, W * Cn).astype(np.int16)
    sub_ = raw.copy()
    sub_[:, Cn:] = raw[:, Cn:] - raw[:, :-Cn]
    up = raw.copy()
    up[1:] = raw[1:] - raw[:-1]
    cands = [raw & 255, sub_ & 255, up & 255]
    scores = np.stack([np.abs(c.astype(np.uint8).view(np.int8).astype(np.int32)).sum(1) for c in cands])
    choice = scores.argmin(0)
    rows = np.empty((H, 1 + W * Cn), np.uint8)
    rows[:, 0] = choice
    for k in range(3):
        sel = choice == k
        rows[sel, 1:] = cands[k][sel].astype(np.uint8)
    ctype = {3: 2, 4: 6}[Cn]
    ihdr = struct.pack(">IIBBBBB", W, H, 8, ctype, 0, 0, 0)
    return (b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", ihdr)
            + _chunk(b"IDAT", zlib.compress(rows.tobytes(), 9)) + _chunk(b"IEND", b""))


def read_png(path):
    """Reads 8-bit RGB/RGBA non-interlaced PNGs (all five filter types)."""
    with open(path, "rb") as fh:
        data = fh.read()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, ihdr = 8, [], None
    while pos < len(data):
        n, = struct.unpack(">I", data[pos:pos + 4])
        tag = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + n]
        crc, = struct.unpack(">I", data[pos + 8 + n:pos + 12 + n])
        assert zlib.crc32(tag + body) & 0xFFFFFFFF == crc, "bad CRC in " + tag.decode()
        if tag == b"IHDR":
            ihdr = struct.unpack(">IIBBBBB", body)
        elif tag == b"IDAT":
            idat.append(body)
        elif tag == b"IEND":
            break
        pos += 12 + n
    W, H, depth, ctype, _, _, interlace = ihdr
    assert depth == 8 and ctype in (2, 6) and interlace == 0
    Cn = 3 if ctype == 2 else 4
    buf = np.frombuffer(zlib.decompress(b"".join(idat)), np.uint8).reshape(H, 1 + W * Cn)
    out = np.zeros((H, W * Cn), np.uint8)
    prev = np.zeros(W * Cn, np.uint8)
    for y in range(H):
        ft, row = buf[y, 0], buf[y, 1:]
        if ft == 0:
            cur = row.copy()
        elif ft == 1:
            cur = np.cumsum(row.reshape(W, Cn), axis=0, dtype=np.uint8).reshape(-1)
        elif ft == 2:
            cur = row + prev
        else:  # Average / Paeth: slow path, not produced by png_bytes
            cur = np.zeros_like(row)
            r, p = row.tolist(), prev.tolist()
            c = [0] * len(r)
            for i in range(len(r)):
                a = c[i - Cn] if i >= Cn else 0
                b = p[i]
                cc = p[i - Cn] if i >= Cn else 0
                if ft == 3:
                    c[i] = (r[i] + (a + b) // 2) & 255
                else:
                    pa, pb, pc = abs(b - cc), abs(a - cc), abs(a + b - 2 * cc)
                    pr = a if pa <= pb and pa <= pc else (b if pb <= pc else cc)
                    c[i] = (r[i] + pr) & 255
            cur = np.array(c, np.uint8)
        out[y] = cur
        prev = cur
    return out.reshape(H, W, Cn)


# ----------------------------------------------------------------------------------------
# checks

def components(mask, conn8=True):
    """Number of 8- (or 4-) connected components of a boolean mask (run-length union-find)."""
    g = 0 if conn8 else 1
    parent = []

    def find(i):
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    prev = []
    for row in mask:
        r = np.concatenate(([0], row.view(np.int8), [0]))
        dd = np.diff(r)
        starts, ends = np.nonzero(dd == 1)[0], np.nonzero(dd == -1)[0]
        cur = []
        j = 0
        for s_, e_ in zip(starts.tolist(), ends.tolist()):
            idx = len(parent)
            parent.append(idx)
            while j < len(prev) and prev[j][1] < s_ + g:   # prev run ends before this one starts
                j += 1
            k = j
            while k < len(prev) and prev[k][0] <= e_ - g:
                a, b = find(idx), find(prev[k][2])
                if a != b:
                    parent[max(a, b)] = min(a, b)
                k += 1
            cur.append((s_, e_, idx))
        prev = cur
    return len({find(i) for i in range(len(parent))})


def describe(name, img, alpha):
    H, W, Cn = img.shape
    mode = "RGBA" if Cn == 4 else "RGB"
    frac = float((alpha >= 0.5).mean())
    rows = np.nonzero((alpha >= 0.5).any(1))[0]
    cols = np.nonzero((alpha >= 0.5).any(0))[0]
    hfrac = (rows[-1] - rows[0] + 1) / H
    info = dict(name=name, size="%dx%d" % (W, H), mode=mode,
                bytes=os.path.getsize(os.path.join(HERE, name)), subject=frac, height=hfrac,
                margin=(int(cols[0]), int(rows[0]), int(W - 1 - cols[-1]), int(H - 1 - rows[-1])),
                blobs=components(alpha > 0), blobs_half=components(alpha >= 0.5),
                holes=components(alpha < 0.5, conn8=False) - 1)
    if Cn == 4:
        info["clear_rgb_zero"] = bool((img[alpha == 0][:, :3] == 0).all())
    return info


# ----------------------------------------------------------------------------------------

def to_u8(x):
    return np.round(np.clip(x, 0, 1) * 255).astype(np.uint8)


def rgba_from(P, A):
    a = A[..., None]
    rgb = np.where(a > 0, P / np.maximum(a, 1e-6), 0)
    out = np.concatenate([to_u8(rgb), to_u8(A)[..., None]], -1)
    out[out[..., 3] == 0] = 0           # fully transparent pixels: RGB = 0
    return out


def on_background(P, A, bg):
    return to_u8(bg * (1 - A[..., None]) + P)


def subject_bottom(A):
    rows = np.nonzero((A >= 0.5).any(1))[0]
    return float(rows[-1])


def build():
    """Render every picture; returns {name: (uint8 image, coverage)}."""
    out = {}
    kn = knight()
    P, A = kn.render(768, 1024, fit_h=0.82, bias_y=0.0)
    out["knight_alpha.png"] = (rgba_from(P, A), A)
    out["knight_white.png"] = (on_background(P, A, white_background(768, 1024)), A)
    out["knight_shadow.png"] = (
        on_background(P, A, white_background_with_shadow(768, 1024, subject_bottom(A))), A)

    P, A = knight_with_parts().render(768, 1024, fit_h=0.82, bias_y=0.0)
    out["knight_parts_alpha.png"] = (rgba_from(P, A), A)
    out["knight_parts_white.png"] = (on_background(P, A, white_background(768, 1024)), A)

    P, A = slime().render(768, 896, fit_h=0.78, fit_w=0.88, bias_y=0.0)
    out["slime_busy.png"] = (on_background(P, A, busy_background(768, 896, subject_bottom(A))), A)
    out["slime_alpha.png"] = (rgba_from(P, A), A)

    P, A = lantern().render(768, 896, fit_h=0.80)
    out["lantern_alpha.png"] = (rgba_from(P, A), A)

    P, A = mushroom().render(640, 896, fit_h=0.78)
    out["creature_gray.png"] = (on_background(P, A, gray_background(640, 896, subject_bottom(A))), A)
    out["creature_alpha.png"] = (rgba_from(P, A), A)

    P, A = robot().render(768, 1024, fit_h=0.82, fit_w=0.90)
    out["robot_alpha.png"] = (rgba_from(P, A), A)
    out["robot_beige.png"] = (on_background(P, A, beige_background(768, 1024)), A)

    P, A = kn.render(768, 1024, fit_h=0.82, bias_y=0.0)
    out["knight_photo.png"] = (on_background(P, A, photo_background(768, 1024)), A)

    # A thumbnail-sized picture: the outlines are under a pixel wide.
    P, A = kn.render(144, 192, fit_h=0.82, bias_y=0.0, design=(768, 1024))
    out["knight_tiny_alpha.png"] = (rgba_from(P, A), A)
    out["knight_tiny_white.png"] = (on_background(P, A, white_background(144, 192)), A)
    return out


# Separate parts and enclosed holes of each picture's subject (all others are one connected
# silhouette without holes).
PARTS = {"knight_parts_alpha.png": 4, "knight_parts_white.png": 4,
         "robot_alpha.png": 2, "robot_beige.png": 2}
HOLES = {"robot_alpha.png": 1, "robot_beige.png": 1}
NAMES = ["knight_alpha.png", "knight_white.png", "knight_shadow.png", "knight_parts_alpha.png",
         "knight_parts_white.png", "slime_busy.png", "lantern_alpha.png", "creature_gray.png",
         "robot_alpha.png", "robot_beige.png", "knight_photo.png", "knight_tiny_alpha.png",
         "knight_tiny_white.png", "slime_alpha.png", "creature_alpha.png"]


def check(expected=None):
    ok = True
    for name in NAMES:
        img = read_png(os.path.join(HERE, name))
        if expected is not None:
            same = np.array_equal(img, expected[name][0])
            ok &= same
            if not same:
                print("  round trip differs for", name)
        if img.shape[2] == 4:
            alpha = img[..., 3].astype(F32) / 255.0
        elif expected is not None:
            alpha = expected[name][1]
        else:
            alpha = None
        if alpha is None:
            print("%-18s %s RGB (run without --check for subject statistics)" % (name, img.shape))
            continue
        info = describe(name, img, alpha)
        parts = PARTS.get(name, 1)
        good = (info["blobs"] == parts and info["blobs_half"] == parts
                and info["holes"] == HOLES.get(name, 0))
        ok &= good
        with open(os.path.join(HERE, name), "rb") as fh:
            digest = hashlib.sha256(fh.read()).hexdigest()[:12]
        print("%-18s %-9s %-4s %7d B  subject %.3f  height %.2f  margin(l,t,r,b) %s  "
              "blobs %d/%d holes %d%s  sha256 %s" % (
                  name, info["size"], info["mode"], info["bytes"], info["subject"],
                  info["height"], info["margin"], info["blobs"], info["blobs_half"],
                  info["holes"],
                  ("  clear-rgb=0 %s" % info["clear_rgb_zero"]) if "clear_rgb_zero" in info else "",
                  digest))
    return ok


def main():
    t0 = time.perf_counter()
    if "--check" in sys.argv:
        sys.exit(0 if check() else 1)
    out = build()
    for name, (img, _) in out.items():
        with open(os.path.join(HERE, name), "wb") as fh:
            fh.write(png_bytes(img))
    ok = check(out)
    print("done in %.1f s%s" % (time.perf_counter() - t0, "" if ok else "  (CHECK FAILED)"))
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
