"""make progress, and the state file behind it, fed with recorded grader output."""
from __future__ import annotations

import json
import os
import time
import unittest

from support import Args, WorkbookTest, fixture

from wbtools import core, progress
from wbtools import state as st


def record_log(name: str, chapter: int = 1) -> list[dict]:
    records = core.parse_results(fixture(name))
    st.record_results(chapter, {r["stage"]: r for r in records})
    return records


class ParseResults(WorkbookTest):
    def test_reads_every_stage_of_a_gpu_run(self):
        records = core.parse_results(fixture("ch01_exercises_h200_mixed.log"))
        self.assertEqual([r["status"] for r in records], ["passed", "passed", "too-slow", "wrong"])
        self.assertAlmostEqual(records[1]["speedup"], 1.2497)
        self.assertIn("never written", records[3]["details"])

    def test_reads_the_no_gpu_run(self):
        records = core.parse_results(fixture("ch01_exercises_no_gpu.log"))
        self.assertEqual(len(records), 4)
        self.assertTrue(all(r["status"] == "skipped" for r in records))

    def test_reads_ctest_verbose_prefixes(self):
        lines = fixture("ch01_exercises_h200_mixed.log").splitlines()
        result = next(line for line in lines if line.startswith("WORKBOOK-RESULT"))
        self.assertEqual(len(core.parse_results(f"3: {result}\n")), 1)


class StateFile(WorkbookTest):
    def test_skipped_results_are_not_recorded(self):
        record_log("ch01_exercises_no_gpu.log")
        self.assertFalse(st.path().exists())

    def test_latest_result_wins_and_first_pass_is_kept(self):
        st.record_results(1, {2: {"stage": 2, "status": "passed", "speedup": 1.3}}, now=1000.0)
        st.record_results(1, {2: {"stage": 2, "status": "too-slow", "speedup": 1.01}}, now=2000.0)
        kept = st.result(st.load(), 1, 2)
        self.assertEqual(kept["status"], "too-slow")
        self.assertEqual(kept["first_passed"], 1000.0)
        self.assertEqual(kept["time"], 2000.0)

    def test_version_1_file_is_read(self):
        st.path().write_text(json.dumps({"1": {"2": {"stage": 2, "status": "passed"}}}))
        self.assertEqual(st.category(st.result(st.load(), 1, 2)), st.PASSED)

    def test_unreadable_file_is_set_aside_not_overwritten(self):
        st.path().write_text("{ not json")
        state, _, err = self.capture(st.load)
        self.assertEqual(state["results"], {})
        self.assertIn("could not be read", err)
        aside = list(self.build.glob("progress.json.unreadable-*"))
        self.assertEqual(len(aside), 1)
        self.assertEqual(aside[0].read_text(), "{ not json")

    def test_categories(self):
        self.assertEqual(st.category(None), st.NOT_STARTED)
        self.assertEqual(st.category({"status": "not-implemented"}), st.NOT_STARTED)
        self.assertEqual(st.category({"status": "crashed"}), st.FAILING)
        self.assertEqual(st.category({"status": "hung"}), st.FAILING)
        self.assertEqual(st.category({"status": "too-slow"}), st.TOO_SLOW)
        # A pass on the CPU emulator is correct but was never timed: not a full pass.
        self.assertEqual(st.category({"status": "passed", "emulated": True}), st.UNTIMED)
        self.assertEqual(st.category({"status": "passed"}), st.PASSED)


class ProgressTable(WorkbookTest):
    copy_root = True

    def test_nothing_graded_yet(self):
        code, out, _ = self.capture(progress.command_progress, Args(chapter=None))
        self.assertEqual(code, 0)
        self.assertIn("0 of 4 stages passed", out)
        self.assertIn("Nothing graded yet", out)
        self.assertIn("make check-chapter 1", out)

    def test_table_after_a_gpu_run(self):
        record_log("ch01_exercises_h200_mixed.log")
        code, out, _ = self.capture(progress.command_progress, Args(chapter=None))
        self.assertEqual(code, 0)
        self.assertIn("2 of 4 stages passed (50%)", out)
        overview = next(line for line in out.splitlines() if "Elementwise operations" in line and "2/4" in line)
        for mark in ("✔", "◐", "✘"):
            self.assertIn(mark, overview)
        row2 = next(line for line in out.splitlines() if line.strip().startswith("2  float4"))
        self.assertIn("x1.25", row2)
        self.assertIn("4325", row2)      # GB/s
        self.assertIn("102%", row2)      # of copy bandwidth
        row3 = next(line for line in out.splitlines() if line.strip().startswith("3  fused"))
        self.assertIn("correct, too slow", row3)
        self.assertIn("x1.34", row3)     # what was needed
        row4 = next(line for line in out.splitlines() if line.strip().startswith("4  half"))
        self.assertIn("wrong result", row4)
        self.assertIn("Next: chapter 1, stage 3", out)

    def test_interview_tags_of_chapter_and_stages_are_shown(self):
        meta = core.load_chapter(1)
        _, out, _ = self.capture(progress.command_progress, Args(chapter="1"))
        overview = next(line for line in out.splitlines() if "Elementwise operations" in line and "0/4" in line)
        self.assertIn(progress.interview_tag(meta), overview)
        for stage in meta["stages"]:
            row = next(line for line in out.splitlines() if line.strip().startswith(f"{stage['id']}  "))
            self.assertIn(progress.interview_tag(stage), row)

    def test_interview_tag_wording(self):
        self.assertEqual(progress.interview_tag({"interview": {"asked": "high", "by_hand": True}}), "high, by hand")
        self.assertEqual(progress.interview_tag({"interview": {"asked": "low", "by_hand": False}}), "low")
        self.assertEqual(progress.interview_tag({}), "")

    def test_edited_since_graded_is_marked(self):
        record_log("ch01_exercises_h200_mixed.log")
        meta = core.load_chapter(1)
        path = core.exercise_path(meta, meta["stages"][0])
        later = time.time() + 60
        os.utime(path, (later, later))
        _, out, _ = self.capture(progress.command_progress, Args(chapter="1"))
        self.assertIn("passed *", out)
        self.assertIn("edited since it was graded", out)

    def test_ascii_fallback(self):
        record_log("ch01_exercises_h200_mixed.log")
        result = self.cli("progress", env={"PYTHONIOENCODING": "ascii"})
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("P P s F", result.stdout)
        self.assertIn("[####", result.stdout)

    def test_unknown_chapter_is_one_sentence(self):
        result = self.cli("progress", "9")
        self.assertEqual(result.returncode, 2)
        self.assertEqual(result.stderr.strip(), "There is no chapter 9: the chapters are 1 (elementwise).")
        self.assertNotIn("Traceback", result.stderr)

    def test_all_passed(self):
        st.record_results(1, {s: {"stage": s, "status": "passed"} for s in range(1, 5)})
        _, out, _ = self.capture(progress.command_progress, Args(chapter=None))
        self.assertIn("4 of 4 stages passed (100%)", out)
        self.assertIn("make drill", out)


if __name__ == "__main__":
    unittest.main()
