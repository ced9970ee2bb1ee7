"""The catalog's header grammar and its judge (tools/wbtools/catalog.py), which both CMake and
selfcheck use: every committed entry parses, bad headers get one sentence, each build expects the
right verdict, and `judge` runs a stand-in grader and decides as ctest will."""
from __future__ import annotations

import contextlib
import io
import re
import stat
import sys
import unittest
from unittest import mock

from support import REPO, WorkbookTest

from wbtools import catalog

GRADER = """#!{python}
import sys
print("Filters: " + " ".join(sys.argv[1:]))
print({line!r})
"""


class Grammar(WorkbookTest):
    def entry(self, header: str, name: str = "2_no_tail.cu"):
        path = self.tmp / name
        path.write_text(header + "\n\nnamespace WORKBOOK_TRACK {}\n")
        return path

    def test_every_committed_entry_parses(self):
        for folder in sorted((REPO / "catalog").iterdir()):
            with self.subTest(folder=folder.name):
                found = catalog.entries(folder)
                self.assertEqual(len(found), len(list(folder.glob("*.cu"))))

    def test_the_grading_pages_name_real_entries_with_their_verdicts(self):
        """Every catalog row of docs/grading.md and its Chinese twin (| ch | stage | `name` | ...) names
        an entry of that chapter and stage; in the table of wrong kernels (6 columns) the verdict
        column is the entry's verdict on a GPU."""
        by_chapter = {int(folder.name[:2]): {e.name: e for e in catalog.entries(folder)}
                      for folder in (REPO / "catalog").iterdir() if folder.is_dir()}
        row = re.compile(r"^\| (\d+) \| (\d+) \| `([0-9a-z_]+)` \|")
        for page in ("docs/grading.md", "docs/zh/grading.md"):
            rows = [line for line in (REPO / page).read_text(encoding="utf-8").splitlines() if row.match(line)]
            self.assertGreater(len(rows), 40, page)
            for line in rows:
                chapter, stage, name = row.match(line).groups()
                with self.subTest(page=page, entry=name):
                    entry = by_chapter.get(int(chapter), {}).get(name)
                    self.assertIsNotNone(entry, f"{page}: no catalog/{int(chapter):02d}_*/{name}.cu")
                    self.assertEqual(entry.stage, int(stage))
                    cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
                    if len(cells) == 6:
                        self.assertEqual(cells[4], entry.status)

    def test_a_wrong_kernel_and_its_emulated_verdict(self):
        entry = catalog.parse(self.entry('// expect: wrong "the tail"\n// emulated: crashed "read past the end"'))
        self.assertEqual((entry.stage, entry.status, entry.phrase), (2, "wrong", "the tail"))
        gpu = catalog.expectation(entry, emulated=False)
        self.assertEqual((gpu.statuses, gpu.phrase, gpu.timed, gpu.racecheck), (("wrong",), "the tail", False, False))
        emu = catalog.expectation(entry, emulated=True)
        self.assertEqual((emu.statuses, emu.phrase), (("crashed",), "read past the end"))

    def test_a_right_kernel_is_timed_on_a_gpu(self):
        entry = catalog.parse(self.entry("// expect: passed", "3_ok_grid_stride.cu"))
        self.assertEqual(entry.status, "passed")
        self.assertTrue(catalog.expectation(entry, emulated=False).timed)
        self.assertEqual(catalog.expectation(entry, emulated=True).statuses, ("passed",))

    def test_speed_verdicts_are_skipped_in_emulation(self):
        for header in ('// expect: too-slow "too slow"', '// expect: wrong "cached from an earlier call"'):
            entry = catalog.parse(self.entry(header))
            self.assertIn("speed checks", catalog.expectation(entry, emulated=True).skip)
        entry = catalog.parse(self.entry('// expect: wrong "x"\n// emulated: skip "sizes stay small"'))
        self.assertEqual(catalog.expectation(entry, emulated=True).skip, "sizes stay small")

    def test_a_race_needs_racecheck_on_a_gpu_and_any_failure_emulated(self):
        entry = catalog.parse(self.entry('// expect: race "hazard"', "5_volatile_last_warp.cu"))
        self.assertTrue(catalog.expectation(entry, emulated=False).racecheck)
        self.assertEqual(catalog.expectation(entry, emulated=True).statuses, ("wrong", "crashed", "hung"))

    def test_bad_headers_get_one_sentence_naming_the_file(self):
        cases = (('// expect: broken "x"', "is not `// expect:"),
                 ("// nothing expected", "needs exactly one line"),
                 ('// expect: wrong "a"\n// expect: wrong "b"', "it has 2"),
                 ('// expect: wrong "a"\n// emulated: slow "b"', "is not `// emulated:"),
                 ('// expect: wrong "quote " inside"', "is not `// expect:"))
        for header, sentence in cases:
            with self.subTest(header=header), self.assertRaises(catalog.CatalogError) as raised:
                catalog.parse(self.entry(header))
            self.assertIn(sentence, str(raised.exception))
            self.assertIn("2_no_tail.cu", str(raised.exception))
        with self.assertRaises(catalog.CatalogError) as raised:
            catalog.parse(self.entry('// expect: wrong "a"', "no_stage.cu"))
        self.assertIn("<stage>_<what_is_wrong>.cu", str(raised.exception))

    def test_judged_by_status_and_any_phrase(self):
        got = {"status": "wrong", "summary": "3 elements are wrong", "details": "first at index 7"}
        self.assertTrue(catalog.judged(("wrong",), "", got))
        self.assertTrue(catalog.judged(("wrong",), "index 7", got))
        self.assertTrue(catalog.judged(("wrong",), "racecheck found | elements are wrong", got))
        self.assertFalse(catalog.judged(("wrong",), "the tail", got))
        self.assertFalse(catalog.judged(("crashed",), "", got))

    def test_outcome_of_a_racecheck_run(self):
        record = 'WORKBOOK-RESULT {"stage": 5, "status": "passed", "summary": "ok"}'
        got = catalog.outcome(f"{record}\n========= RACECHECK SUMMARY: 2 hazards displayed (2 errors, 0 warnings)\n",
                              0, racecheck=True)
        self.assertEqual(got["status"], "race")
        self.assertIn("(grader: passed)", got["summary"])
        self.assertEqual(catalog.outcome(record, 0, racecheck=True)["status"], "no-verdict")
        self.assertEqual(catalog.outcome("", -11, racecheck=False)["summary"],
                         "the grader process died (signal 11) before reporting")


