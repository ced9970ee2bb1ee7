"""check's sanitizer batch and bench's table, with stand-in graders written by the test: what a finding
of compute-sanitizer does to a stage's verdict, and what `make bench` writes."""
from __future__ import annotations

import json
import stat
import sys
import unittest

from support import Args, FIXTURES, WorkbookTest

from wbtools import bench, chapters, check, core

# A grader that prints given lines whatever its arguments, and records its arguments.
PRINTER = """#!{python}
import sys
open({calls!r}, "a").write(" ".join(sys.argv[1:]) + "\\n")
sys.stdout.write({text!r})
sys.exit({code})
"""


class StandIn(WorkbookTest):
    def grader(self, name: str, text: str, code: int = 0):
        bin_dir = self.build / "bin"
        bin_dir.mkdir(exist_ok=True)
        path = bin_dir / name
        path.write_text(PRINTER.format(python=sys.executable, calls=str(self.tmp / "calls.txt"), text=text, code=code))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return path

    def calls(self) -> list[str]:
        return (self.tmp / "calls.txt").read_text().splitlines()


# A grader that reports stage 2 as needing a newer GPU (stages.json's "min_cc") and passes the others.
PER_STAGE = """#!{python}
import sys
stage = int(sys.argv[1][len("[stage"):-1])
if stage == 2:
    print("WORKBOOK-SKIP: chapter 1, stage 2 needs a GPU of compute capability 9.0 (wgmma/TMA are not emulated).")
    print('WORKBOOK-RESULT {{"chapter": 1, "stage": 2, "status": "skipped", "needs_cc": "9.0", '
          '"summary": "chapter 1, stage 2 needs a GPU of compute capability 9.0 (wgmma/TMA are not emulated)"}}')
else:
    print('WORKBOOK-RESULT {{"chapter": 1, "stage": %d, "status": "passed", "emulated": true}}' % stage)
"""


class ComputeCapabilitySkip(StandIn):
    def test_a_stage_that_needs_a_newer_gpu_is_skipped_and_the_others_are_graded(self):
        path = self.build / "bin" / "ch01_grade_exercises"
        path.parent.mkdir(exist_ok=True)
        path.write_text(PER_STAGE.format(python=sys.executable))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        args = Args(chapter="1", stage=None, solutions=False, correctness_only=False, verbose=False, timeout=60.0)
        _, out, _ = self.capture(check.command_check, args)
        self.assertIn("-- stage 2: skipped: chapter 1, stage 2 needs a GPU of compute capability 9.0 "
                      "(wgmma/TMA are not emulated).", out)
        self.assertIn("ok stage 3: passed (correctness)", out)
        self.assertIn("skipped (needs 9.0)", out)        # the table
        self.assertNotIn("Grading needs an NVIDIA GPU", out)


class SanitizerBatch(StandIn):
    def test_a_finding_turns_a_passed_stage_wrong_and_is_shown_once(self):
        meta = core.load_chapter(1)
        grader = self.grader("ch01_grade_exercises",
                             'WORKBOOK-SANITIZER {"stage": 1, "status": "clean", "seconds": 2.5, "details": ""}\n'
                             'WORKBOOK-SANITIZER {"stage": 2, "status": "wrong", "seconds": 2.5, '
                             '"details": "memcheck: invalid read of 4 bytes\\nat add_kernel"}\n')
        results = {1: {"stage": 1, "status": "passed"}, 2: {"stage": 2, "status": "too-slow"},
                   3: {"stage": 3, "status": "wrong"}}
        shown, out, _ = self.capture(check.sanitize_passed_stages, meta, grader, results, 60.0, False)
        self.assertEqual(self.calls(), ["--workbook-sanitize 1 1,2"])   # one run, the right stages only
        self.assertTrue(shown)
        self.assertEqual(results[2]["status"], "wrong")
        self.assertEqual(results[2]["summary"], "memcheck: invalid read of 4 bytes")
        self.assertEqual(results[1]["status"], "passed")
        self.assertIn("found nothing in stages 1 (2.5 s)", out)
        self.assertIn("-- stage 2: wrong result (compute-sanitizer)", out)
        self.assertIn("at add_kernel", out)

    def test_no_sanitizer_says_so_and_changes_nothing(self):
        meta = core.load_chapter(1)
        grader = self.grader("ch01_grade_exercises", 'WORKBOOK-SANITIZER {"stage": 0, "status": "not-checked", '
                                                     '"details": "compute-sanitizer was not found"}\n')
        results = {1: {"stage": 1, "status": "passed"}}
        shown, out, _ = self.capture(check.sanitize_passed_stages, meta, grader, results, 60.0, False)
        self.assertFalse(shown)
        self.assertIn("not sanitizer-checked: compute-sanitizer was not found", out)
        self.assertEqual(results[1]["status"], "passed")

    def test_nothing_right_runs_nothing(self):
        meta = core.load_chapter(1)
        grader = self.grader("ch01_grade_exercises", "")
        results = {1: {"stage": 1, "status": "wrong"}}
        shown, out, _ = self.capture(check.sanitize_passed_stages, meta, grader, results, 60.0, True)
        self.assertTrue(shown)
        self.assertEqual(out, "")
        self.assertFalse((self.tmp / "calls.txt").exists())


