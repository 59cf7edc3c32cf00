#!/usr/bin/env python3
"""The quality report's floor (report.py --floor / --write-floor: what it records, what it lets
pass and what it names) and its judge of the back (backview.py, frontview.both_sides), without
running stageload.

    python3 tests/quality/test_report.py      # a few seconds
"""

import contextlib
import io
import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import backview  # noqa: E402
import floor  # noqa: E402
import frontview  # noqa: E402
import pngio  # noqa: E402
import report  # noqa: E402
import scenes  # noqa: E402


def result(seed, front, shadow=0.0, dropped=0, error=None, repeated=0, lost=0):
    r = {"seed": seed, "front_iou": front, "mask_iou": front, "shadow_kept": shadow,
         "apart_dropped": ["orb"] * dropped, "features_repeated": ["eye"] * repeated, "apart_lost": ["gem"] * lost}
    if error:
        r["error"] = error
    return r


class TestFloor(unittest.TestCase):
    def setUp(self):
        self.before = [result(0, 0.99), result(1, 0.95, shadow=0.6), result(2, 0.98, dropped=1, repeated=2),
                       result(3, 0.90, lost=1)]
        self.floor = floor.floor_of(self.before, "0-3")

    def test_records_each_scene(self):
        self.assertEqual(self.floor["share_at_goal"], 0.5)
        self.assertEqual(self.floor["scenes"]["1"], {"front_iou": 0.95, "shadow_kept": True, "apart_dropped": 0,
                                                     "features_repeated": 0, "apart_lost": 0})
        self.assertEqual(self.floor["scenes"]["2"]["apart_dropped"], 1)
        self.assertEqual(self.floor["scenes"]["2"]["features_repeated"], 2)
        self.assertEqual(self.floor["scenes"]["3"]["apart_lost"], 1)

    def test_the_same_results_pass(self):
        self.assertEqual(floor.below_floor(self.before, self.floor), [])

    def test_a_small_wobble_passes_and_a_fall_is_named(self):
        wobble = [result(0, 0.99 - 0.9 * floor.FLOOR_SLACK)] + self.before[1:]
        self.assertEqual(floor.below_floor(wobble, self.floor), [])
        fall = [result(0, 0.99 - 1.5 * floor.FLOOR_SLACK)] + self.before[1:]
        short = floor.below_floor(fall, self.floor)
        self.assertTrue(any("scene-0000: front IoU" in s for s in short), short)

    def test_a_shadow_kept_or_a_part_dropped_anew_is_named(self):
        worse = [result(0, 0.99, shadow=0.5), self.before[1], result(2, 0.98, dropped=2, repeated=2), self.before[3]]
        short = floor.below_floor(worse, self.floor)
        self.assertTrue(any("scene-0000: the ground shadow is kept now" in s for s in short), short)
        self.assertTrue(any("scene-0002: 2 parts apart dropped (orb, orb), was 1" in s for s in short), short)
        # A shadow the floor already records as kept is not named again.
        self.assertFalse(any("scene-0001" in s for s in short), short)

    def test_a_back_worse_than_recorded_is_named(self):
        worse = [result(0, 0.99, repeated=1), self.before[1], result(2, 0.98, dropped=1, repeated=2),
                 result(3, 0.90, lost=2)]
        short = floor.below_floor(worse, self.floor)
        self.assertEqual(len(short), 2, short)
        self.assertIn("scene-0000: 1 features repeated on the back (eye), was 0", short[0])
        self.assertIn("scene-0003: 2 parts apart lost from behind (gem, gem), was 1", short[1])
        # Fewer faults than recorded: better, and the floor may be raised.
        better = [self.before[0], self.before[1], result(2, 0.98, dropped=1, repeated=1), self.before[3]]
        self.assertEqual(floor.below_floor(better, self.floor), [])
        self.assertEqual([r["seed"] for r in floor.above_floor(better, self.floor)], [2])

    def test_a_failed_run_or_an_unknown_scene_is_named(self):
        short = floor.below_floor([result(3, 0.0, error="no subject found"), result(7, 0.99)], self.floor)
        self.assertTrue(any("scene-0003: the run failed: no subject found" in s for s in short), short)
        self.assertTrue(any("scene-0007: not in the floor" in s for s in short), short)

    def test_fewer_scenes_at_the_goal_is_named(self):
        # Each scene within the slack, but one falls under 0.97: the share drops from 50 % to 25 %.
        self.floor["scenes"]["2"]["front_iou"] = 0.975
        slipped = [self.before[0], self.before[1], result(2, 0.969, dropped=1), self.before[3]]
        short = floor.below_floor(slipped, self.floor)
        self.assertEqual(len(short), 1, short)
        self.assertIn("on 25.0 % of the scenes, was 50.0 %", short[0])

    def test_gains_are_reported(self):
        better = [result(3, 0.99)] + self.before[:3]
        self.assertEqual([r["seed"] for r in floor.above_floor(better, self.floor)], [3])

    def test_written_floor_reads_back(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "floor.json")
            floor.write_floor(path, self.floor)
            with open(path) as f:
                self.assertEqual(json.load(f), self.floor)
            self.assertEqual(os.listdir(d), ["floor.json"])

    def test_a_bad_floor_file_is_refused_by_name(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "floor.json")
            with open(path, "w") as f:
                f.write('{"seeds": "0-3"}')
            with self.assertRaises(SystemExit) as e, contextlib.redirect_stderr(io.StringIO()) as err:
                report.main(["--stageload", sys.executable, "--seeds", "0-3", "--floor", path])
            self.assertIn("not a floor that --write-floor wrote", err.getvalue())
            self.assertEqual(e.exception.code, 2)

    def test_no_floor_is_written_without_judging_the_back(self):
        with tempfile.TemporaryDirectory() as d, self.assertRaises(SystemExit) as e, \
                contextlib.redirect_stderr(io.StringIO()) as err:
            report.main(["--stageload", sys.executable, "--seeds", "0", "--no-back",
                         "--write-floor", os.path.join(d, "floor.json")])
        self.assertIn("cannot be written with --no-back", err.getvalue())
        self.assertEqual(e.exception.code, 2)

    def test_a_floor_without_the_back_is_refused_by_name(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "floor.json")
            with open(path, "w") as f:
                f.write('{"seeds": "0", "share_at_goal": 1.0, "scenes": {"0": '
                        '{"front_iou": 0.99, "shadow_kept": false, "apart_dropped": 0}}}')
            with self.assertRaises(ValueError) as e:
                floor.read_floor(path)
            self.assertIn("scene 0 lacks apart_lost, features_repeated", str(e.exception))


