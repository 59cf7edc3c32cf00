"""Anti-aliased scanline filling of polygons onto byte buffers, for scenes.py.

A shape is a list of contours (lists of (x, y) in pixels, y down), filled by the even-odd
rule, so a contour inside another is a hole. Each pixel row is sampled on two sub-rows
(y + 0.25, y + 0.75); along a sub-row the coverage of a pixel is the exact length of the
filled intervals inside it. coverage_rows() gives, per row, runs (x0, x1, coverage) with one
coverage for the whole run, so a fill paints whole runs with slice assignment and only the
pixels on an edge one at a time.

    for y, runs in coverage_rows(contours, width, height):
        for x0, x1, cov in runs: ...
"""

import math


def coverage_rows(contours, width, height):
    edges = []
    ylo = math.inf
    yhi = -math.inf
    for c in contours:
        n = len(c)
        for i in range(n):
            x0, y0 = c[i]
            x1, y1 = c[(i + 1) % n]
            if y0 == y1:
                continue
            if y0 > y1:
                x0, y0, x1, y1 = x1, y1, x0, y0
            edges.append((y0, y1, x0, (x1 - x0) / (y1 - y0)))
            ylo = min(ylo, y0)
            yhi = max(yhi, y1)
    if not edges:
        return
    r0 = max(0, int(math.floor(ylo)))
    r1 = min(height - 1, int(math.floor(yhi)))
    if r1 < r0:
        return
    buckets = [[] for _ in range(r1 - r0 + 1)]
    for e in edges:
        a = max(r0, int(math.floor(e[0])))
        b = min(r1, int(math.floor(e[1])))
        for r in range(a, b + 1):
            buckets[r - r0].append(e)
    for y in range(r0, r1 + 1):
        bucket = buckets[y - r0]
        if not bucket:
            continue
        ivs = []
        for sy in (y + 0.25, y + 0.75):
            xs = sorted([ex + (sy - ey0) * slope for ey0, ey1, ex, slope in bucket if ey0 <= sy < ey1])
            for k in range(0, len(xs) - 1, 2):
                a = xs[k] if xs[k] > 0.0 else 0.0
                b = xs[k + 1] if xs[k + 1] < width else float(width)
                if b > a:
                    ivs.append((a, b))
        if ivs:
            runs = _runs(ivs, width)
            if runs:
                yield y, runs


def _cov(x, ivs):
    # Every interval comes from one of two sub-rows, each weighing half.
    s = 0.0
    x1 = x + 1
    for a, b in ivs:
        lo = a if a > x else x
        hi = b if b < x1 else x1
        if hi > lo:
            s += hi - lo
    return 0.5 * s


def _runs(ivs, width):
    crit = set()
    for a, b in ivs:
        crit.add(int(a))
        crit.add(min(width - 1, int(b)))
    crit = sorted(crit)
    runs = []
    for k, c in enumerate(crit):
        cv = _cov(c, ivs)
        if cv > 1e-9:
            _append(runs, c, c + 1, cv)
        if k + 1 < len(crit) and crit[k + 1] > c + 1:
            cv = _cov(c + 1, ivs)
            if cv > 1e-9:
                _append(runs, c + 1, crit[k + 1], cv)
    return runs


def _append(runs, x0, x1, cv):
    cv = 1.0 if cv > 0.999999 else cv
    if runs and runs[-1][1] == x0 and runs[-1][2] == cv:
        runs[-1] = (runs[-1][0], x1, cv)
    else:
        runs.append((x0, x1, cv))


# ----------------------------------------------------------------------------------------
# contours


def ellipse(cx, cy, rx, ry, rot=0.0, n=None):
    if n is None:
        n = max(24, min(256, int(math.pi * (rx + ry) / 1.2)))
    c, s = math.cos(rot), math.sin(rot)
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        x, y = rx * math.cos(t), ry * math.sin(t)
        pts.append((cx + c * x - s * y, cy + s * x + c * y))
    return pts


