"""The back of the mesh judged on a seeded scene: a back made up from the front must not repeat
the face or the emblems (measured as tests/engine/test_character.cpp's back tests measure the
samples' eyes and blush), and must keep the colours of the parts apart from the body, which are
seen from behind too (as that test keeps the robot's antenna ball).

    places = feature_places(sc, cv)        # the face and emblems as the picture shows them
    r = judge_back(sc, cv, places, mesh, box, (ox, oy, iw, ih), front, 0.002)

A feature is a connected piece of what the picture shows of its eyes, pupils, mouth, visor and
emblems (figures.FEATURES, a floating head's eyes). Seen from behind through the same pixels
(frontview.both_sides), it must have the colour of its host (the head or torso it is drawn on)
around it there: its **ghost** is the mean distance of the back's colours at the feature's
pixels from the back's colour at the nearest pixels of a ring of the host around it, divided by
the same seen from the front (the feature's own contrast). 0: no trace; 1: the front repeated.
A feature is repeated when its ghost exceeds GHOST_LIMIT.

A part apart from the body (more than 0.2 % of the subject: an orb, a weapon, a chain) is lost
from behind when less than KEEP_SHARE of its pixels (off its outline) have from behind the
colour they have from the front.
"""

import heapq
import math

import frontview
import scenes

# A feature is repeated on the back when more than this share of its contrast is left there.
# The C++ test's measure on the knight's eyes: 107 for the mirrored front, a limit of 40 (0.37).
GHOST_LIMIT = 0.4
# Features with less contrast than this (RGB distance) from the front are not judged: the
# ghost of a dark mouth on a dark face is noise.
MIN_CONTRAST = 30.0
MIN_FEATURE = 3  # pixels of a feature the back must cover to judge it
MIN_RING = 8  # pixels of its host's ring
NEAR_RING = 4  # each feature pixel is compared with this many nearest pixels of the ring...
MAX_RING = 300  # ... of at most this many (spread evenly over the ring)
# A part apart from the body is lost from behind when less than this share of it has, from
# behind, the colour it has from the front (within KEEP_DISTANCE, as the C++ test counts).
KEEP_SHARE = 0.7
KEEP_DISTANCE = 50.0


def distance(p, q):
    return math.sqrt((p[0] - q[0]) ** 2 + (p[1] - q[1]) ** 2 + (p[2] - q[2]) ** 2)


def _chebyshev(pixels, w, h, reach):
    """{pixel index: distance 1..reach} around the set `pixels` (8-connected steps)."""
    dist = {}
    frontier = list(pixels)
    for d in range(1, reach + 1):
        nxt = []
        for i in frontier:
            x, y = i % w, i // w
            for dy in (-1, 0, 1):
                yy = y + dy
                if yy < 0 or yy >= h:
                    continue
                for dx in (-1, 0, 1):
                    xx = x + dx
                    if xx < 0 or xx >= w:
                        continue
                    j = yy * w + xx
                    if j not in pixels and j not in dist:
                        dist[j] = d
                        nxt.append(j)
        frontier = nxt
    return dist


def _amid(top, j, w, h, tag):
    """Whether pixel j and its eight neighbours all show the part tagged `tag`."""
    x, y = j % w, j // w
    return 0 < x < w - 1 and 0 < y < h - 1 and all(
        top[j + dy * w + dx] == tag for dy in (-1, 0, 1) for dx in (-1, 0, 1))


def feature_places(sc, cv):
    """[{"what", "host", "pixels", "ring"}]: per connected piece of the features the picture
    shows (8-connected; an eye's white and its pupil are one), its pixels (those whose four
    neighbours are feature too, where that leaves MIN_FEATURE) and a ring of its host's pixels
    2 to 2 + max(2, sqrt(area) / 2) pixels around it, away from any other part's edge. Upright
    picture indexes. Features without a host around them (a pupil covering its eye) are left
    out."""
    w, h = cv.w, cv.h
    parts = sc.builder.parts
    feature_tags = {t for t, p in enumerate(parts, 1) if p.feature}
    if not feature_tags:
        return []
    top = cv.top
    marked = bytearray(w * h)
    for i, t in enumerate(top):
        if t in feature_tags:
            marked[i] = 255
    places = []
    for comp in scenes.components(marked, w, h, 255, diagonal=True):
        px = [y * w + x for y, x0, x1 in comp["runs"] for x in range(x0, x1)]
        pset = set(px)
        core = [i for i in px if (i % w) > 0 and (i % w) < w - 1 and
                i - 1 in pset and i + 1 in pset and i - w in pset and i + w in pset]
        if len(core) < MIN_FEATURE:
            core = px
        reach = 2 + max(2, int(round(math.sqrt(len(px)) / 2)))
        dist = _chebyshev(pset, w, h, reach)
        counts = {}
        for j in dist:
            t = top[j]
            if t and t != scenes.OUTLINE_TAG and t not in feature_tags:
                counts[t] = counts.get(t, 0) + 1
        if not counts:
            continue
        host = max(counts, key=lambda t: (counts[t], -t))
        ring = [j for j, d in dist.items() if d > 2 and _amid(top, j, w, h, host)]
        whats = sorted({parts[top[i] - 1].what for i in px})
        places.append({"what": "+".join(whats), "host": parts[host - 1].what, "pixels": sorted(core),
                       "ring": sorted(ring)})
    return places


