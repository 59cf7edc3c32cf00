"""Pixels for scenes.py: colours, fills, the canvas (picture, subject coverage, mask, effects)
and backgrounds.

    cv = Canvas(w, h, transparent=False)
    background(rng, "gradient", w, h, cv)              # white, flat, gradient, noise, blobs, photo
    cv.paint(contours, Flat((200, 40, 40)), 1.0, owner=1, tag=3)   # subject: into cover, owner, top
    cv.soft(cx, cy, rx, ry, (0, 0, 0), 0.5, 1.5, fx=1)      # a soft shadow: into cv.fx only
    cv.finish()                                        # cv.mask = 255 where cover >= 128

Compositing is "over" with straight alpha; on an opaque canvas alpha stays 255.
"""

import array
import math
import random

import raster

# ----------------------------------------------------------------------------------------
# colours


def hsv(h, s, v):
    h = (h % 1.0) * 6.0
    i = int(h)
    f = h - i
    p, q, t = v * (1 - s), v * (1 - s * f), v * (1 - s * (1 - f))
    r, g, b = [(v, t, p), (q, v, p), (p, v, t), (p, q, v), (t, p, v), (v, p, q)][i % 6]
    return (int(r * 255 + 0.5), int(g * 255 + 0.5), int(b * 255 + 0.5))


def scaled(c, k):
    return tuple(max(0, min(255, int(v * k + 0.5))) for v in c)


def mixed(a, b, t):
    return tuple(int(x + (y - x) * t + 0.5) for x, y in zip(a, b))


def random_colour(rng, sat=(0.35, 0.9), val=(0.45, 0.95)):
    return hsv(rng.random(), rng.uniform(*sat), rng.uniform(*val))


# ----------------------------------------------------------------------------------------
# fills (in pixels)


class Flat:
    def __init__(self, colour):
        self.c = bytes(colour)

    def row(self, y, x0, x1):
        return self.c * (x1 - x0)


class Shade:
    """A linear light across the part: smooth (32 levels) or cel (2 or 3 bands)."""

    def __init__(self, colour, box, angle, strength, bands):
        x0, y0, x1, y1 = box
        self.cx, self.cy = (x0 + x1) / 2, (y0 + y1) / 2
        ext = max(1.0, math.hypot(x1 - x0, y1 - y0) / 2)
        self.dx, self.dy = math.cos(angle) / ext, math.sin(angle) / ext
        n = 32 if bands == 0 else bands
        self.n = n
        self.pal = [bytes(scaled(colour, 1 + strength * (1 - 2 * i / (n - 1)))) for i in range(n)]

    def row(self, y, x0, x1):
        # t = ((x + .5 - cx) dx + (y + .5 - cy) dy) in [-1, 1] -> level floor(A + B x)
        n = self.n
        a = ((0.5 - self.cx) * self.dx + (y + 0.5 - self.cy) * self.dy + 1) * 0.5 * (n - 1) + 0.5
        b = self.dx * 0.5 * (n - 1)
        out = []
        x = x0
        while x < x1:
            i = int(math.floor(a + b * x))
            i = 0 if i < 0 else n - 1 if i > n - 1 else i
            if b > 1e-12 and i < n - 1:
                xn = int(math.ceil((i + 1 - a) / b))
            elif b < -1e-12 and i > 0:
                xn = int(math.ceil((i - a) / b))
            else:
                xn = x1
            xn = max(x + 1, min(x1, xn))
            out.append(self.pal[i] * (xn - x))
            x = xn
        return b"".join(out)


