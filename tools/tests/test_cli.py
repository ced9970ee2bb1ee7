"""The command line end to end, with a stand-in grader that replays recorded grader output: check
records what progress then shows; the results summary; helpful sentences for bad input."""
from __future__ import annotations

import os
import stat
import sys
import unittest

from support import FIXTURES, WorkbookTest, fixture

REPLAY = """#!{python}
# Replays the recorded output of one stage, like the real grader would print it.
import sys
text = open({log!r}).read()
wanted = sys.argv[1] if len(sys.argv) > 1 else ""
for block in text.split("Filters: ")[1:]:
    if block.startswith(wanted):
        sys.stdout.write("Filters: " + block)
        sys.exit(1 if "FAILED" in block else 0)
sys.exit(0)
"""


class CommandLine(WorkbookTest):
    copy_root = True

    def install_grader(self, log: str) -> None:
        bin_dir = self.build / "bin"
        bin_dir.mkdir(exist_ok=True)
        grader = bin_dir / "ch01_grade_exercises"
        grader.write_text(REPLAY.format(python=sys.executable, log=str(FIXTURES / log)))
        grader.chmod(grader.stat().st_mode | stat.S_IXUSR)

    def test_check_then_progress(self):
        self.install_grader("ch01_exercises_h200_mixed.log")
        result = self.cli("check", "1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("ok stage 1: passed", result.stdout)
        self.assertIn("-- stage 3: correct, too slow", result.stdout)
        self.assertIn("Next: stage 3", result.stdout)
        table = self.cli("progress")
        self.assertEqual(table.returncode, 0, table.stderr)
        self.assertIn("2 of 4 stages passed (50%)", table.stdout)
        self.assertIn("✔ ✔ ◐ ✘", table.stdout)

    def test_check_without_a_gpu_records_nothing(self):
        self.install_grader("ch01_exercises_no_gpu.log")
        result = self.cli("check", "1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Your code compiles. Grading needs an NVIDIA GPU", result.stdout)
        self.assertFalse((self.build / "progress.json").exists())

    def test_check_without_a_build(self):
        result = self.cli("check", "1")
        self.assertEqual(result.returncode, 2)
        self.assertIn("is not built: run `make check-chapter 1`", result.stderr)
        self.assertNotIn("Traceback", result.stderr)

    def test_results_summary_of_a_log(self):
        result = self.cli("results", stdin=fixture("ch01_exercises_h200_mixed.log"))
        self.assertEqual(result.returncode, 0, result.stderr)
        lines = result.stdout.strip().splitlines()
        self.assertEqual(len(lines), 4)
        self.assertIn("too-slow", lines[2])
        self.assertIn("x1.15", lines[2])

    @unittest.skipIf(os.name != "posix", "needs a POSIX shell")
    def test_bad_input_never_shows_a_traceback(self):
        for args in (("hint", "0"), ("hint", "1", "--stage", "99"), ("progress", "x"), ("reset", "77"),
                     ("watch", "0"), ("drill", "99"), ("plot", "-3")):
            result = self.cli(*args)
            with self.subTest(args=args):
                self.assertEqual(result.returncode, 2)
                self.assertNotIn("Traceback", result.stderr)
                self.assertTrue(result.stderr.strip().endswith("."), result.stderr)


if __name__ == "__main__":
    unittest.main()
