"""PNG reading and writing with the Python standard library only (zlib, struct).

    from pngio import write_png, read_png
    write_png("a.png", width, height, channels, pixels)   # pixels: bytes, row-major, 8 bit
    w, h, channels, pixels = read_png("a.png")           # 8-bit grey, grey+alpha, RGB or RGBA

The writer uses filter 0 on every row and zlib level 6, so the same pixels always give the
same bytes (no timestamps, no ancillary chunks). The reader takes any 8-bit non-interlaced
PNG (every filter type, as stb_image_write and libpng write them); it raises ValueError for
what it cannot read. Sub and Up rows are unfiltered with whole-row integer arithmetic, so
only Average and Paeth rows cost a Python loop per byte.
"""

import struct
import zlib

_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_COLOUR_TYPES = {1: 0, 2: 4, 3: 2, 4: 6}  # channels -> PNG colour type
_CHANNELS = {v: k for k, v in _COLOUR_TYPES.items()}


def _chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)


def encode_png(width, height, channels, pixels):
    """The PNG file (bytes) of 8-bit `pixels` (width * height * channels bytes)."""
    if channels not in _COLOUR_TYPES:
        raise ValueError("encode_png: channels must be 1, 2, 3 or 4")
    stride = width * channels
    if len(pixels) != stride * height:
        raise ValueError("encode_png: %d bytes for %dx%dx%d" % (len(pixels), width, height, channels))
    raw = bytearray((stride + 1) * height)
    view = memoryview(pixels)
    for y in range(height):
        o = y * (stride + 1)
        raw[o + 1:o + 1 + stride] = view[y * stride:(y + 1) * stride]  # filter byte 0
    ihdr = struct.pack(">IIBBBBB", width, height, 8, _COLOUR_TYPES[channels], 0, 0, 0)
    return _SIGNATURE + _chunk(b"IHDR", ihdr) + _chunk(b"IDAT", zlib.compress(bytes(raw), 6)) + _chunk(b"IEND", b"")


def write_png(path, width, height, channels, pixels):
    with open(path, "wb") as f:
        f.write(encode_png(width, height, channels, pixels))


# Byte-wise addition modulo 256 of two equally long byte strings, done on whole rows as integers
# (the high bit of each byte is added apart so that no carry crosses a byte).
def _add_bytes(a, b, n, low, high):
    x = int.from_bytes(a, "big")
    y = int.from_bytes(b, "big")
    s = ((x & low) + (y & low)) ^ ((x ^ y) & high)
    return s.to_bytes(n, "big")


def _unfilter_sub(row, bpp, n, low, high):
    # Prefix sum with stride bpp, by doubling: after step k each byte holds the sum of 2^k
    # bytes to its left (in steps of bpp).
    x = int.from_bytes(row, "big")
    shift = 8 * bpp
    while shift < 8 * n:
        y = x >> shift  # big-endian: shifting right moves bytes to higher indexes
        x = ((x & low) + (y & low)) ^ ((x ^ y) & high)
        shift *= 2
    return x.to_bytes(n, "big")


def png_size(data):
    """(width, height, channels, None) of an 8-bit non-interlaced PNG given as bytes, from its
    header alone."""
    if data[:8] != _SIGNATURE or data[12:16] != b"IHDR":
        raise ValueError("not a PNG")
    width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", data[16:29])
    if depth != 8 or ctype not in _CHANNELS or interlace:
        raise ValueError("only 8-bit non-interlaced grey/RGB(A) PNGs are read here")
    return width, height, _CHANNELS[ctype], None


def decode_png(data, rows=None):
    """(width, height, channels, pixels) of an 8-bit non-interlaced PNG given as bytes; with
    `rows`, the pixels of its first `rows` rows only (the height stays the picture's)."""
    if data[:8] != _SIGNATURE:
        raise ValueError("not a PNG")
    at = 8
    idat = []
    width = height = channels = None
    while at + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + length]
        if len(body) != length:
            raise ValueError("truncated %s chunk" % kind.decode("latin-1"))
        crc = struct.unpack(">I", data[at + 8 + length:at + 12 + length])[0]
        if zlib.crc32(kind + body) & 0xFFFFFFFF != crc:
            raise ValueError("bad CRC in %s chunk" % kind.decode("latin-1"))
        if kind == b"IHDR":
            width, height, depth, ctype, _, _, interlace = struct.unpack(">IIBBBBB", body)
            if depth != 8 or ctype not in _CHANNELS or interlace:
                raise ValueError("only 8-bit non-interlaced grey/RGB(A) PNGs are read here")
            channels = _CHANNELS[ctype]
        elif kind == b"IDAT":
            idat.append(body)
        elif kind == b"IEND":
            break
        at += 12 + length
    if width is None:
        raise ValueError("no IHDR")
    raw = zlib.decompress(b"".join(idat))
    stride = width * channels
    if len(raw) < (stride + 1) * height:
        raise ValueError("too little pixel data")
    low = int.from_bytes(b"\x7f" * stride, "big")
    high = int.from_bytes(b"\x80" * stride, "big")
    bpp = channels
    rows = height if rows is None else max(0, min(rows, height))
    out = bytearray(stride * rows)
    prev = bytes(stride)
    for y in range(rows):
        o = y * (stride + 1)
        f = raw[o]
        row = raw[o + 1:o + 1 + stride]
        if f == 0:
            cur = row
        elif f == 1:
            cur = _unfilter_sub(row, bpp, stride, low, high)
        elif f == 2:
            cur = _add_bytes(row, prev, stride, low, high)
        elif f == 3:
            c = bytearray(row)
            for i in range(bpp):
                c[i] = (c[i] + (prev[i] >> 1)) & 255
            for i in range(bpp, stride):
                c[i] = (c[i] + ((c[i - bpp] + prev[i]) >> 1)) & 255
            cur = bytes(c)
        elif f == 4:
            c = bytearray(row)
            for i in range(bpp):
                c[i] = (c[i] + prev[i]) & 255
            for i in range(bpp, stride):
                # Paeth: of left a, up b and up-left cc, the one nearest a + b - cc.
                a = c[i - bpp]
                b = prev[i]
                cc = prev[i - bpp]
                pa = b - cc
                pb = a - cc
                pc = pa + pb
                if pa < 0:
                    pa = -pa
                if pb < 0:
                    pb = -pb
                if pc < 0:
                    pc = -pc
                c[i] = (c[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else cc)) & 255
            cur = bytes(c)
        else:
            raise ValueError("bad filter type %d in row %d" % (f, y))
        out[y * stride:(y + 1) * stride] = cur
        prev = cur
    return width, height, channels, bytes(out)


def read_png(path):
    with open(path, "rb") as f:
        return decode_png(f.read())
