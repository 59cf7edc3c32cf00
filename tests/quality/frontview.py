"""The mesh seen from the front, as tests/engine/raster.cpp's renderFront() draws it.

    mesh = read_glb("out.glb")                       # positions, indices, uvs, texture
    box = bounds(mesh)                               # (xmin, ymin, zmin, xmax, ymax, zmax)
    cov = silhouette(mesh, (box[0], box[1], box[3], box[4]), w, h)   # bytearray, 1 = covered
    cov = silhouette(mesh, picture_box(mesh.placement), pw, ph)      # where it lies on the picture
    rgb, cov = textured(mesh, (box[0], box[1], box[3], box[4]), w, h)  # for colour PSNR
    front, back = both_sides(mesh, (box[0], box[1], box[3], box[4]), w, h, {y * w + x, ...})  # {index: rgb}

The front view looks down -Z (the viewer is at +Z; the nearest surface has the largest Z),
orthographically; the rectangle box = (left, bottom, right, top) in mesh X/Y fills the w x h
picture, pixel (0, 0) at the top-left, pixel centres sampled. That is how
tests/engine/test_character.cpp judges a mesh: stageload writes where the mesh lies on the
picture it was made from into the mesh's extras ("stageloadPicture", see PicturePlacement in
engine/media/mesh.h), and picture_box() turns that into the box that draws the mesh there at
the picture's size. (Without it, a mesh's bounds can be drawn into the box of the subject found,
which is off by up to half a pixel on each side: the outline lies on the mask's half level, not
on pixel edges.)
"""

import json
import math
import struct

import pngio

_COMPONENTS = {"SCALAR": 1, "VEC2": 2, "VEC3": 3, "VEC4": 4}
_FORMATS = {5120: "b", 5121: "B", 5122: "h", 5123: "H", 5125: "I", 5126: "f"}


class Mesh:
    def __init__(self):
        self.positions = []  # flat x, y, z
        self.indices = []
        self.uvs = []  # flat u, v (glTF: v = 0 at the top of the texture)
        self.texture_png = None  # the base colour texture's PNG bytes, if any
        # Where the mesh lies on its picture: (width, height, x0, y0, sx, sy), the point (X, Y)
        # at pixel position (x0 + X * sx, y0 - Y * sy); None when the file does not say.
        self.placement = None


