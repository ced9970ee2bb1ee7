"""make reset-chapter: the skeleton is generated from the stage's template at the level asked for (or the
chapter's remembered level), the learner's file is backed up first, and switching levels leaves the
stages the learner changed or solved alone."""
from __future__ import annotations

import json
import unittest

from support import WorkbookTest

from wbtools import core, scaffold
from wbtools import state as st

STAGE2 = "exercises/01_elementwise/2_vectorized.cu"
STAGE3 = "exercises/01_elementwise/3_fused.cu"


class Reset(WorkbookTest):
    copy_root = True

    def setUp(self):
        super().setUp()
        self.meta = core.load_chapter(1)
        self.levels = {s["id"]: scaffold.all_levels(self.meta, s) for s in self.meta["stages"]}

    def reset(self, *args: str):
        return self.cli("reset", *args)

    def text(self, relpath: str) -> str:
        return (self.root / relpath).read_text()

    def backups(self) -> list:
        return sorted((self.root / "exercises/.backup").glob("*/01_elementwise/*.cu"))

    def test_a_fresh_copy_holds_the_outline_level(self):
        for stage in self.meta["stages"]:
            self.assertEqual(core.exercise_path(self.meta, stage).read_text(), self.levels[stage["id"]]["outline"])

    def test_uncommitted_work_is_backed_up_and_the_skeleton_restored(self):
        (self.root / STAGE2).write_text(self.levels[2]["outline"] + "// my kernel\n")
        result = self.reset("1", "--stage", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.text(STAGE2), self.levels[2]["outline"])
        [backup] = self.backups()
        self.assertEqual(backup.read_text(), self.levels[2]["outline"] + "// my kernel\n")
        self.assertIn("your version is in exercises/.backup/", result.stdout)
        self.assertIn("To undo: cp", result.stdout)

    def test_switching_levels_skips_changed_and_solved_stages_and_is_remembered(self):
        (self.root / STAGE2).write_text("// my kernel\n")
        (self.root / STAGE3).write_text("// my solved kernel\n")
        st.record_results(1, {3: {"stage": 3, "status": "passed"}})
        result = self.reset("1", "--level", "guided")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.text(STAGE2), "// my kernel\n")
        self.assertEqual(self.text(STAGE3), "// my solved kernel\n")
        self.assertIn("stage 2: exercises/01_elementwise/2_vectorized.cu skipped: you changed it", result.stdout)
        self.assertIn("stage 3: exercises/01_elementwise/3_fused.cu skipped: you solved it", result.stdout)
        self.assertIn("make reset-chapter 1 LEVEL=guided FORCE=1", result.stdout)
        for stage_id in (1, 4):
            path = core.exercise_path(self.meta, self.meta["stages"][stage_id - 1])
            self.assertEqual(path.read_text(), self.levels[stage_id]["guided"])
        self.assertIn("it was the untouched outline skeleton", result.stdout)
        self.assertEqual(self.backups(), [])
        self.assertEqual(json.loads((self.root / "exercises/.scaffold.json").read_text()), {"1": "guided"})

        # A later reset without LEVEL uses the remembered level, and starts the changed stage over.
        result = self.reset("1", "--stage", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.text(STAGE2), self.levels[2]["guided"])
        self.assertEqual([b.read_text() for b in self.backups()], ["// my kernel\n"])

    def test_force_replaces_changed_stages_after_a_backup(self):
        (self.root / STAGE2).write_text("// my kernel\n")
        result = self.reset("1", "--stage", "2", "--level", "blank", "--force")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.text(STAGE2), self.levels[2]["blank"])
        self.assertEqual([b.read_text() for b in self.backups()], ["// my kernel\n"])

    def test_missing_file_is_restored_and_untouched_ones_left_alone(self):
        (self.root / STAGE2).unlink()
        stage1 = self.root / "exercises/01_elementwise/1_naive.cu"
        before = stage1.stat().st_mtime_ns
        result = self.reset("1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual(self.text(STAGE2), self.levels[2]["outline"])
        self.assertIn("it was missing", result.stdout)
        self.assertIn("already is the outline skeleton, left alone", result.stdout)
        self.assertEqual(stage1.stat().st_mtime_ns, before)
        self.assertEqual(self.backups(), [])

    def test_nothing_to_do(self):
        result = self.reset("1")
        self.assertEqual(result.returncode, 0)
        self.assertIn("Nothing to reset", result.stdout)

    def test_bad_input_changes_nothing(self):
        (self.root / STAGE2).write_text("// mine\n")
        for args, sentence in ((("9",), "There is no chapter 9"),
                               (("1", "--stage", "5"), "Chapter 1 has no stage 5"),
                               (("1", "--level", "verbose"), "LEVEL=verbose is not a scaffold level: use outline")):
            result = self.reset(*args)
            self.assertEqual(result.returncode, 2)
            self.assertIn(sentence, result.stderr)
            self.assertEqual(len(result.stderr.strip().splitlines()), 1, result.stderr)
        self.assertEqual(self.text(STAGE2), "// mine\n")
        self.assertFalse((self.root / "exercises/.scaffold.json").exists())

    def test_a_missing_template_changes_nothing(self):
        (self.root / "scaffolds/01_elementwise/3_fused.cu").unlink()
        (self.root / STAGE2).write_text("// mine\n")
        result = self.reset("1")
        self.assertEqual(result.returncode, 2)
        self.assertIn("The template scaffolds/01_elementwise/3_fused.cu", result.stderr)
        self.assertEqual(self.text(STAGE2), "// mine\n")

    def test_no_git_needed(self):
        self.assertFalse((self.root / ".git").exists())
        (self.root / STAGE2).write_text("// mine\n")
        self.assertEqual(self.reset("1").returncode, 0)
        self.assertEqual(self.text(STAGE2), self.levels[2]["outline"])


if __name__ == "__main__":
    unittest.main()
