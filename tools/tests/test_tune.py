"""make tune-chapter: the result file's name, how a candidate's lines become a score, which shape wins,
and the sentences a learner gets where there is nothing to tune."""
from __future__ import annotations

import json
import re
import unittest

import stat
import sys

from support import REPO, WorkbookTest

from wbtools import core, tune

# A stand-in candidate program: prints the given text whatever its arguments, exits with the given code.
PROGRAM = """#!{python}
import sys
sys.stdout.write({text!r})
sys.exit({code})
"""

SIZES = [1024, 4096]
SPEC = {"stage": 9, "shipped": "a", "sizes": SIZES, "margin_pct": 1.0,
        "candidates": [{"name": "a", "tile": [1]}, {"name": "b", "tile": [2]}, {"name": "c", "tile": [3]}]}


class ResultFile(unittest.TestCase):
    def test_named_as_cmake_names_it(self):
        self.assertEqual(tune.gpu_file_name("NVIDIA H100 80GB HBM3"), "NVIDIA_H100_80GB_HBM3")
        self.assertEqual(tune.gpu_file_name("NVIDIA GeForce RTX 4090"), "NVIDIA_GeForce_RTX_4090")
        self.assertEqual(tune.gpu_file_name("3090-x"), "_3090_x")   # MAKE_C_IDENTIFIER: no leading digit

    def test_the_shipped_candidate_is_the_solutions_default(self):
        spec = json.loads((REPO / "chapters/07_sgemm/tune/candidates.json").read_text())
        shipped = next(c["tile"] for c in spec["candidates"] if c["name"] == spec["shipped"])
        solution = (REPO / "solutions/07_sgemm/9_stream_k.cu").read_text()
        default = re.search(r"^#define " + spec["macro"] + r" ([0-9, ]+)$", solution, re.M)
        self.assertIsNotNone(default)
        self.assertEqual([int(v) for v in default.group(1).split(",")], shipped)

    def test_every_candidate_satisfies_the_tile_rules(self):
        # The static_asserts of stage 9's TileConfig, so that a bad entry fails here and not in a build.
        spec = json.loads((REPO / "chapters/07_sgemm/tune/candidates.json").read_text())
        names = [c["name"] for c in spec["candidates"]]
        self.assertEqual(len(names), len(set(names)))
        self.assertIn(spec["shipped"], names)
        for c in spec["candidates"]:
            self.assertIn(len(c["tile"]), (9, 11))
            bm, bn, bk, wm, wn, tm, tn, stages, blocks = c["tile"][:9]
            copy_a, copy_b = c["tile"][9:] or [2, 6]   # TileConfig's defaults
            threads = (bm // wm) * (bn // wn) * 32
            with self.subTest(c["name"]):
                self.assertTrue(-1 <= copy_a < bk and -1 <= copy_b < bk)
                self.assertEqual((bm % wm, bn % wn, tm % 4, tn % 4), (0, 0, 0, 0))
                self.assertEqual((wm // tm) * (wn // tn), 32)
                self.assertEqual((threads % bk, bm * bk % threads), (0, 0))
                self.assertEqual((bk * bn // 4 % threads, threads % (bn // 4)), (0, 0))
                self.assertGreaterEqual(stages, 2)
                self.assertGreaterEqual(blocks, 1)


def measured(speeds: dict[str, dict[int, float]], library: dict[int, float] | None = None) -> dict[str, dict]:
    """Candidates measured at the given TFLOP/s, the library at 1 TFLOP/s unless told otherwise."""
    results = {}
    for name, tflops in speeds.items():
        rows = [{"candidate": name, "gpu": "Some GPU", "n": n, "ms": 2.0 * n ** 3 / (t * 1e12) * 1e3,
                 "cublas_ms": 2.0 * n ** 3 / ((library or {}).get(n, 1.0) * 1e12) * 1e3} for n, t in tflops.items()]
        results[name] = tune.measure(rows, SIZES)
    return results


class Ranking(unittest.TestCase):
    def test_score_is_the_geometric_mean_over_the_median_library_speed(self):
        results = measured({"a": {1024: 0.5, 4096: 2.0}})
        results.update(measured({"b": {1024: 1.0, 4096: 1.0}}, library={1024: 5.0, 4096: 5.0}))
        results.update(measured({"c": {1024: 1.0, 4096: 1.0}}))
        yardstick = tune.score(results, SIZES)
        for n in SIZES:
            self.assertAlmostEqual(yardstick[n], 1.0)   # the odd library run of b does not count
        self.assertAlmostEqual(results["a"]["score"], 1.0)
        self.assertAlmostEqual(results["a"]["ratio"][4096], 2.0)
        self.assertAlmostEqual(results["b"]["score"], 1.0)

    def test_a_wrong_or_incomplete_candidate_has_no_score(self):
        self.assertEqual(tune.measure([{"candidate": "b", "gpu": "G", "error": "wrong at 1 x 1 x 1"}], SIZES),
                         {"error": "wrong at 1 x 1 x 1"})
        results = measured({"b": {1024: 1.0}})
        self.assertIn("4096", results["b"]["error"])
        tune.score(results, SIZES)
        self.assertNotIn("score", results["b"])

    def test_the_shipped_shape_stays_within_the_margin(self):
        results = measured({"a": {1024: 1.0, 4096: 1.0}, "b": {1024: 1.005, 4096: 1.005}})
        results["c"] = {"error": "wrong"}
        tune.score(results, SIZES)
        self.assertEqual(tune.choose(SPEC, results), "a")
        results = measured({"a": {1024: 1.0, 4096: 1.0}, "b": {1024: 1.03, 4096: 1.03}})
        tune.score(results, SIZES)
        self.assertEqual(tune.choose(SPEC, results), "b")

    def test_a_broken_shipped_shape_gives_way(self):
        results = measured({"b": {1024: 0.9, 4096: 0.9}})
        results["a"] = {"error": "does not fit"}
        tune.score(results, SIZES)
        self.assertEqual(tune.choose(SPEC, results), "b")

    def test_table_ranks_and_marks(self):
        results = measured({"a": {1024: 1.0, 4096: 1.0}, "b": {1024: 1.1, 4096: 1.1}})
        results["c"] = {"error": "wrong at 5"}
        yardstick = tune.score(results, SIZES)
        table = tune.markdown_table(SPEC, results, yardstick, "b", "Some GPU", "2026-01-01")
        rows = [line for line in table.splitlines() if line.startswith("| ")]
        self.assertTrue(rows[1].startswith("| b |") and "**chosen**" in rows[1])
        self.assertIn("(shipped)", rows[2])
        self.assertIn("wrong at 5", rows[3])
        self.assertTrue(rows[-1].startswith("| cuBLAS (median)"))

    def test_the_result_file_is_json(self):
        results = measured({"a": {1024: 1.0, 4096: 1.0}})
        yardstick = tune.score(results, SIZES)
        text = tune.format_record({"gpu": "G", "best": "a", "tile": [1], "library_tflops": yardstick,
                                   "candidates": results})
        record = json.loads(text)
        self.assertEqual(record["best"], "a")
        self.assertEqual(record["candidates"]["a"]["score"], 1.0)
        self.assertNotIn("gpu", record["candidates"]["a"])


class Programs(WorkbookTest):
    def program(self, name: str, text: str, code: int = 0) -> None:
        folder = self.build / "bin" / "tune"
        folder.mkdir(parents=True, exist_ok=True)
        path = folder / f"ch07_tune_{name}"
        path.write_text(PROGRAM.format(python=sys.executable, text=text, code=code))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)

    def test_results_errors_and_crashes(self):
        line = 'WORKBOOK-TUNE {{"candidate": "{0}", "gpu": "G", "n": {1}, "ms": 1.0, "cublas_ms": 2.0}}\n'
        self.program("a", line.format("a", 1024) + line.format("a", 4096))
        self.program("b", 'WORKBOOK-TUNE {"candidate": "b", "gpu": "G", "error": "wrong at 5 x 5 x 5"}\n')
        self.program("c", "terminate called after throwing an instance of 'wb::CudaError'\n", code=134)
        results, out, _ = self.capture(tune.run_candidates, {"chapter": 7}, SPEC, ["a", "b", "c"], 60.0)
        self.assertAlmostEqual(results["a"]["library_tflops"][4096] * 2, results["a"]["tflops"][4096])
        self.assertEqual(results["b"], {"error": "wrong at 5 x 5 x 5"})
        self.assertTrue(results["c"]["error"].startswith("did not run: terminate called"))
        self.assertIn("c: did not run", out)

    def test_no_gpu_is_one_sentence(self):
        self.program("a", "WORKBOOK-SKIP: no NVIDIA GPU was found.\n")
        with self.assertRaises(core.UserError):
            self.capture(tune.run_candidates, {"chapter": 7}, SPEC, ["a"], 60.0)


class NothingToTune(WorkbookTest):
    def test_a_chapter_without_a_tuner(self):
        proc = self.cli("tune", "3")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("Chapter 3 has no autotuner; the chapters that have one: 7.", proc.stderr)

    def test_an_unknown_chapter(self):
        proc = self.cli("tune", "42")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("There is no chapter 42", proc.stderr)

    def test_no_build_yet(self):
        proc = self.cli("tune", "7")
        self.assertEqual(proc.returncode, 2)
        self.assertIn("There is no build yet", proc.stderr)


if __name__ == "__main__":
    unittest.main()