def _mean(colours):
    n = len(colours)
    return tuple(sum(c[k] for c in colours) / n for k in range(3))


def ghost(feature, ring, near=NEAR_RING):
    """(ghost, front contrast): how much of a feature's contrast against its host the back keeps,
    as a share of the front's. `feature` and `ring` are lists of ((x, y), front rgb, back rgb);
    each feature pixel is compared, on each side, with the mean of its `near` nearest ring
    pixels, so that a feature on a two-tone host (cel shading, a split shield) painted over by
    each tone is no ghost. The contrast is the mean distance per pixel from the front."""
    contrast = left = 0.0
    for (x, y), f, b in feature:
        nearest = heapq.nsmallest(near, ring, key=lambda r: (r[0][0] - x) ** 2 + (r[0][1] - y) ** 2)
        contrast += distance(f, _mean([r[1] for r in nearest]))
        left += distance(b, _mean([r[2] for r in nearest]))
    return left / max(contrast, 1e-9), contrast / max(1, len(feature))


def judge_back(sc, cv, places, mesh, box, view, front, apart_share):
    """The back's figures for one scene: {"features_judged", "features_repeated" (their
    names), "ghost_max", "apart_judged", "apart_lost" (the names of parts apart lost from
    behind)}. `view` = (ox, oy, iw, ih): where the front view (iw x ih) lies in the picture;
    `front`: the front view's coverage in picture pixels; parts apart larger than `apart_share`
    of the subject are judged."""
    w, h = cv.w, cv.h
    ox, oy, iw, ih = view

    def to_view(i):
        x, y = i % w - ox, i // w - oy
        return y * iw + x if 0 <= x < iw and 0 <= y < ih and front[i] else None

    # parts apart from the body: their pixels one in from their edge and off their outline
    top = cv.top
    apart = []
    for part in scenes.parts_apart(sc, cv, apart_share):
        px = {y * w + x for y, x0, x1 in part["runs"] for x in range(x0, x1)}
        core = [i for i in px if top[i] != scenes.OUTLINE_TAG and
                i - 1 in px and i + 1 in px and i - w in px and i + w in px]
        apart.append((part["what"], core))

    wanted = set()
    for pixels in [p["pixels"] for p in places] + [p["ring"] for p in places] + [core for _, core in apart]:
        for i in pixels:
            v = to_view(i)
            if v is not None:
                wanted.add(v)
    from_front, from_behind = frontview.both_sides(mesh, box, iw, ih, wanted)

    def seen(pixels):
        """((x, y), colour from the front, from behind) at `pixels`, where both views cover."""
        out = []
        for i in pixels:
            v = to_view(i)
            if v is not None and v in from_front and v in from_behind:
                out.append(((i % w, i // w), from_front[v], from_behind[v]))
        return out

    out = {"features_judged": 0, "features_repeated": [], "ghost_max": 0.0, "apart_judged": 0, "apart_lost": []}
    for p in places:
        feature = seen(p["pixels"])
        ring = seen(p["ring"])
        if len(feature) < MIN_FEATURE or len(ring) < MIN_RING:
            continue
        g, contrast = ghost(feature, ring[::max(1, len(ring) // MAX_RING)])
        if contrast < MIN_CONTRAST:
            continue
        out["features_judged"] += 1
        out["ghost_max"] = round(max(out["ghost_max"], g), 3)
        if g > GHOST_LIMIT:
            out["features_repeated"].append(p["what"])
    for what, core in apart:
        both = seen(core)
        if len(both) < MIN_FEATURE:
            continue
        out["apart_judged"] += 1
        kept = sum(1 for _, f, b in both if distance(f, b) < KEEP_DISTANCE)
        if kept < KEEP_SHARE * len(both):
            out["apart_lost"].append(what)
    return out
