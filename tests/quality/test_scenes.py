#!/usr/bin/env python3
"""The scene generator itself: deterministic, its files readable, its masks true.

    python3 tests/quality/test_scenes.py          # a few seconds
    QUALITY_ALL_KINDS=1 python3 tests/quality/test_scenes.py   # also: every kind in 200 seeds (~1 min)

The scenes checked are picked by their plan (Scene(seed) draws the plan without drawing any
pixel): the first tuning seed of each sort that is small enough to check quickly. The PNG
reader and the orientation mapping here are written apart from pngio.py and jpeg.py, so that a
mistake in those does not hide itself.
"""

import math
import os
import struct
import sys
import tempfile
import unittest
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import jpeg  # noqa: E402
import scenes  # noqa: E402


def tiny_png(data):
    """(width, height, channels, pixels) of an 8-bit PNG whose rows all use filter 0, as
    scenes.py writes them; checks the signature, every CRC and the data's length."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "no PNG signature"
    at, idat, head = 8, b"", None
    while at < len(data):
        n, kind = struct.unpack(">I4s", data[at:at + 8])
        body = data[at + 8:at + 8 + n]
        assert struct.unpack(">I", data[at + 8 + n:at + 12 + n])[0] == zlib.crc32(kind + body), kind
        if kind == b"IHDR":
            head = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            idat += body
        elif kind == b"IEND":
            break
        at += 12 + n
    w, h, depth, ctype = head[:4]
    assert depth == 8
    ch = {0: 1, 2: 3, 4: 2, 6: 4}[ctype]
    raw = zlib.decompress(idat)
    assert len(raw) == h * (w * ch + 1), "pixel data of the wrong length"
    rows = []
    for y in range(h):
        o = y * (w * ch + 1)
        assert raw[o] == 0, "row %d uses filter %d" % (y, raw[o])
        rows.append(raw[o + 1:o + 1 + w * ch])
    return w, h, ch, b"".join(rows)


def stageload_orientation(w, h, ch, px, o):
    """engine/media/image.cpp's applyOrientation(), pixel by pixel."""
    ow, oh = (h, w) if o >= 5 else (w, h)
    out = bytearray(ow * oh * ch)
    for y in range(oh):
        for x in range(ow):
            sx, sy = {1: (x, y), 2: (w - 1 - x, y), 3: (w - 1 - x, h - 1 - y), 4: (x, h - 1 - y), 5: (y, x),
                      6: (y, h - 1 - x), 7: (w - 1 - y, h - 1 - x), 8: (w - 1 - y, x)}[o]
            out[(y * ow + x) * ch:(y * ow + x + 1) * ch] = px[(sy * w + sx) * ch:(sy * w + sx + 1) * ch]
    return ow, oh, bytes(out)


def first_seed(test, limit=400):
    """The first tuning seed whose plan passes `test` (and is small, to keep this quick)."""
    for seed in list(scenes.TUNING_SEEDS) + list(range(200, limit)):
        sc = scenes.Scene(seed)
        if sc.size <= 300 and test(sc):
            return seed
    raise AssertionError("no seed below %d has that plan" % limit)


def psnr(a, b):
    se = sum((x - y) * (x - y) for x, y in zip(a, b)) / len(a)
    return 10 * math.log10(255 * 255 / max(se, 1e-9))