def _hull(points):
    pts = sorted(set(points))
    if len(pts) <= 2:
        return pts

    def cross(o, a, b):
        return (a[0] - o[0]) * (b[1] - o[1]) - (a[1] - o[1]) * (b[0] - o[0])

    lower = []
    for p in pts:
        while len(lower) >= 2 and cross(lower[-2], lower[-1], p) <= 0:
            lower.pop()
        lower.append(p)
    upper = []
    for p in reversed(pts):
        while len(upper) >= 2 and cross(upper[-2], upper[-1], p) <= 0:
            upper.pop()
        upper.append(p)
    return lower[:-1] + upper[:-1]


def capsule(x0, y0, x1, y1, r0, r1=None, n=None):
    """The convex hull of two discs: a limb, a handle, a stalk (tapered when r1 != r0)."""
    if r1 is None:
        r1 = r0
    if n is None:
        n = max(12, min(64, int(math.pi * max(r0, r1))))
    pts = []
    for i in range(n):
        t = 2 * math.pi * i / n
        ct, st = math.cos(t), math.sin(t)
        pts.append((x0 + r0 * ct, y0 + r0 * st))
        pts.append((x1 + r1 * ct, y1 + r1 * st))
    return _hull(pts)


def rounded_rect(cx, cy, w, h, r, rot=0.0):
    r = max(0.0, min(r, w / 2, h / 2))
    hw, hh = w / 2 - r, h / 2 - r
    pts = []
    steps = max(2, int(r / 1.5)) if r > 0 else 0
    for (ox, oy, a0) in ((hw, hh, 0.0), (-hw, hh, 0.5 * math.pi), (-hw, -hh, math.pi), (hw, -hh, 1.5 * math.pi)):
        if steps:
            for k in range(steps + 1):
                a = a0 + 0.5 * math.pi * k / steps
                pts.append((ox + r * math.cos(a), oy + r * math.sin(a)))
        else:
            pts.append((ox, oy))
    c, s = math.cos(rot), math.sin(rot)
    return [(cx + c * x - s * y, cy + s * x + c * y) for x, y in pts]


def regular(cx, cy, r, n, rot=0.0, inner=None):
    """A regular polygon, or a star when `inner` (the inner radius) is given."""
    pts = []
    k = 2 * n if inner else n
    for i in range(k):
        rr = inner if inner and i % 2 else r
        a = rot + 2 * math.pi * i / k - math.pi / 2
        pts.append((cx + rr * math.cos(a), cy + rr * math.sin(a)))
    return pts


def signed_area(pts):
    s = 0.0
    n = len(pts)
    for i in range(n):
        x0, y0 = pts[i]
        x1, y1 = pts[(i + 1) % n]
        s += x0 * y1 - x1 * y0
    return 0.5 * s


def offset(pts, d):
    """The contour moved outward by d (inward for d < 0), mitres limited to 2 d."""
    n = len(pts)
    if n < 3 or d == 0:
        return list(pts)
    sign = 1.0 if signed_area(pts) > 0 else -1.0
    normals = []
    for i in range(n):
        x0, y0 = pts[i]
        x1, y1 = pts[(i + 1) % n]
        dx, dy = x1 - x0, y1 - y0
        ln = math.hypot(dx, dy) or 1.0
        # A contour of positive signed area has its inside on the left of each edge, (-dy, dx).
        normals.append((sign * dy / ln, -sign * dx / ln))
    out = []
    for i in range(n):
        n1 = normals[i - 1]
        n2 = normals[i]
        mx, my = n1[0] + n2[0], n1[1] + n2[1]
        ln = math.hypot(mx, my)
        if ln < 1e-9:
            mx, my, ln = n2[0], n2[1], 1.0
        mx, my = mx / ln, my / ln
        cosa = mx * n2[0] + my * n2[1]
        k = d / max(0.5, cosa)
        out.append((pts[i][0] + mx * k, pts[i][1] + my * k))
    return out


def bbox(contours):
    xs = [p[0] for c in contours for p in c]
    ys = [p[1] for c in contours for p in c]
    return min(xs), min(ys), max(xs), max(ys)
