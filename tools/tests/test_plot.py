"""make plot-chapter: bar charts from recorded `make bench` results, and the sentence when matplotlib
is missing. The drawing tests need matplotlib in this Python or in /usr/bin/python3 (the tool uses
either); the missing-matplotlib test runs everywhere."""
from __future__ import annotations

import json
import sys
import unittest

from support import FIXTURES, WorkbookTest

from wbtools import plot


def can_plot() -> bool:
    return plot.have_matplotlib() or plot.other_python_with_matplotlib() is not None


class MissingMatplotlib(WorkbookTest):
    def test_one_clear_sentence_and_status_2(self):
        fake = self.tmp / "no-matplotlib" / "matplotlib"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text('raise ImportError("matplotlib is hidden by the test")\n')
        result = self.cli("plot", "1", "--results", str(FIXTURES / "ch01_bench_h200.json"),
                          env={"PYTHONPATH": str(fake.parent), "WORKBOOK_PLOT_PYTHON": ""})
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip(), plot.MISSING)
        self.assertEqual(result.stderr.strip(),
                         "make plot-chapter needs matplotlib: sudo apt-get install python3-matplotlib")
        self.assertFalse((self.build / "plots").exists())

    def test_a_fallback_without_matplotlib_is_not_used(self):
        fake = self.tmp / "no-matplotlib" / "matplotlib"
        fake.mkdir(parents=True)
        (fake / "__init__.py").write_text('raise ImportError("hidden")\n')
        # The fallback is this very Python, which (with the fake package first) has no matplotlib either.
        result = self.cli("plot", "1", "--results", str(FIXTURES / "ch01_bench_h200.json"),
                          env={"PYTHONPATH": str(fake.parent), "WORKBOOK_PLOT_PYTHON": sys.executable})
        self.assertEqual(result.returncode, 2)
        self.assertIn("python3-matplotlib", result.stderr)


class BadInput(WorkbookTest):
    def test_no_results_yet(self):
        result = self.cli("plot", "1")
        self.assertEqual(result.returncode, 2)
        self.assertIn("There are no benchmark results yet", result.stderr)
        self.assertIn("make bench", result.stderr)

    def test_no_rows_for_the_chapter(self):
        results = self.tmp / "results.json"
        results.write_text(json.dumps({"meta": {}, "rows": [{"chapter": 5, "op": "transpose"}]}))
        result = self.cli("plot", "1", "--results", str(results))
        self.assertEqual(result.returncode, 2)
        self.assertIn("has no rows for chapter 1", result.stderr)

    def test_not_a_results_file(self):
        results = self.tmp / "results.json"
        results.write_text("[1, 2")
        result = self.cli("plot", "1", "--results", str(results))
        self.assertEqual(result.returncode, 2)
        self.assertIn("is not a `make bench` result file", result.stderr)

    def test_unknown_chapter(self):
        result = self.cli("plot", "42")
        self.assertEqual(result.returncode, 2)
        self.assertIn("There is no chapter 42", result.stderr)