class Bench(StandIn):
    def bench_lines(self) -> str:
        rows = json.loads((FIXTURES / "ch01_bench_h200.json").read_text())["rows"]
        return "".join(f"WORKBOOK-BENCH {json.dumps(row)}\n" for row in rows)

    def test_writes_results_and_a_table_with_ratios(self):
        self.grader("ch01_grade_solutions", self.bench_lines())
        code, out, _ = self.capture(bench.command_bench, Args(chapters=["1"], timeout=60.0))
        self.assertEqual(code, 0, out)
        self.assertEqual(self.calls(), ["[bench]"])
        saved = json.loads((self.build / "bench/results.json").read_text())
        self.assertEqual(saved["meta"]["gpu"], "NVIDIA H200")
        table = (self.build / "bench/results.md").read_text()
        self.assertTrue(table.startswith("Measured on NVIDIA H200"))
        stage2 = next(line for line in table.splitlines() if "| stage 2" in line)
        self.assertRegex(stage2, r"\| x1\.\d\d \|")   # the ratio over stage 1 of the same op and shape
        self.assertIn("results.md", out)

    def test_no_gpu_is_one_sentence(self):
        self.grader("ch01_grade_solutions", "WORKBOOK-SKIP: no CUDA device\n")
        with self.assertRaises(core.UserError) as raised:
            self.capture(bench.command_bench, Args(chapters=["1"], timeout=60.0))
        self.assertIn("needs an NVIDIA GPU", str(raised.exception))

    def test_nothing_built(self):
        with self.assertRaises(core.UserError) as raised:
            self.capture(bench.command_bench, Args(chapters=["1"], timeout=60.0))
        self.assertIn("Nothing was benchmarked", str(raised.exception))

    def test_markdown_table_compares_with_pytorch(self):
        rows = [{"chapter": 1, "op": "add", "variant": "stage 1", "stage": 1, "shape": "8", "dtype": "float32",
                 "ms": 2.0, "gbps": 100.0},
                {"chapter": 1, "op": "add", "variant": "torch.add", "stage": 0, "shape": "8", "dtype": "float32",
                 "ms": 3.0, "library": "pytorch"}]
        table = bench.markdown_table({"gpu": "a GPU", "date": "today", "copy_gbps": 200.0}, rows)
        self.assertIn("vs PyTorch", table)
        self.assertIn("| x1.50 |", table)   # PyTorch's 3 ms over stage 1's 2 ms

    def test_markdown_table_gives_the_ratio_to_the_library_timed_beside_a_row(self):
        rows = [{"chapter": 8, "op": "hgemm", "variant": "cuBLAS", "stage": 0, "shape": "[8, 8, 8]",
                 "dtype": "float16", "ms": 1.0, "tflops": 700.0},
                {"chapter": 8, "op": "hgemm", "variant": "stage 5", "stage": 5, "shape": "[8, 8, 8]",
                 "dtype": "float16", "ms": 1.6, "tflops": 437.5, "library_ms": 1.2, "vs_library": 0.75}]
        table = bench.markdown_table({"gpu": "a GPU", "date": "today", "copy_gbps": 200.0}, rows)
        self.assertIn("vs library |", table)
        self.assertIn("| 437.50 |  | x0.75 |", table)   # stage 5: no earlier stage, 0.75 of cuBLAS
        self.assertIn("| 700.00 |  | - |", table)         # the cuBLAS row itself has no ratio
        self.assertNotIn("alternated", table)

    def test_markdown_table_gives_the_launch_by_launch_ratio_where_there_is_one(self):
        rows = [{"chapter": 8, "op": "hgemm", "variant": "stage 5", "stage": 5, "shape": "[8, 8, 8]",
                 "dtype": "float16", "ms": 1.6, "tflops": 437.5, "library_ms": 1.2, "vs_library": 0.75,
                 "vs_library_alternated": 0.6}]
        table = bench.markdown_table({"gpu": "a GPU", "date": "today", "copy_gbps": 200.0}, rows)
        self.assertIn("vs library, alternated |", table)
        self.assertIn("steady state", table)
        self.assertIn("| x0.75 | x0.60 |", table)


class Chapters(WorkbookTest):
    def test_lists_every_stage(self):
        _, out, _ = self.capture(chapters.command_chapters, Args())
        self.assertIn("1  Elementwise operations", out)
        for meta in core.all_chapters():
            for stage in meta["stages"]:
                self.assertIn(stage["title"], out)


if __name__ == "__main__":
    unittest.main()
