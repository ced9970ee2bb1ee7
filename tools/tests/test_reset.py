"""make reset-chapter: the skeleton comes from the authors' commits, never from the learner's, and the
learner's file is backed up first."""
from __future__ import annotations

import os
import shutil
import subprocess
import unittest

from support import WorkbookTest

AUTHORS = {"GIT_AUTHOR_NAME": "Workbook Authors", "GIT_AUTHOR_EMAIL": "authors@example.org",
           "GIT_COMMITTER_NAME": "Workbook Authors", "GIT_COMMITTER_EMAIL": "authors@example.org"}
LEARNER = {"GIT_AUTHOR_NAME": "A Learner", "GIT_AUTHOR_EMAIL": "learner@example.org",
           "GIT_COMMITTER_NAME": "A Learner", "GIT_COMMITTER_EMAIL": "learner@example.org"}
STAGE2 = "exercises/01_elementwise/2_vectorized.cu"


@unittest.skipIf(shutil.which("git") is None, "git is not installed")
class Reset(WorkbookTest):
    copy_root = True

    def git(self, who: dict, *args: str) -> str:
        env = dict(os.environ, HOME=str(self.tmp), GIT_CONFIG_NOSYSTEM="1", **who)
        return subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True, text=True,
                              env=env).stdout

    def setUp(self):
        super().setUp()
        self.git(AUTHORS, "init", "-q")
        self.git(AUTHORS, "add", ".")
        self.git(AUTHORS, "commit", "-q", "-m", "the workbook")
        self.skeleton = (self.root / STAGE2).read_text()

    def reset(self, *args: str, who: dict = LEARNER):
        return self.cli("reset", *args, env=dict(HOME=str(self.tmp), GIT_CONFIG_NOSYSTEM="1", **who))

    def backups(self) -> list:
        return sorted((self.root / "exercises/.backup").glob("*/01_elementwise/*.cu"))

    def test_uncommitted_work_is_backed_up_and_the_skeleton_restored(self):
        (self.root / STAGE2).write_text(self.skeleton + "// my kernel\n")
        result = self.reset("1", "--stage", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((self.root / STAGE2).read_text(), self.skeleton)
        [backup] = self.backups()
        self.assertEqual(backup.read_text(), self.skeleton + "// my kernel\n")
        self.assertIn("your version is in exercises/.backup/", result.stdout)
        self.assertIn("To undo: cp", result.stdout)

    def test_the_learners_commits_do_not_count_as_the_skeleton(self):
        (self.root / STAGE2).write_text("// my committed kernel\n")
        self.git(LEARNER, "commit", "-q", "-am", "my stage 2")
        result = self.reset("1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((self.root / STAGE2).read_text(), self.skeleton)
        self.assertEqual([b.read_text() for b in self.backups()], ["// my committed kernel\n"])

    def test_a_later_skeleton_from_the_authors_wins(self):
        (self.root / STAGE2).write_text("// my committed kernel\n")
        self.git(LEARNER, "commit", "-q", "-am", "my stage 2")
        (self.root / STAGE2).write_text(self.skeleton + "// clearer TODO\n")
        self.git(AUTHORS, "commit", "-q", "-am", "better skeleton")
        (self.root / STAGE2).write_text("// my new attempt\n")
        result = self.reset("1", "--stage", "2")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((self.root / STAGE2).read_text(), self.skeleton + "// clearer TODO\n")

    def test_every_commit_mine_means_the_commit_that_added_it(self):
        # A copy put under git by its owner: the import and the work are both the owner's commits.
        (self.root / STAGE2).write_text("// my committed kernel\n")
        self.git(AUTHORS, "commit", "-q", "-am", "my stage 2")
        result = self.reset("1", "--stage", "2", who=AUTHORS)
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertEqual((self.root / STAGE2).read_text(), self.skeleton)

    def test_missing_file_is_restored_and_untouched_ones_left_alone(self):
        (self.root / STAGE2).unlink()
        stage1 = self.root / "exercises/01_elementwise/1_naive.cu"
        before = stage1.stat().st_mtime_ns
        result = self.reset("1")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertTrue((self.root / STAGE2).exists())
        self.assertIn("it was missing", result.stdout)
        self.assertIn("already is the skeleton, left alone", result.stdout)
        self.assertEqual(stage1.stat().st_mtime_ns, before)
        self.assertEqual(self.backups(), [])

    def test_nothing_to_do(self):
        result = self.reset("1")
        self.assertEqual(result.returncode, 0)
        self.assertIn("Nothing to reset", result.stdout)

    def test_bad_input_changes_nothing(self):
        (self.root / STAGE2).write_text("// mine\n")
        for args, sentence in ((("9",), "There is no chapter 9"),
                               (("1", "--stage", "5"), "Chapter 1 has no stage 5")):
            result = self.reset(*args)
            self.assertEqual(result.returncode, 2)
            self.assertIn(sentence, result.stderr)
        self.assertEqual((self.root / STAGE2).read_text(), "// mine\n")

    def test_without_git_history_nothing_changes(self):
        shutil.rmtree(self.root / ".git")
        (self.root / STAGE2).write_text("// mine\n")
        result = self.reset("1")
        self.assertEqual(result.returncode, 2)
        self.assertIn("not a git clone", result.stderr)
        self.assertIn("nothing was changed", result.stderr)
        self.assertEqual((self.root / STAGE2).read_text(), "// mine\n")


if __name__ == "__main__":
    unittest.main()
