"""A small baseline JPEG encoder and decoder, with EXIF orientation, in the standard library.

    import jpeg
    data = jpeg.encode_jpeg(w, h, rgb, quality=85, orientation=6)   # stored pixels as given
    w, h, rgb, orientation = jpeg.decode_jpeg(data)                  # as stored, and the tag
    w2, h2, upright = jpeg.apply_orientation(w, h, 3, rgb, orientation)

The encoder writes baseline sequential JFIF-style JPEG: YCbCr, 4:2:0 (or 4:4:4), the
Huffman tables of the standard's Annex K, the quality scaling of the IJG library. With an
orientation it writes an APP1 "Exif" segment whose IFD0 holds one Orientation tag (0x0112),
in either byte order. It encodes the pixels it is given: to make a picture that a viewer
shows upright, pass store_for_orientation()'s pixels, which are the upright ones turned so
that applying the orientation gives them back.

apply_orientation() turns stored pixels upright exactly as stageload's applyOrientation()
(engine/media/image.cpp) does: out(x, y) = in(sx, sy) with
    2: sx = W-1-x          3: sx = W-1-x, sy = H-1-y     4: sy = H-1-y
    5: sx = y, sy = x      6: sx = y, sy = H-1-x         7: sx = W-1-y, sy = H-1-x
    8: sx = W-1-y, sy = x
The decoder reads what this encoder writes (baseline, Huffman, no restart intervals, any
sampling factors up to 2); it is for tests, not for pictures from elsewhere.
"""

import math
import struct
from operator import mul

# ----------------------------------------------------------------------------------------
# orientation


def _flip_h(w, h, ch, px):
    out = bytearray(len(px))
    stride = w * ch
    for y in range(h):
        row = px[y * stride:(y + 1) * stride][::-1]  # pixels reversed, channels reversed too
        o = y * stride
        for c in range(ch):
            out[o + c:o + stride:ch] = row[ch - 1 - c::ch]
    return w, h, bytes(out)


def _flip_v(w, h, ch, px):
    stride = w * ch
    return w, h, b"".join(px[y * stride:(y + 1) * stride] for y in range(h - 1, -1, -1))


def _transpose(w, h, ch, px):
    out = bytearray(len(px))
    for c in range(ch):
        plane = px[c::ch]
        out[c::ch] = b"".join(plane[x::w] for x in range(w))
    return h, w, bytes(out)


def apply_orientation(w, h, ch, px, orientation):
    """(w, h, pixels) of stored pixels turned upright as EXIF `orientation` (1..8) says."""
    o = orientation
    if o in (5, 6, 7, 8):
        w, h, px = _transpose(w, h, ch, px)
        o = {5: 1, 6: 2, 7: 3, 8: 4}[o]
    if o in (2, 3):
        w, h, px = _flip_h(w, h, ch, px)
    if o in (3, 4):
        w, h, px = _flip_v(w, h, ch, px)
    return w, h, bytes(px)


_INVERSE = {1: 1, 2: 2, 3: 3, 4: 4, 5: 5, 6: 8, 7: 7, 8: 6}


def store_for_orientation(w, h, ch, upright, orientation):
    """(w, h, pixels) to store so that apply_orientation(..., orientation) gives `upright`."""
    return apply_orientation(w, h, ch, upright, _INVERSE[orientation])


# ----------------------------------------------------------------------------------------
# tables

_ZIGZAG = [
    0, 1, 8, 16, 9, 2, 3, 10, 17, 24, 32, 25, 18, 11, 4, 5, 12, 19, 26, 33, 40, 48, 41, 34, 27,
    20, 13, 6, 7, 14, 21, 28, 35, 42, 49, 56, 57, 50, 43, 36, 29, 22, 15, 23, 30, 37, 44, 51, 58,
    59, 52, 45, 38, 31, 39, 46, 53, 60, 61, 54, 47, 55, 62, 63]

_LUMA_Q = [
    16, 11, 10, 16, 24, 40, 51, 61, 12, 12, 14, 19, 26, 58, 60, 55, 14, 13, 16, 24, 40, 57, 69, 56,
    14, 17, 22, 29, 51, 87, 80, 62, 18, 22, 37, 56, 68, 109, 103, 77, 24, 35, 55, 64, 81, 104, 113,
    92, 49, 64, 78, 87, 103, 121, 120, 101, 72, 92, 95, 98, 112, 100, 103, 99]