@unittest.skipUnless(can_plot(), "matplotlib is not installed (Debian: python3-matplotlib)")
class Plots(WorkbookTest):
    def plot(self, chapter: str, results) -> tuple[str, str]:
        result = self.cli("plot", chapter, "--results", str(results))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        return result.stdout, result.stderr

    def check_files(self, stem: str) -> str:
        png = self.build / "plots" / f"{stem}.png"
        svg = self.build / "plots" / f"{stem}.svg"
        self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        self.assertGreater(png.stat().st_size, 10000)
        text = svg.read_text()
        self.assertIn("<svg", text)
        return text

    def test_chapter_1_ladder_from_the_recorded_h200_run(self):
        out, _ = self.plot("1", FIXTURES / "ch01_bench_h200.json")
        self.assertIn("9 benchmark rows plotted", out)
        svg = self.check_files("chapter01_elementwise")
        self.assertIn("device copy bandwidth: 4230 GB/s", svg)
        self.assertIn("stage 2: float4 add", svg)
        caption = (self.build / "plots" / "chapter01_elementwise.caption").read_text()
        self.assertEqual(caption.strip(), "Measured on NVIDIA H200, 2026-11-21 with make bench.")

    def test_several_shapes(self):
        self.plot("1", self.multishape_as_chapter_1())
        svg = self.check_files("chapter01_elementwise")
        self.assertIn("softmax (float16)", svg)
        self.assertIn("65536x32", svg)

    def multishape_as_chapter_1(self):
        data = json.loads((FIXTURES / "synthetic_multishape_bench.json").read_text())
        for row in data["rows"]:
            row["chapter"] = 1
        path = self.tmp / "multishape.json"
        path.write_text(json.dumps(data))
        return path

    def test_tflops_chapter_draws_the_cublas_line(self):
        root = self.tmp / "flops-workbook"
        chapter = root / "chapters" / "07_sgemm"
        chapter.mkdir(parents=True)
        (chapter / "stages.json").write_text(json.dumps({
            "chapter": 7, "title": "SGEMM", "op": "sgemm", "metric": "TFLOP/s",
            "stages": [{"id": 1, "file": "1_naive", "title": "naive", "speedup": None, "hints": []},
                       {"id": 2, "file": "2_tiled", "title": "tiled", "speedup": 2.0, "hints": []}]}))
        rows = [{"chapter": 7, "op": "sgemm", "variant": v, "stage": s, "shape": "4096x4096x4096", "dtype": "float32",
                 "ms": 1.0, "tflops": t, "gpu": "a test GPU"}
                for v, s, t in (("cuBLAS sgemm", 0, 50.0), ("stage 1: naive", 1, 2.5), ("stage 2: tiled", 2, 20.0))]
        results = self.tmp / "flops.json"
        results.write_text(json.dumps({"meta": {"gpu": "a test GPU", "date": "2026-01-01"}, "rows": rows}))
        self.root = root
        self.plot("7", results)
        svg = self.check_files("chapter07_sgemm")
        self.assertIn("cuBLAS: 50.0 TFLOP/s", svg)
        self.assertIn("TFLOP/s", svg)


if __name__ == "__main__":
    unittest.main()


class Roofline(WorkbookTest):
    def test_points_from_the_profile_record(self):
        meta = {"chapter": 7}
        points = plot.roofline_points(plot.load_profile(FIXTURES / "synthetic_profile_ch07.json", meta))
        self.assertEqual([p["stage"] for p in points], list(range(1, 9)))
        flops = 2.0 * 4096 ** 3
        self.assertAlmostEqual(points[0]["intensity"], flops / 4300e6)
        self.assertAlmostEqual(points[0]["gflops"], flops / 55000e-6 / 1e9)
        self.assertAlmostEqual(points[7]["gbps"], 160e6 / 850e-6 / 1e9)

    def test_a_column_without_counters_is_left_out(self):
        points = plot.load_profile(FIXTURES / "synthetic_profile_ch05.json", {"chapter": 5})
        self.assertEqual([p["label"] for p in points], [f"stage {k}" for k in range(1, 7)])
        self.assertTrue(all(p["flops"] == 0 for p in points))

    def test_not_a_profile_record(self):
        bad = self.tmp / "ch07.json"
        bad.write_text("{}")
        result = self.cli("plot", "7", "--profile", str(bad))
        self.assertEqual(result.returncode, 2)
        self.assertIn("is not a `make profile-chapter` record", result.stderr)

    @unittest.skipUnless(can_plot(), "matplotlib is not installed (Debian: python3-matplotlib)")
    def test_roofline_without_bench_results(self):
        result = self.cli("plot", "7", "--profile", str(FIXTURES / "synthetic_profile_ch07.json"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("8 profiled stages on the roofline", result.stdout)
        png = self.build / "plots" / "chapter07_sgemm_roofline.png"
        self.assertEqual(png.read_bytes()[:8], b"\x89PNG\r\n\x1a\n")
        self.assertIn("arithmetic intensity", (self.build / "plots" / "chapter07_sgemm_roofline.svg").read_text())

    @unittest.skipUnless(can_plot(), "matplotlib is not installed (Debian: python3-matplotlib)")
    def test_bandwidth_bars_where_no_stage_computes(self):
        result = self.cli("plot", "5", "--profile", str(FIXTURES / "synthetic_profile_ch05.json"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        svg = (self.build / "plots" / "chapter05_transpose_roofline.svg").read_text()
        self.assertIn("achieved DRAM bandwidth", svg)

    @unittest.skipUnless(can_plot(), "matplotlib is not installed (Debian: python3-matplotlib)")
    def test_ladder_and_roofline_together(self):
        result = self.cli("plot", "1", "--results", str(FIXTURES / "ch01_bench_h200.json"),
                          "--profile", str(FIXTURES / "synthetic_profile_ch07.json"))
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("benchmark rows plotted", result.stdout)
        self.assertTrue((self.build / "plots" / "chapter01_elementwise_roofline.png").exists())
