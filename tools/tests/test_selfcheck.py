"""`selfcheck --merge`: repetitions saved by several runs are judged together, with no GPU.

The saved files are written here by hand, in the format `selfcheck --json` writes.
"""
from __future__ import annotations

import json
import shutil
import tempfile
import unittest
from pathlib import Path

import support  # noqa: F401  (puts tools/ on the import path)
import selfcheck


def outcome(suite, chapter, stage, case, status, ok=True, **got):
    return {"suite": suite, "chapter": chapter, "stage": stage, "case": case, "expected": status,
            "ok": ok, "seconds": 1.0, "got": dict(status=status, summary="", **got)}


def repetition(stage2_speedup=1.6, skeleton_status="not-implemented", skeleton_ok=True):
    return [outcome("harness", 0, 0, "CPU tests", "passed"),
            outcome("solutions", 1, 1, "reference", "passed"),
            outcome("solutions", 1, 2, "reference", "passed", speedup=stage2_speedup, required=1.3),
            outcome("solutions", 1, 3, "reference", "passed", speedup=1.05, required=1.0),
            outcome("skeletons", 1, 2, "skeleton", skeleton_status, ok=skeleton_ok)]


class MergeTest(unittest.TestCase):
    def setUp(self):
        self.tmp = Path(tempfile.mkdtemp(prefix="selfcheck-test-"))
        self.addCleanup(shutil.rmtree, self.tmp, ignore_errors=True)

    def save(self, name, repetitions):
        path = self.tmp / name
        path.write_text(json.dumps(repetitions))
        return str(path)

    def merge(self, *paths):
        import contextlib
        import io
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            code = selfcheck.main(["--merge", *paths])
        return code, out.getvalue()

    def test_runs_that_agree_pass_and_report_the_closest_margin_first(self):
        code, text = self.merge(self.save("a.json", [repetition(), repetition(1.58)]),
                                self.save("b.json", [repetition(1.62)]))
        self.assertEqual(code, 0, text)
        self.assertIn("3 repetitions from 2 files", text)
        self.assertIn("0 surprises in all, 0 checks whose outcome differed", text)
        margins = text[text.index("Speed margins"):]
        self.assertLess(margins.index("ch01 stage 3"), margins.index("ch01 stage 2"))
        self.assertIn("x1.580 to x1.620", margins)
        self.assertIn("+5.0%", margins)

    def test_an_outcome_that_changes_between_runs_is_flaky(self):
        code, text = self.merge(self.save("a.json", [repetition()]),
                                self.save("b.json", [repetition(skeleton_status="crashed", skeleton_ok=False)]))
        self.assertEqual(code, 1)
        self.assertIn("FLAKY skeletons ch01 stage 2 skeleton: not-implemented, crashed (SURPRISE)", text)
        self.assertIn("SURPRISE skeletons ch01 stage 2", text)

    def test_a_surprise_in_every_run_fails_without_being_flaky(self):
        bad = repetition(skeleton_status="passed", skeleton_ok=False)
        code, text = self.merge(self.save("a.json", [bad, bad]))
        self.assertEqual(code, 1)
        self.assertIn("2 surprises in all, 0 checks whose outcome differed", text)

    def test_runs_of_different_check_sets_are_refused(self):
        code, text = self.merge(self.save("a.json", [repetition()]), self.save("b.json", [repetition()[:3]]))
        self.assertEqual(code, 2)
        self.assertIn("different sets of checks", text)

    def test_a_missing_or_broken_file_gets_one_sentence(self):
        broken = self.tmp / "broken.json"
        broken.write_text("{not json")
        other = self.tmp / "other.json"
        other.write_text('{"rows": []}')   # JSON, but not what --json writes
        for path in (str(self.tmp / "missing.json"), str(broken), str(other)):
            code, text = self.merge(path)
            self.assertEqual(code, 2)
            self.assertIn("give the files written by --json", text)


if __name__ == "__main__":
    unittest.main()