_CHROMA_Q = [
    17, 18, 24, 47, 99, 99, 99, 99, 18, 21, 26, 66, 99, 99, 99, 99, 24, 26, 56, 99, 99, 99, 99, 99,
    47, 66, 99, 99, 99, 99, 99, 99] + [99] * 32

# Annex K.3: (code counts per length 1..16, values)
_DC_LUMA = ([0, 1, 5, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0, 0, 0], list(range(12)))
_DC_CHROMA = ([0, 3, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, 0], list(range(12)))
_AC_LUMA = ([0, 2, 1, 3, 3, 2, 4, 3, 5, 5, 4, 4, 0, 0, 1, 0x7d], bytes.fromhex(
    "01020300041105122131410613516107227114328191a1082342b1c11552d1f02433627282090a161718191a25"
    "262728292a3435363738393a434445464748494a535455565758595a636465666768696a737475767778797a83"
    "8485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3"
    "d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8f9fa"))
_AC_CHROMA = ([0, 2, 1, 2, 4, 4, 3, 4, 7, 5, 4, 4, 0, 1, 2, 0x77], bytes.fromhex(
    "000102031104052131061241510761711322328108144291a1b1c109233352f0156272d10a162434e125f11718"
    "191a262728292a35363738393a434445464748494a535455565758595a636465666768696a737475767778797a"
    "82838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aab2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9ca"
    "d2d3d4d5d6d7d8d9dae2e3e4e5e6e7e8e9eaf2f3f4f5f6f7f8f9fa"))


def _codes(table):
    """{value: (code, length)} of a table given as (counts, values)."""
    counts, values = table
    out = {}
    code = 0
    k = 0
    for length in range(1, 17):
        for _ in range(counts[length - 1]):
            out[values[k]] = (code, length)
            code += 1
            k += 1
        code <<= 1
    return out