def two_sided_mesh(front_colour, back_colour):
    """A unit square facing the viewer at z = 1 and another at z = -1, textured from the left and
    the right half of a 4 x 2 texture of the two colours."""
    m = frontview.Mesh()
    m.positions = [0, 0, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1,
                   0, 0, -1, 1, 0, -1, 1, 1, -1, 0, 1, -1]
    m.indices = [0, 1, 2, 0, 2, 3, 4, 6, 5, 4, 7, 6]
    m.uvs = [0.1, 0.9, 0.3, 0.9, 0.3, 0.1, 0.1, 0.1,  # texels 0 and 1 only, bilinearly
             0.7, 0.9, 0.9, 0.9, 0.9, 0.1, 0.7, 0.1]
    row = bytes(front_colour) * 2 + bytes(back_colour) * 2
    m.texture_png = pngio.encode_png(4, 2, 3, row * 2)
    return m


class TestBack(unittest.TestCase):
    def test_both_sides_are_seen_through_the_same_pixels(self):
        m = two_sided_mesh((200, 30, 40), (20, 60, 220))
        box = (0.0, 0.0, 1.0, 1.0)
        wanted = {y * 8 + x for y in range(8) for x in range(8)} | {80}  # 80: outside the view's 8 x 8
        front, back = frontview.both_sides(m, box, 8, 8, wanted)
        self.assertEqual(set(front), wanted - {80})
        self.assertEqual(set(back), wanted - {80})
        self.assertEqual(set(front.values()), {(200, 30, 40)})
        self.assertEqual(set(back.values()), {(20, 60, 220)})
        rgb, cov = frontview.textured(m, box, 8, 8)
        self.assertEqual(rgb[:3], bytes((200, 30, 40)))

    def test_a_placed_mesh_is_drawn_where_it_lies_on_the_picture(self):
        # The unit square at pixels 3..7 across and 2..6 down a 10 x 8 picture: 4 pixels a
        # unit, its origin (the square's bottom-left corner) at pixel position (3, 6).
        m = two_sided_mesh((200, 30, 40), (20, 60, 220))
        cov = frontview.silhouette(m, frontview.picture_box((10, 8, 3.0, 6.0, 4.0, 4.0)), 10, 8)
        self.assertEqual({(i % 10, i // 10) for i in range(80) if cov[i]},
                         {(x, y) for x in range(3, 7) for y in range(2, 6)})

    def test_ghost_is_the_share_of_the_contrast_left(self):
        skin, iris = (250, 220, 190), (40, 40, 60)
        # A 2 x 2 feature at x 10..11 and a ring round it, at x 4..5 and 16..17 (six rows): each
        # pixel's four nearest ring pixels lie on its own side.
        at = [(x, y) for y in (2, 3) for x in (10, 11)]
        around = [(x, y) for y in range(6) for x in (4, 5, 16, 17)]

        def ghost(back_feature):
            return backview.ghost([(p, iris, back_feature) for p in at], [(p, skin, skin) for p in around])

        repeated, contrast = ghost(iris)
        self.assertAlmostEqual(repeated, 1.0)
        self.assertAlmostEqual(contrast, backview.distance(iris, skin))
        self.assertAlmostEqual(ghost(skin)[0], 0.0)
        # Half-way between: half the contrast left, above the limit; a faint trace is below it.
        half = tuple((a + b) / 2 for a, b in zip(iris, skin))
        self.assertAlmostEqual(ghost(half)[0], 0.5)
        faint = tuple(a * 0.1 + b * 0.9 for a, b in zip(iris, skin))
        self.assertLess(ghost(faint)[0], backview.GHOST_LIMIT)
        # On a two-tone host (cel shading, a split shield), each half of the feature painted over
        # by its own side's tone is no ghost, and the feature repeated is one.
        tan, pink = (200, 160, 100), (240, 220, 215)
        ring = [(p, tan if p[0] < 10 else pink, tan if p[0] < 10 else pink) for p in around]
        split = [(p, iris, tan if p[0] == 10 else pink) for p in at]
        self.assertGreater(backview.ghost(split, ring)[1], backview.MIN_CONTRAST)
        self.assertAlmostEqual(backview.ghost(split, ring)[0], 0.0)
        self.assertAlmostEqual(backview.ghost([(p, iris, iris) for p in at], ring)[0], 1.0)

    def test_features_are_found_on_their_hosts(self):
        found = 0
        for seed in range(6):
            sc, cv, _, _, _ = scenes.make(seed)
            features = {t for t, p in enumerate(sc.builder.parts, 1) if p.feature}
            for place in backview.feature_places(sc, cv):
                found += 1
                self.assertGreaterEqual(len(place["pixels"]), backview.MIN_FEATURE)
                self.assertTrue(all(cv.top[i] in features and cv.mask[i] for i in place["pixels"]), place["what"])
                host = {cv.top[i] for i in place["ring"]}
                self.assertEqual(len(host), 1, place["what"])
                self.assertNotIn(host.pop(), features | {scenes.OUTLINE_TAG, 0})
                self.assertNotIn(place["host"], [p.what for p in sc.builder.parts if p.feature])
                self.assertTrue(set(place["pixels"]).isdisjoint(place["ring"]))
        self.assertGreater(found, 6)


if __name__ == "__main__":
    unittest.main()