class Judge(WorkbookTest):
    def grader(self, line: str):
        path = self.tmp / "grader"
        path.write_text(GRADER.format(python=sys.executable, line=line))
        path.chmod(path.stat().st_mode | stat.S_IXUSR)
        return str(path)

    def judge(self, header: str, line: str, emulated: bool = False) -> tuple[int, str]:
        entry = self.tmp / "2_no_tail.cu"
        entry.write_text(header + "\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = catalog.main(["judge", *(["--emulated"] if emulated else []), str(entry), self.grader(line)])
        return code, out.getvalue()

    def test_the_expected_verdict_passes(self):
        code, out = self.judge('// expect: wrong "the tail"',
                               'WORKBOOK-RESULT {"stage": 2, "status": "wrong", "summary": "misses the tail"}')
        self.assertEqual(code, 0, out)
        self.assertIn("Filters: [stage2]", out)   # the entry's stage only
        self.assertIn("as expected", out)

    def test_another_verdict_is_a_surprise(self):
        code, out = self.judge("// expect: passed",
                               'WORKBOOK-RESULT {"stage": 2, "status": "too-slow", "summary": "x"}')
        self.assertEqual(code, 1)
        self.assertIn("expected passed, got too-slow: x -> SURPRISE", out)

    def test_skips_print_the_reason(self):
        code, out = self.judge('// expect: too-slow "too slow"', "", emulated=True)
        self.assertEqual(code, 0)
        self.assertIn("WORKBOOK-SKIP: its verdict comes from the speed checks", out)

    def test_no_gpu_and_no_sanitizer_are_skips(self):
        code, out = self.judge('// expect: wrong "the tail"', "WORKBOOK-SKIP: no CUDA device was found")
        self.assertEqual(code, 0)
        self.assertIn("WORKBOOK-SKIP: no CUDA device", out)
        with mock.patch.object(catalog, "sanitizer_path", lambda: None):
            code, out = self.judge('// expect: race "hazard"', "")
        self.assertEqual(code, 0)
        self.assertIn("WORKBOOK-SKIP: compute-sanitizer (CUDA Toolkit, bin/) was not found", out)

    def test_cmake_listing(self):
        folder = self.tmp / "catalog"
        folder.mkdir()
        (folder / "1_a.cu").write_text('// expect: wrong "x"\n// emulated: skip "a; b | c [d]"\n')
        (folder / "2_b.cu").write_text("// expect: passed\n")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = catalog.main(["cmake", "--emulated", str(folder)])
        self.assertEqual(code, 0)
        self.assertEqual(out.getvalue().splitlines(), ["1_a|1|a, b / c (d)", "2_b|2|"])


if __name__ == "__main__":
    unittest.main()