class Tile:
    """A repeating pattern (stripes, checks, dots, noise, scales) of two colours."""

    def __init__(self, rng, c1, c2, period, pattern):
        p = max(3, int(period))
        self.p = p
        rows = []
        for y in range(p):
            row = []
            for x in range(p):
                if pattern == "stripes":
                    on = ((x + y) % p) < p // 2
                elif pattern == "hstripes":
                    on = y < p // 2
                elif pattern == "checks":
                    on = (x < p // 2) != (y < p // 2)
                elif pattern == "dots":
                    on = (x - p / 2 + 0.5) ** 2 + (y - p / 2 + 0.5) ** 2 < (p * 0.28) ** 2
                elif pattern == "scales":
                    on = (x - p / 2 + 0.5) ** 2 + (y + 0.5) ** 2 < (p * 0.55) ** 2
                else:  # noise
                    on = None
                if on is None:
                    row.append(bytes(mixed(c1, c2, rng.random())))
                else:
                    row.append(bytes(c2 if on else c1))
            rows.append(b"".join(row))
        self.rows = rows

    def row(self, y, x0, x1):
        p = self.p
        r = self.rows[y % p]
        off = x0 % p
        n = x1 - x0
        reps = (off + n) // p + 1
        return (r * reps)[3 * off:3 * (off + n)]


# ----------------------------------------------------------------------------------------
# the canvas


_HALF = bytes(255 if v >= 128 else 0 for v in range(256))


class Canvas:
    def __init__(self, w, h, transparent):
        self.w, self.h = w, h
        self.transparent = transparent
        self.rgb = bytearray(w * h * 3)
        self.alpha = bytearray(w * h) if transparent else bytearray(b"\xff") * (w * h)
        self.cover = bytearray(w * h)  # the subject's own coverage (0..255), its parts composited
        self.mask = bytearray(w * h)  # 255 where cover >= 128: set by finish()
        self.owner = bytearray(w * h)
        self.fx = bytearray(w * h)  # 1: shadow, 2: glow changed this pixel visibly
        # The tag of the part on top where a subject part covers at least half of a pixel (what
        # the picture shows there: an eye, the head around it, an outline), 0 where none.
        self.top = array.array("H", bytes(2 * w * h))

    def over(self, y, x0, x1, src, a):
        """Composites `src` (RGB bytes of x1 - x0 pixels) with opacity a (0..1) over the row."""
        w = self.w
        i0, i1 = 3 * (y * w + x0), 3 * (y * w + x1)
        if a >= 0.999:
            self.rgb[i0:i1] = src
            if self.transparent:
                self.alpha[y * w + x0:y * w + x1] = b"\xff" * (x1 - x0)
            return
        if a <= 0.0:
            return
        if not self.transparent:
            b = 1.0 - a
            dst = self.rgb[i0:i1]
            self.rgb[i0:i1] = bytes([int(s * a + d * b + 0.5) for s, d in zip(src, dst)])
            return
        rgb, alpha = self.rgb, self.alpha
        for k in range(x1 - x0):
            p = y * w + x0 + k
            da = alpha[p] / 255.0
            oa = a + da * (1.0 - a)
            for c in range(3):
                q = 3 * p + c
                rgb[q] = int((src[3 * k + c] * a + rgb[q] * da * (1.0 - a)) / oa + 0.5)
            alpha[p] = int(oa * 255 + 0.5)

    def paint(self, contours, fill, opacity, owner, fx=0, tag=0):
        w = self.w
        tags = array.array("H", [tag])
        for y, runs in raster.coverage_rows(contours, w, self.h):
            for x0, x1, cov in runs:
                if owner:
                    o0, o1 = y * w + x0, y * w + x1
                    if cov >= 0.5:
                        self.owner[o0:o1] = bytes([owner]) * (x1 - x0)
                        self.top[o0:o1] = tags * (x1 - x0)
                    if cov >= 1.0:
                        self.cover[o0:o1] = b"\xff" * (x1 - x0)
                    else:
                        cover, ow = self.cover, self.owner
                        for i in range(o0, o1):
                            cover[i] = int(cov * 255 + cover[i] * (1.0 - cov) + 0.5)
                            if not ow[i]:
                                ow[i] = owner
                if fx and cov * opacity >= 0.04:
                    self.fx[y * w + x0:y * w + x1] = bytes([fx]) * (x1 - x0)
                self.over(y, x0, x1, fill.row(y, x0, x1), cov * opacity)

    def finish(self):
        """The mask from the subject's coverage: a pixel is subject when its parts together
        cover at least half of it (translucent parts count as covering)."""
        self.mask[:] = self.cover.translate(_HALF)

    def soft(self, cx, cy, rx, ry, colour, strength, power, fx):
        """A soft elliptic spot: opacity strength * (1 - d^2)^power, d the elliptic radius."""
        w, h = self.w, self.h
        y0 = max(0, int(cy - ry))
        y1 = min(h - 1, int(cy + ry) + 1)
        for y in range(y0, y1 + 1):
            v = (y + 0.5 - cy) / ry
            if v * v >= 1.0:
                continue
            half = rx * math.sqrt(1.0 - v * v)
            xa = max(0, int(cx - half))
            xb = min(w, int(cx + half) + 1)
            if xb <= xa:
                continue
            vv = v * v
            alphas = []
            for x in range(xa, xb):
                u = (x + 0.5 - cx) / rx
                d2 = u * u + vv
                alphas.append(strength * (1.0 - d2) ** power if d2 < 1.0 else 0.0)
            o = y * w
            marks = bytes([fx if a >= 0.04 else 0 for a in alphas])
            old = self.fx[o + xa:o + xb]
            self.fx[o + xa:o + xb] = bytes([m or p for m, p in zip(marks, old)])
            if self.transparent:
                for k, a in enumerate(alphas):
                    if a >= 0.004:
                        self.over(y, xa + k, xa + k + 1, bytes(colour), a)
                continue
            i0 = 3 * (o + xa)
            dst = self.rgb[i0:i0 + 3 * (xb - xa)]
            r, g, b = colour
            out = bytearray(len(dst))
            for k, a in enumerate(alphas):
                q = 3 * k
                out[q] = int(dst[q] + (r - dst[q]) * a + 0.5)
                out[q + 1] = int(dst[q + 1] + (g - dst[q + 1]) * a + 0.5)
                out[q + 2] = int(dst[q + 2] + (b - dst[q + 2]) * a + 0.5)
            self.rgb[i0:i0 + 3 * (xb - xa)] = out


# ----------------------------------------------------------------------------------------
# backgrounds


def _clamp_table(lo=-512, hi=768):
    return bytes(max(0, min(255, v)) for v in range(lo, hi)), -lo


def background(rng, kind, w, h, canvas):
    """Fills canvas.rgb with a background of `kind`; returns its main colour."""
    rgb = canvas.rgb
    if kind == "white":
        c = (255, 255, 255) if rng.random() < 0.5 else tuple(rng.randint(244, 255) for _ in range(3))
        rgb[:] = bytes(c) * (w * h)
        return c
    if kind == "flat":
        c = random_colour(rng, (0.05, 0.7), (0.25, 0.97))
        rgb[:] = bytes(c) * (w * h)
        return c
    if kind == "gradient":
        c1 = random_colour(rng, (0.0, 0.6), (0.3, 1.0))
        c2 = mixed(c1, random_colour(rng, (0.0, 0.6), (0.3, 1.0)), rng.uniform(0.3, 1.0))
        ang = rng.choice([math.pi / 2, math.pi / 2, rng.uniform(0, 2 * math.pi)])
        pal = [bytes(mixed(c1, c2, i / 255)) for i in range(256)]
        dx, dy = math.cos(ang), math.sin(ang)
        span = abs(dx) * w + abs(dy) * h
        base = min(0.0, dx * w) + min(0.0, dy * h)
        k = 255.0 / span
        for y in range(h):
            t0 = (dy * y - base) * k
            if abs(dx) < 1e-6:
                rgb[3 * y * w:3 * (y + 1) * w] = pal[max(0, min(255, int(t0)))] * w
            else:
                step = dx * k
                rgb[3 * y * w:3 * (y + 1) * w] = b"".join([pal[max(0, min(255, int(t0 + step * x)))] for x in range(w)])
        return mixed(c1, c2, 0.5)
    if kind == "noise":
        c = random_colour(rng, (0.0, 0.6), (0.3, 0.9))
        amp = rng.uniform(0.04, 0.25) * 255
        sub = random.Random(rng.getrandbits(64))
        colour_noise = rng.random() < 0.5
        planes = []
        lum = sub.randbytes(w * h)
        for ch in range(3):
            noise = sub.randbytes(w * h) if colour_noise else lum
            table = bytes(max(0, min(255, int(c[ch] + (v - 127.5) / 127.5 * amp))) for v in range(256))
            planes.append(noise.translate(table))
        for ch in range(3):
            rgb[ch::3] = planes[ch]
        return c
    if kind in ("blobs", "photo"):
        muted = kind == "photo"
        cols = [random_colour(rng, (0.05, 0.45) if muted else (0.2, 0.8), (0.25, 0.85) if muted else (0.4, 1.0))
                for _ in range(4)]
        pal = []
        for i in range(16):
            top = mixed(cols[0], cols[1], i / 15)
            bot = mixed(cols[2], cols[3], i / 15)
            pal.extend(bytes(mixed(top, bot, j / 15)) * 2 for j in range(16))
        lw, lh = (w + 1) // 2, (h + 1) // 2
        fields = []
        for _ in range(2):
            blobs = []
            for _ in range(rng.randint(2, 5)):
                bx, by = rng.uniform(-0.1, 1.1) * lw, rng.uniform(-0.1, 1.1) * lh
                sx, sy = rng.uniform(0.08, 0.35) * lw, rng.uniform(0.08, 0.35) * lh
                wt = rng.uniform(0.4, 1.0)
                gx = [math.exp(-((x - bx) / sx) ** 2) for x in range(lw)]
                gy = [wt * math.exp(-((y - by) / sy) ** 2) for y in range(lh)]
                blobs.append((gx, gy))
            fields.append(blobs)
        rows = []
        for y in range(lh):
            acc = [[0.0] * lw, [0.0] * lw]
            for f in range(2):
                a = acc[f]
                for gx, gy in fields[f]:
                    c = gy[y]
                    if c > 1e-3:
                        a = [v + c * g for v, g in zip(a, gx)]
                acc[f] = a
            idx = [16 * min(15, int(15 * min(1.0, u))) + min(15, int(15 * min(1.0, v))) for u, v in zip(*acc)]
            row = b"".join([pal[i] for i in idx])[:3 * w]
            rows.append(row)
        for y in range(h):
            rgb[3 * y * w:3 * (y + 1) * w] = rows[y // 2]
        if kind == "photo":
            sub = random.Random(rng.getrandbits(64))
            # a ground: from a horizon down, a textured floor (streaks and grain)
            if rng.random() < 0.7:
                hz = int(h * rng.uniform(0.45, 0.85))
                g = random_colour(rng, (0.1, 0.5), (0.25, 0.7))
                for y in range(hz, h):
                    k = 1.0 + 0.15 * math.sin(y * rng.uniform(0.2, 0.9)) * (y - hz) / max(1, h - hz)
                    gc = scaled(g, k * (0.8 + 0.4 * (y - hz) / max(1, h - hz)))
                    rgb[3 * y * w:3 * (y + 1) * w] = bytes(gc) * w
            # fine grain over everything: ±amp per pixel
            amp = rng.randint(4, 16)
            table, off = _clamp_table()
            noise = sub.randbytes(w * h)
            for y in range(h):
                nrow = noise[y * w:(y + 1) * w]
                o = 3 * y * w
                for ch in range(3):
                    src = rgb[o + ch:o + 3 * w:3]
                    rgb[o + ch:o + 3 * w:3] = bytes([table[s + off + (n * (2 * amp + 1) >> 8) - amp] for s, n in zip(src, nrow)])
        return cols[0]
    raise ValueError(kind)