def read_glb(path):
    """Every triangle primitive of a .glb file (node transforms are not applied: stageload
    writes none)."""
    with open(path, "rb") as f:
        data = f.read()
    magic, version, length = struct.unpack("<4sII", data[:12])
    if magic != b"glTF" or version != 2:
        raise ValueError("%s: not a glTF 2 binary" % path)
    at = 12
    doc = None
    binary = b""
    while at + 8 <= len(data):
        clen, ctype = struct.unpack("<II", data[at:at + 8])
        chunk = data[at + 8:at + 8 + clen]
        if ctype == 0x4E4F534A:
            doc = json.loads(chunk)
        elif ctype == 0x004E4942:
            binary = chunk
        at += 8 + clen
    if doc is None:
        raise ValueError("%s: no JSON chunk" % path)

    def view_bytes(index):
        bv = doc["bufferViews"][index]
        o = bv.get("byteOffset", 0)
        return binary[o:o + bv["byteLength"]], bv.get("byteStride")

    def accessor(index):
        a = doc["accessors"][index]
        raw, stride = view_bytes(a["bufferView"])
        n = _COMPONENTS[a["type"]]
        fmt = _FORMATS[a["componentType"]]
        size = struct.calcsize("<" + fmt)
        off = a.get("byteOffset", 0)
        count = a["count"]
        if stride and stride != n * size:
            out = []
            for i in range(count):
                out.extend(struct.unpack_from("<%d%s" % (n, fmt), raw, off + i * stride))
            return out
        return list(struct.unpack_from("<%d%s" % (n * count, fmt), raw, off))

    mesh = Mesh()
    meshes = doc.get("meshes", [])
    moved = any(k in n for n in doc.get("nodes", []) for k in ("matrix", "translation", "rotation", "scale"))
    placed = meshes[0].get("extras", {}).get("stageloadPicture") if len(meshes) == 1 and not moved else None
    if placed:
        (w, h), (x0, y0), (sx, sy) = placed["size"], placed["origin"], placed["pixelsPerUnit"]
        mesh.placement = (int(w), int(h), float(x0), float(y0), float(sx), float(sy))
    for m in meshes:
        for prim in m["primitives"]:
            if prim.get("mode", 4) != 4:
                continue
            base = len(mesh.positions) // 3
            pos = accessor(prim["attributes"]["POSITION"])
            mesh.positions.extend(pos)
            if "TEXCOORD_0" in prim["attributes"]:
                mesh.uvs.extend(accessor(prim["attributes"]["TEXCOORD_0"]))
            if "indices" in prim:
                mesh.indices.extend(i + base for i in accessor(prim["indices"]))
            else:
                mesh.indices.extend(range(base, base + len(pos) // 3))
            if mesh.texture_png is None and "material" in prim:
                mat = doc["materials"][prim["material"]]
                tex = mat.get("pbrMetallicRoughness", {}).get("baseColorTexture")
                if tex is not None:
                    img = doc["images"][doc["textures"][tex["index"]]["source"]] if "textures" in doc else \
                        doc["images"][tex["index"]]
                    if "bufferView" in img:
                        mesh.texture_png = view_bytes(img["bufferView"])[0]
    return mesh


def bounds(mesh):
    p = mesh.positions
    xs, ys, zs = p[0::3], p[1::3], p[2::3]
    return min(xs), min(ys), min(zs), max(xs), max(ys), max(zs)


def picture_box(placement):
    """The box (left, bottom, right, top) that draws a mesh where it lies on its picture, at
    the picture's size (placement[0] x placement[1])."""
    w, h, x0, y0, sx, sy = placement
    return -x0 / sx, (y0 - h) / sy, (w - x0) / sx, y0 / sy


def _projected(mesh, box, w, h):
    left, bottom, right, top = box
    sx = w / (right - left)
    sy = h / (top - bottom)
    p = mesh.positions
    X = [(x - left) * sx for x in p[0::3]]
    Y = [(top - y) * sy for y in p[1::3]]
    return X, Y


def silhouette(mesh, box, w, h):
    """Coverage (bytearray of w * h, 1 where a triangle covers the pixel centre)."""
    X, Y = _projected(mesh, box, w, h)
    cov = bytearray(w * h)
    idx = mesh.indices
    for t in range(0, len(idx) - 2, 3):
        a, b, c = idx[t], idx[t + 1], idx[t + 2]
        xa, ya, xb, yb, xc, yc = X[a], Y[a], X[b], Y[b], X[c], Y[c]
        area = (xb - xa) * (yc - ya) - (xc - xa) * (yb - ya)
        if abs(area) < 1e-12:
            continue
        # Rows whose pixel centre (y + 0.5) lies within the triangle's Y range.
        ylo = min(ya, yb, yc)
        yhi = max(ya, yb, yc)
        r0 = max(0, int(math.ceil(ylo - 0.5)))
        r1 = min(h - 1, int(math.floor(yhi - 0.5)))
        if r1 < r0:
            continue
        edges = ((xa, ya, xb, yb), (xb, yb, xc, yc), (xc, yc, xa, ya))
        for y in range(r0, r1 + 1):
            py = y + 0.5
            lo = math.inf
            hi = -math.inf
            for x0, y0, x1, y1 in edges:
                if (y0 <= py <= y1) or (y1 <= py <= y0):
                    if y1 == y0:
                        lo = min(lo, x0, x1)
                        hi = max(hi, x0, x1)
                    else:
                        x = x0 + (py - y0) * (x1 - x0) / (y1 - y0)
                        lo = min(lo, x)
                        hi = max(hi, x)
            c0 = max(0, int(math.ceil(lo - 0.5)))
            c1 = min(w - 1, int(math.floor(hi - 0.5)))
            if c1 >= c0:
                o = y * w
                cov[o + c0:o + c1 + 1] = b"\x01" * (c1 - c0 + 1)
    return cov


def _texture(mesh, rows=None):
    """(width, height, channels, pixels) of the base colour texture, its first `rows` rows only
    when given (a PNG row needs every row above it; the rest is never decoded)."""
    return pngio.decode_png(mesh.texture_png, rows)


def _surface(mesh, box, w, h, farthest=False, wanted=None):
    """{pixel index: (u, v)}: the texture coordinates of the nearest surface (largest Z; the
    farthest, smallest Z, with `farthest`) at each covered pixel centre, at the pixel indexes in
    the set `wanted` only when given."""
    X, Y = _projected(mesh, box, w, h)
    sign = -1.0 if farthest else 1.0
    Z = [sign * z for z in mesh.positions[2::3]]
    uv = mesh.uvs
    if wanted is not None:
        if not wanted:
            return {}
        rx0 = min(i % w for i in wanted)
        rx1 = max(i % w for i in wanted)
        ry0 = min(wanted) // w
        ry1 = max(wanted) // w
    else:
        rx0, ry0, rx1, ry1 = 0, 0, w - 1, h - 1
    depth = {}
    found = {}
    idx = mesh.indices
    for t in range(0, len(idx) - 2, 3):
        a, b, c = idx[t], idx[t + 1], idx[t + 2]
        xa, ya, xb, yb, xc, yc = X[a], Y[a], X[b], Y[b], X[c], Y[c]
        area = (xb - xa) * (yc - ya) - (xc - xa) * (yb - ya)
        if abs(area) < 1e-12:
            continue
        x0 = max(rx0, int(math.floor(min(xa, xb, xc))))
        x1 = min(rx1, int(math.ceil(max(xa, xb, xc))))
        y0 = max(ry0, int(math.floor(min(ya, yb, yc))))
        y1 = min(ry1, int(math.ceil(max(ya, yb, yc))))
        if x1 < x0 or y1 < y0:
            continue
        za, zb, zc = Z[a], Z[b], Z[c]
        ua, va, ub, vb, uc, vc = uv[2 * a], uv[2 * a + 1], uv[2 * b], uv[2 * b + 1], uv[2 * c], uv[2 * c + 1]
        for y in range(y0, y1 + 1):
            py = y + 0.5
            for x in range(x0, x1 + 1):
                i = y * w + x
                if wanted is not None and i not in wanted:
                    continue
                px = x + 0.5
                w0 = ((xc - xb) * (py - yb) - (px - xb) * (yc - yb)) / area
                w1 = ((xa - xc) * (py - yc) - (px - xc) * (ya - yc)) / area
                w2 = ((xb - xa) * (py - ya) - (px - xa) * (yb - ya)) / area
                if w0 < 0 or w1 < 0 or w2 < 0:
                    continue
                z = w0 * za + w1 * zb + w2 * zc
                if z <= depth.get(i, -math.inf):
                    continue
                depth[i] = z
                found[i] = (w0 * ua + w1 * ub + w2 * uc, w0 * va + w1 * vb + w2 * vc)
    return found


def _sampled(found, tw, th, ch, tex):
    """{pixel index: (r, g, b)}: the texture sampled bilinearly at each of `found`'s UVs."""
    out = {}
    for i, (u, v) in found.items():
        fx = min(max(u * tw - 0.5, 0.0), tw - 1.0)
        fy = min(max(v * th - 0.5, 0.0), th - 1.0)
        ix, iy = int(fx), int(fy)
        jx, jy = min(ix + 1, tw - 1), min(iy + 1, th - 1)
        ax, ay = fx - ix, fy - iy
        rgb = []
        for c in range(3):
            t00 = tex[(iy * tw + ix) * ch + c]
            t10 = tex[(iy * tw + jx) * ch + c]
            t01 = tex[(jy * tw + ix) * ch + c]
            t11 = tex[(jy * tw + jx) * ch + c]
            topv = t00 * (1 - ax) + t10 * ax
            botv = t01 * (1 - ax) + t11 * ax
            rgb.append(int(math.floor(topv * (1 - ay) + botv * ay + 0.5)))
        out[i] = tuple(rgb)
    return out


def textured(mesh, box, w, h):
    """(rgb bytes, coverage) of the textured front view: the nearest surface (largest Z) at each
    pixel centre, its texture sampled bilinearly at its UV as raster.cpp does."""
    tw, th, ch, tex = _texture(mesh)
    colours = _sampled(_surface(mesh, box, w, h), tw, th, ch, tex)
    rgb = bytearray(3 * w * h)
    cov = bytearray(w * h)
    for i, c in colours.items():
        cov[i] = 1
        rgb[3 * i:3 * i + 3] = bytes(c)
    return bytes(rgb), cov


def both_sides(mesh, box, w, h, wanted):
    """({pixel index: (r, g, b)} from the front, the same from behind): the mesh's colours at
    the pixel indexes (y * w + x of the w x h front view) in the set `wanted`, where a surface
    covers them, seen from the front (the nearest surface, as textured() shows it) and from
    behind through the same pixels (the farthest surface, smallest Z). Not mirrored: pixel
    (x, y) from behind shows what lies behind the front view's (x, y), which is what
    test_character.cpp's back view (the mesh turned about Y) shows at (w - 1 - x, y). Decodes
    the texture only down to the lowest row it samples."""
    near = _surface(mesh, box, w, h, wanted=wanted)
    far = _surface(mesh, box, w, h, farthest=True, wanted=wanted)
    if not far or not mesh.texture_png:
        return {}, {}
    tw, th, _, _ = pngio.png_size(mesh.texture_png)
    vs = [v for _, v in near.values()] + [v for _, v in far.values()]
    rows = min(th, max(int(min(max(v * th - 0.5, 0.0), th - 1.0)) + 2 for v in vs))
    _, _, ch, tex = _texture(mesh, rows)
    return _sampled(near, tw, th, ch, tex), _sampled(far, tw, th, ch, tex)
