"""Every chapter and every stage carries an interview tag in stages.json (docs/tools.md, "Interview
tags"): how often interviews ask for it, whether it is written from memory, and the source of that
judgement. The drill weights its choice by "asked"; `make progress` and the chapter pages show it."""
from __future__ import annotations

import json
import subprocess
import sys
import unittest

from support import REPO

LEVELS = ("high", "medium", "low")


def check_tag(test: unittest.TestCase, owner: dict, where: str) -> None:
    test.assertEqual(list(owner)[-1], "interview", f"{where}: 'interview' must be the last key")
    tag = owner["interview"]
    test.assertEqual(set(tag), {"asked", "by_hand", "source"}, where)
    test.assertIn(tag["asked"], LEVELS, where)
    test.assertIsInstance(tag["by_hand"], bool, where)
    test.assertIsInstance(tag["source"], str, where)
    test.assertGreater(len(tag["source"].strip()), 10, f"{where}: say where the judgement comes from")


class InterviewTags(unittest.TestCase):
    def test_every_chapter_and_stage_is_tagged(self):
        folders = sorted(p for p in (REPO / "chapters").iterdir() if (p / "stages.json").is_file())
        self.assertGreater(len(folders), 0)
        for folder in folders:
            meta = json.loads((folder / "stages.json").read_text())
            with self.subTest(chapter=folder.name):
                check_tag(self, meta, f"{folder.name}/stages.json")
                for stage in meta["stages"]:
                    check_tag(self, stage, f"{folder.name}/stages.json stage {stage['id']}")

    def test_chapter_readmes_show_the_tags_of_stages_json(self):
        result = subprocess.run([sys.executable, str(REPO / "tools" / "interview_tags.py"), "--check"],
                                capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


if __name__ == "__main__":
    unittest.main()