class TestScenes(unittest.TestCase):
    def test_seed_sets_are_fixed_and_apart(self):
        self.assertEqual(len(scenes.TUNING_SEEDS), 200)
        self.assertEqual(len(scenes.HELD_OUT_SEEDS), 200)
        self.assertFalse(set(scenes.TUNING_SEEDS) & set(scenes.HELD_OUT_SEEDS))
        self.assertEqual(scenes.parse_seeds("3,7-9"), [3, 7, 8, 9])

    def test_same_seed_gives_the_same_bytes(self):
        picks = [first_seed(lambda s: s.format == f) for f in ("png", "alpha", "jpeg")]
        with tempfile.TemporaryDirectory() as a, tempfile.TemporaryDirectory() as b:
            for seed in picks:
                scenes.write(seed, a)
                scenes.write(seed, b)
            names = sorted(os.listdir(a))
            self.assertEqual(names, sorted(os.listdir(b)))
            self.assertEqual(len(names), 3 * len(picks))
            for n in names:
                with open(os.path.join(a, n), "rb") as fa, open(os.path.join(b, n), "rb") as fb:
                    self.assertEqual(fa.read(), fb.read(), n)
        # and another seed is another picture
        self.assertNotEqual(scenes.make(picks[0])[2], scenes.make(picks[0] + 1)[2])

    def test_files_decode_and_agree_with_the_sidecar(self):
        for fmt in ("png", "alpha"):
            seed = first_seed(lambda s: s.format == fmt)
            sc, cv, data, ext, side = scenes.make(seed)
            w, h, ch, px = tiny_png(data)
            self.assertEqual((w, h), (side["width"], side["height"]))
            self.assertEqual(ch, 4 if fmt == "alpha" else 3)
            self.assertEqual(side["picture"], scenes.scene_name(seed) + ".png")
            with tempfile.TemporaryDirectory() as d:
                scenes.write(seed, d)
                with open(os.path.join(d, side["mask"]), "rb") as f:
                    mw, mh, mc, mask = tiny_png(f.read())
            self.assertEqual((mw, mh, mc), (w, h, 1))
            self.assertEqual(set(mask), {0, 255})
            self.assertEqual(mask.count(255), side["subject_pixels"])
            self.assertEqual(sum(p["area"] for p in side["parts"]), side["subject_pixels"])
            if fmt == "alpha":
                # a transparent background: the alpha is the subject's coverage where no shadow
                # or glow is (faint effects, under 4 %, are not counted as effects: a margin)
                alpha = px[3::4]
                clear = [i for i in range(w * h) if not mask[i] and not cv.fx[i]]
                self.assertTrue(clear)
                self.assertLess(max(alpha[i] for i in clear), 128 + 12)
                self.assertEqual(sum(1 for i in clear if alpha[i] == 0) > 0.3 * w * h, True)
                self.assertGreater(min(alpha[i] for i in range(w * h) if mask[i]), 0)

    def test_mask_leaves_shadows_and_glows_out(self):
        for effect in ("shadow", "glow"):
            seed = first_seed(lambda s: (s.shadow_kind if effect == "shadow" else s.glows) and s.format != "alpha")
            sc = scenes.Scene(seed)
            with_fx = sc.render()
            side = sc.analyse(with_fx)
            without = scenes.Scene(seed).render(effects=False)
            # the mask does not depend on the effects ...
            self.assertEqual(with_fx.mask, without.mask, "seed %d: the %s changed the mask" % (seed, effect))
            # ... which are there, outside the subject
            w = sc.width
            changed = [i for i in range(w * sc.height) if with_fx.rgb[3 * i:3 * i + 3] != without.rgb[3 * i:3 * i + 3]]
            outside = [i for i in changed if not with_fx.mask[i]]
            self.assertGreater(len(outside), 20, "seed %d: no %s to be seen" % (seed, effect))
            counted = side["shadow_pixels"] if effect == "shadow" else side["glow_pixels"]
            self.assertGreater(counted, 0)
            self.assertLessEqual(counted, len(outside) + 1)

    def test_mask_includes_items_apart(self):
        seed = first_seed(lambda s: any(o > 1 and w in ("orb", "star", "potion", "gem", "chain", "floating-head")
                                        for o, w in s.builder.owners.items()))
        sc = scenes.Scene(seed)
        cv = sc.render()
        side = sc.analyse(cv)
        bare = scenes.Scene(seed).render(items=False)
        self.assertIn("item-apart", side["kinds"])
        items = [p for p in side["parts"] if p["what"] not in ("body", "stalk")]  # render(items=False) keeps these
        self.assertTrue(items, "seed %d: no item in the sidecar's parts" % seed)
        added = cv.mask.count(255) - bare.mask.count(255)
        self.assertGreaterEqual(added, sum(p["area"] for p in items))
        w = sc.width
        for p in items:
            x0, y0, x1, y1 = p["bbox"]
            inside = sum(cv.mask[y * w + x0:y * w + x1 + 1].count(255) for y in range(y0, y1 + 1))
            self.assertGreaterEqual(inside, p["area"])
            # without the items, the part's pixels are background
            bare_inside = sum(bare.mask[y * w + x0:y * w + x1 + 1].count(255) for y in range(y0, y1 + 1))
            self.assertLessEqual(bare_inside, inside - p["area"])

    def test_orientation_matches_stageload(self):
        w, h = 5, 3
        upright = bytes((x * 40 + c * 7 + y * 90) % 256 for y in range(h) for x in range(w) for c in range(3))
        stored = set()
        for o in range(1, 9):
            sw, sh, s = jpeg.store_for_orientation(w, h, 3, upright, o)
            self.assertEqual(stageload_orientation(sw, sh, 3, s, o), (w, h, upright), "orientation %d" % o)
            self.assertEqual(jpeg.apply_orientation(sw, sh, 3, s, o), (w, h, upright), "orientation %d" % o)
            stored.add(s)
        self.assertEqual(len(stored), 8)

    def test_exif_jpeg_round_trip(self):
        seed = first_seed(lambda s: s.format == "jpeg" and s.exif and s.orientation >= 5)
        sc, cv, data, ext, side = scenes.make(seed)
        self.assertEqual(ext, "jpg")
        self.assertIn("exif", side["kinds"])
        # APP1 right after SOI: "Exif\0\0", a TIFF header, IFD0 with the Orientation tag
        self.assertEqual(data[:4], b"\xff\xd8\xff\xe1")
        self.assertEqual(data[6:12], b"Exif\x00\x00")
        tiff = data[12:]
        f = "<" if tiff[:2] == b"II" else ">"
        self.assertEqual(struct.unpack(f + "H", tiff[2:4])[0], 42)
        tag, typ, count, value = struct.unpack(f + "HHIH", tiff[10:20])
        self.assertEqual((tag, typ, count, value), (0x0112, 3, 1, sc.orientation))
        sw, sh, stored, o = jpeg.decode_jpeg(data)
        self.assertEqual(o, sc.orientation)
        self.assertEqual((sw, sh), (side["height"], side["width"]))  # 5..8: stored turned
        uw, uh, up = stageload_orientation(sw, sh, 3, stored, o)
        self.assertEqual((uw, uh), (side["width"], side["height"]))
        self.assertGreater(psnr(up, cv.rgb), 28.0)
        if uw == uh:  # the stored pixels themselves are not the upright picture
            self.assertLess(psnr(stored, cv.rgb), 20.0)

    @unittest.skipUnless(os.environ.get("QUALITY_ALL_KINDS"), "set QUALITY_ALL_KINDS=1 (about a minute)")
    def test_every_kind_in_the_tuning_seeds(self):
        seen = set()
        for seed in scenes.TUNING_SEEDS:
            sc = scenes.Scene(seed)
            seen |= set(sc.analyse(sc.render())["kinds"])
        self.assertEqual([k for k in scenes.KINDS if k not in seen], [])


if __name__ == "__main__":
    unittest.main()