def _scaled(q, quality):
    quality = min(100, max(1, int(quality)))
    s = 5000 // quality if quality < 50 else 200 - 2 * quality
    return [min(255, max(1, (v * s + 50) // 100)) for v in q]


# DCT-II basis: C[k][n] = c(k)/2 * cos((2n+1) k pi / 16)
_C = [[(math.sqrt(0.5) if k == 0 else 1.0) * 0.5 * math.cos((2 * n + 1) * k * math.pi / 16) for n in range(8)]
      for k in range(8)]
_CT = [[_C[k][n] for k in range(8)] for n in range(8)]  # rows: n, for the inverse


def _fdct(block):
    """8x8 DCT of 64 values (row-major); returns 64 coefficients (row-major)."""
    rows = [[sum(map(mul, ck, block[r:r + 8])) for ck in _C] for r in range(0, 64, 8)]
    cols = list(zip(*rows))  # cols[u] = column u of the row-transformed block
    out = [0.0] * 64
    for u in range(8):
        col = cols[u]
        for v in range(8):
            out[v * 8 + u] = sum(map(mul, _C[v], col))
    return out


def _idct(coef):
    rows = [[sum(map(mul, cn, coef[r:r + 8])) for cn in _CT] for r in range(0, 64, 8)]
    cols = list(zip(*rows))
    out = [0.0] * 64
    for x in range(8):
        col = cols[x]
        for y in range(8):
            out[y * 8 + x] = sum(map(mul, _CT[y], col))
    return out


# ----------------------------------------------------------------------------------------
# encoder


class _Bits:
    def __init__(self):
        self.out = bytearray()
        self.acc = 0
        self.n = 0

    def put(self, code, length):
        self.acc = (self.acc << length) | code
        self.n += length
        while self.n >= 8:
            self.n -= 8
            b = (self.acc >> self.n) & 255
            self.out.append(b)
            if b == 255:
                self.out.append(0)
        self.acc &= (1 << self.n) - 1

    def flush(self):
        if self.n:
            self.put((1 << (8 - self.n)) - 1, 8 - self.n)  # pad with ones


def _category(v):
    v = abs(v)
    n = 0
    while v:
        n += 1
        v >>= 1
    return n


def _segment(marker, body):
    return struct.pack(">BBH", 0xFF, marker, len(body) + 2) + body


def exif_segment(orientation, byteorder="MM"):
    """The APP1 segment with an EXIF block holding only IFD0's Orientation tag."""
    f = ">" if byteorder == "MM" else "<"
    tiff = byteorder.encode() + struct.pack(f + "HI", 42, 8)
    tiff += struct.pack(f + "H", 1) + struct.pack(f + "HHIHH", 0x0112, 3, 1, orientation, 0) + struct.pack(f + "I", 0)
    return _segment(0xE1, b"Exif\x00\x00" + tiff)


def _planes(w, h, rgb):
    r, g, b = rgb[0::3], rgb[1::3], rgb[2::3]
    # Fixed point (16 bits) tables, level-shifted by 128 for the DCT.
    t = [[round(c * v * 65536) for v in range(256)] for c in
         (0.299, 0.587, 0.114, -0.168736, -0.331264, 0.5, 0.5, -0.418688, -0.081312)]
    y = [(t[0][a] + t[1][b_] + t[2][c]) / 65536.0 - 128.0 for a, b_, c in zip(r, g, b)]
    cb = [(t[3][a] + t[4][b_] + t[5][c]) / 65536.0 for a, b_, c in zip(r, g, b)]
    cr = [(t[6][a] + t[7][b_] + t[8][c]) / 65536.0 for a, b_, c in zip(r, g, b)]
    return y, cb, cr


def _padded(plane, w, h, pw, ph):
    rows = [plane[y * w:(y + 1) * w] for y in range(h)]
    rows = [row + [row[-1]] * (pw - w) for row in rows]
    rows += [rows[-1]] * (ph - h)
    return rows


def _halved(rows):
    out = []
    for y in range(0, len(rows), 2):
        a, b = rows[y], rows[y + 1]
        s = [p + q for p, q in zip(a, b)]
        out.append([(s[x] + s[x + 1]) * 0.25 for x in range(0, len(s), 2)])
    return out


def encode_jpeg(w, h, rgb, quality=85, orientation=None, byteorder="MM", subsampling=True):
    """Baseline JPEG bytes of 8-bit RGB `rgb` (as stored); an EXIF Orientation tag when
    `orientation` is given (1..8)."""
    if len(rgb) != w * h * 3:
        raise ValueError("encode_jpeg: %d bytes for %dx%d RGB" % (len(rgb), w, h))
    lq = _scaled(_LUMA_Q, quality)
    cq = _scaled(_CHROMA_Q, quality)
    y, cb, cr = _planes(w, h, rgb)
    mcu = 16 if subsampling else 8
    pw = (w + mcu - 1) // mcu * mcu
    ph = (h + mcu - 1) // mcu * mcu
    Y = _padded(y, w, h, pw, ph)
    CB = _padded(cb, w, h, pw, ph)
    CR = _padded(cr, w, h, pw, ph)
    if subsampling:
        CB, CR = _halved(CB), _halved(CR)
    # Quantisation folded with the zigzag order: coefficient zz of a block is out[_ZIGZAG[zz]].
    lrec = [1.0 / lq[zz] for zz in range(64)]
    crec = [1.0 / cq[zz] for zz in range(64)]
    dcl, acl, dcc, acc = _codes(_DC_LUMA), _codes(_AC_LUMA), _codes(_DC_CHROMA), _codes(_AC_CHROMA)
    bits = _Bits()
    put = bits.put

    def block(rows, bx, by, rec, dc_codes, ac_codes, prev):
        data = []
        for r in range(by, by + 8):
            data.extend(rows[r][bx:bx + 8])
        f = _fdct(data)
        q = [int(round(f[_ZIGZAG[i]] * rec[i])) for i in range(64)]
        d = q[0] - prev
        c = _category(d)
        put(*dc_codes[c])
        if c:
            put(d if d > 0 else d + (1 << c) - 1, c)
        run = 0
        last = 63
        while last > 0 and q[last] == 0:
            last -= 1
        for i in range(1, last + 1):
            v = q[i]
            if v == 0:
                run += 1
                continue
            while run > 15:
                put(*ac_codes[0xF0])
                run -= 16
            c = _category(v)
            put(*ac_codes[(run << 4) | c])
            put(v if v > 0 else v + (1 << c) - 1, c)
            run = 0
        if last < 63:
            put(*ac_codes[0x00])
        return q[0]

    py = pcb = pcr = 0
    for my in range(0, ph, mcu):
        for mx in range(0, pw, mcu):
            if subsampling:
                for dy in (0, 8):
                    for dx in (0, 8):
                        py = block(Y, mx + dx, my + dy, lrec, dcl, acl, py)
                pcb = block(CB, mx // 2, my // 2, crec, dcc, acc, pcb)
                pcr = block(CR, mx // 2, my // 2, crec, dcc, acc, pcr)
            else:
                py = block(Y, mx, my, lrec, dcl, acl, py)
                pcb = block(CB, mx, my, crec, dcc, acc, pcb)
                pcr = block(CR, mx, my, crec, dcc, acc, pcr)
    bits.flush()

    out = bytearray(b"\xff\xd8")
    if orientation is not None:
        out += exif_segment(orientation, byteorder)
    else:
        out += _segment(0xE0, b"JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00")
    out += _segment(0xDB, bytes([0]) + bytes(lq) + bytes([1]) + bytes(cq))
    s = 0x22 if subsampling else 0x11
    out += _segment(0xC0, struct.pack(">BHHB", 8, h, w, 3) + bytes([1, s, 0, 2, 0x11, 1, 3, 0x11, 1]))
    for cls_id, table in ((0x00, _DC_LUMA), (0x10, _AC_LUMA), (0x01, _DC_CHROMA), (0x11, _AC_CHROMA)):
        out += _segment(0xC4, bytes([cls_id]) + bytes(table[0]) + bytes(table[1]))
    out += _segment(0xDA, bytes([3, 1, 0x00, 2, 0x11, 3, 0x11, 0, 63, 0]))
    out += bits.out
    out += b"\xff\xd9"
    return bytes(out)


# ----------------------------------------------------------------------------------------
# decoder (for tests)


def exif_orientation(data):
    """The Orientation tag of a JPEG's APP1 EXIF block; 1 when there is none."""
    at = 2
    while at + 4 <= len(data) and data[at] == 0xFF:
        marker = data[at + 1]
        if marker in (0xDA, 0xD9):
            break
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        if marker == 0xE1 and data[at + 4:at + 10] == b"Exif\x00\x00":
            t = data[at + 10:at + 2 + length]
            f = "<" if t[:2] == b"II" else ">"
            ifd = struct.unpack(f + "I", t[4:8])[0]
            count = struct.unpack(f + "H", t[ifd:ifd + 2])[0]
            for i in range(count):
                e = ifd + 2 + 12 * i
                tag, _, _, value = struct.unpack(f + "HHIH", t[e:e + 10])
                if tag == 0x0112:
                    return value
        at += 2 + length
    return 1


class _Reader:
    def __init__(self, data, at):
        self.data = data
        self.at = at
        self.acc = 0
        self.n = 0

    def bit(self):
        if self.n == 0:
            b = self.data[self.at]
            self.at += 1
            if b == 0xFF:
                if self.data[self.at] != 0:
                    raise ValueError("marker inside the entropy-coded data")
                self.at += 1
            self.acc = b
            self.n = 8
        self.n -= 1
        return (self.acc >> self.n) & 1

    def bits(self, count):
        v = 0
        for _ in range(count):
            v = (v << 1) | self.bit()
        return v

    def huff(self, table):
        code = 0
        for length in range(1, 17):
            code = (code << 1) | self.bit()
            v = table.get((length, code))
            if v is not None:
                return v
        raise ValueError("bad Huffman code")


def _extend(v, c):
    return v if c == 0 or v >= (1 << (c - 1)) else v - (1 << c) + 1


def decode_jpeg(data):
    """(width, height, rgb, orientation) of a baseline JPEG as stored (not turned upright)."""
    if data[:2] != b"\xff\xd8":
        raise ValueError("not a JPEG")
    qt = {}
    ht = {}
    comps = []
    w = h = 0
    at = 2
    while True:
        if data[at] != 0xFF:
            raise ValueError("expected a marker at %d" % at)
        marker = data[at + 1]
        length = struct.unpack(">H", data[at + 2:at + 4])[0]
        body = data[at + 4:at + 2 + length]
        if marker == 0xDB:
            i = 0
            while i < len(body):
                if body[i] >> 4:
                    raise ValueError("16-bit quantisation tables are not read here")
                qt[body[i] & 15] = list(body[i + 1:i + 65])
                i += 65
        elif marker == 0xC4:
            i = 0
            while i < len(body):
                key = body[i]
                counts = body[i + 1:i + 17]
                values = body[i + 17:i + 17 + sum(counts)]
                table = {}
                code = 0
                k = 0
                for length_ in range(1, 17):
                    for _ in range(counts[length_ - 1]):
                        table[(length_, code)] = values[k]
                        code += 1
                        k += 1
                    code <<= 1
                ht[key] = table
                i += 17 + sum(counts)
        elif marker == 0xC0:
            _, h, w, n = struct.unpack(">BHHB", body[:6])
            for i in range(n):
                cid, s, tq = body[6 + 3 * i:9 + 3 * i]
                comps.append({"id": cid, "h": s >> 4, "v": s & 15, "tq": tq})
        elif marker in (0xC1, 0xC2, 0xC3):
            raise ValueError("only baseline JPEG is read here")
        elif marker == 0xDA:
            n = body[0]
            for i in range(n):
                cid, tables = body[1 + 2 * i:3 + 2 * i]
                for c in comps:
                    if c["id"] == cid:
                        c["dc"] = ht[tables >> 4]
                        c["ac"] = ht[0x10 | (tables & 15)]
            at += 2 + length
            break
        at += 2 + length
    hmax = max(c["h"] for c in comps)
    vmax = max(c["v"] for c in comps)
    mw, mh = 8 * hmax, 8 * vmax
    mx_count = (w + mw - 1) // mw
    my_count = (h + mh - 1) // mh
    for c in comps:
        c["w"] = mx_count * c["h"] * 8
        c["plane"] = [0.0] * (c["w"] * my_count * c["v"] * 8)
        c["pred"] = 0
    r = _Reader(data, at)
    for my in range(my_count):
        for mx in range(mx_count):
            for c in comps:
                q = qt[c["tq"]]
                for by in range(c["v"]):
                    for bx in range(c["h"]):
                        coef = [0.0] * 64
                        t = r.huff(c["dc"])
                        c["pred"] += _extend(r.bits(t), t)
                        coef[0] = c["pred"] * q[0]
                        k = 1
                        while k < 64:
                            rs = r.huff(c["ac"])
                            run, size = rs >> 4, rs & 15
                            if size == 0:
                                if run == 15:
                                    k += 16
                                    continue
                                break
                            k += run
                            coef[_ZIGZAG[k]] = _extend(r.bits(size), size) * q[k]
                            k += 1
                        px = _idct(coef)
                        x0 = (mx * c["h"] + bx) * 8
                        y0 = (my * c["v"] + by) * 8
                        cw = c["w"]
                        for yy in range(8):
                            o = (y0 + yy) * cw + x0
                            c["plane"][o:o + 8] = px[yy * 8:yy * 8 + 8]
    out = bytearray(w * h * 3)
    Y, CB, CR = comps
    sx = [hmax // c["h"] for c in comps]
    sy = [vmax // c["v"] for c in comps]
    i = 0
    for y in range(h):
        ry = [(y // sy[k]) * comps[k]["w"] for k in range(3)]
        for x in range(w):
            yy = Y["plane"][ry[0] + x // sx[0]] + 128.0
            cb = CB["plane"][ry[1] + x // sx[1]]
            cr = CR["plane"][ry[2] + x // sx[2]]
            for v in (yy + 1.402 * cr, yy - 0.344136 * cb - 0.714136 * cr, yy + 1.772 * cb):
                out[i] = 0 if v < 0 else 255 if v > 255 else int(v + 0.5)
                i += 1
    return w, h, bytes(out), exif_orientation(data)
