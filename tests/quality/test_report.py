#!/usr/bin/env python3
"""The quality report's floor (report.py --floor / --write-floor): what it records, what it lets
pass and what it names, without running stageload.

    python3 tests/quality/test_report.py      # well under a second
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

import report  # noqa: E402


def result(seed, front, shadow=0.0, dropped=0, error=None):
    r = {"seed": seed, "front_iou": front, "mask_iou": front, "shadow_kept": shadow,
         "apart_dropped": [{"area": 100}] * dropped}
    if error:
        r["error"] = error
    return r


class TestFloor(unittest.TestCase):
    def setUp(self):
        self.before = [result(0, 0.99), result(1, 0.95, shadow=0.6), result(2, 0.98, dropped=1), result(3, 0.90)]
        self.floor = report.floor_of(self.before, "0-3")

    def test_records_each_scene(self):
        self.assertEqual(self.floor["share_at_goal"], 0.5)
        self.assertEqual(self.floor["scenes"]["1"], {"front_iou": 0.95, "shadow_kept": True, "apart_dropped": 0})
        self.assertEqual(self.floor["scenes"]["2"]["apart_dropped"], 1)

    def test_the_same_results_pass(self):
        self.assertEqual(report.below_floor(self.before, self.floor), [])

    def test_a_small_wobble_passes_and_a_fall_is_named(self):
        wobble = [result(0, 0.99 - 0.9 * report.FLOOR_SLACK)] + self.before[1:]
        self.assertEqual(report.below_floor(wobble, self.floor), [])
        fall = [result(0, 0.99 - 1.5 * report.FLOOR_SLACK)] + self.before[1:]
        short = report.below_floor(fall, self.floor)
        self.assertTrue(any("scene-0000: front IoU" in s for s in short), short)

    def test_a_shadow_kept_or_a_part_dropped_anew_is_named(self):
        worse = [result(0, 0.99, shadow=0.5), self.before[1], result(2, 0.98, dropped=2), self.before[3]]
        short = report.below_floor(worse, self.floor)
        self.assertTrue(any("scene-0000: the ground shadow is kept now" in s for s in short), short)
        self.assertTrue(any("scene-0002: 2 parts apart dropped, was 1" in s for s in short), short)
        # A shadow the floor already records as kept is not named again.
        self.assertFalse(any("scene-0001" in s for s in short), short)

    def test_a_failed_run_or_an_unknown_scene_is_named(self):
        short = report.below_floor([result(3, 0.0, error="no subject found"), result(7, 0.99)], self.floor)
        self.assertTrue(any("scene-0003: the run failed: no subject found" in s for s in short), short)
        self.assertTrue(any("scene-0007: not in the floor" in s for s in short), short)

    def test_fewer_scenes_at_the_goal_is_named(self):
        # Each scene within the slack, but one falls under 0.97: the share drops from 50 % to 25 %.
        self.floor["scenes"]["2"]["front_iou"] = 0.975
        slipped = [self.before[0], self.before[1], result(2, 0.969, dropped=1), self.before[3]]
        short = report.below_floor(slipped, self.floor)
        self.assertEqual(len(short), 1, short)
        self.assertIn("on 25.0 % of the scenes, was 50.0 %", short[0])

    def test_gains_are_reported(self):
        better = [result(3, 0.99)] + self.before[:3]
        self.assertEqual([r["seed"] for r in report.above_floor(better, self.floor)], [3])

    def test_written_floor_reads_back(self):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "floor.json")
            report.write_floor(path, self.floor)
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


if __name__ == "__main__":
    unittest.main()
