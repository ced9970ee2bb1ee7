"""`selfcheck --static`: each kind of problem is found and told in one sentence, on a private copy of
chapter 1 given the metadata of the naming rule (chapter "op", stage overrides)."""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys

from support import TOOLS, WorkbookTest

from wbtools import core, static_check

CHAPTER = "01_elementwise"


class StaticCheck(WorkbookTest):
    copy_root = True

    def setUp(self):
        super().setUp()
        self.meta_path = self.root / "chapters" / CHAPTER / "stages.json"
        (self.root / "catalog" / CHAPTER).mkdir(parents=True)

    def problems(self) -> list[str]:
        return static_check.problems()

    def test_a_consistent_chapter_has_no_problem(self):
        self.assertEqual(self.problems(), [])
        _, out, _ = self.capture(static_check.main)
        self.assertIn("1 chapters, no problems.", out)

    def test_missing_unlisted_and_skeleton_without_todo(self):
        meta = core.load_chapter(1)
        first, second = meta["stages"][0]["file"], meta["stages"][1]["file"]
        (self.root / "solutions" / CHAPTER / f"{first}.cu").unlink()
        (self.root / "exercises" / CHAPTER / "9_extra.cu").write_text("// TODO\n")
        skeleton = self.root / "exercises" / CHAPTER / f"{second}.cu"
        skeleton.write_text(skeleton.read_text().replace("TODO", "note"))
        found = self.problems()
        self.assertIn(f"solutions/{CHAPTER}/{first}.cu is missing: stage 1 of chapter 1 is listed in "
                      f"chapters/{CHAPTER}/stages.json.", found)
        self.assertIn(f"exercises/{CHAPTER}/9_extra.cu is not a stage of chapters/{CHAPTER}/stages.json: list it "
                      "there or remove it.", found)
        self.assertTrue(any(p.startswith(f"exercises/{CHAPTER}/{second}.cu has no TODO") for p in found), found)
        self.assertEqual(len(found), 3, found)

    def test_launcher_declaration(self):
        meta = json.loads(self.meta_path.read_text())
        meta["stages"][1]["op"] = "sub"                     # derived: sub_<file>, declared nowhere
        self.meta_path.write_text(json.dumps(meta))
        self.assertEqual(self.problems(), [f"chapter 1 stage 2: the launcher sub_{meta['stages'][1]['file']} is not "
                                           f"declared in chapters/{CHAPTER}/stages.cuh."])

    def test_min_cc_is_read_from_the_stage_else_the_chapter(self):
        meta = json.loads(self.meta_path.read_text())
        meta["min_cc"] = "8.0"
        meta["stages"][1]["min_cc"] = "9.0a"
        self.meta_path.write_text(json.dumps(meta))
        stages = core.load_chapter(1)["stages"]
        self.assertEqual([s["min_cc"] for s in stages[:2]], ["8.0", "9.0a"])
        self.assertEqual(self.problems(), [])

    def test_a_min_cc_that_is_not_a_compute_capability_is_refused(self):
        for wrong in (8.0, "8", "sm_90", "9.0b"):
            meta = json.loads(self.meta_path.read_text())
            meta["stages"][0]["min_cc"] = wrong
            self.meta_path.write_text(json.dumps(meta))
            with self.assertRaises(core.UserError) as raised:
                core.load_chapter(1)
            self.assertIn(f"stage 1's \"min_cc\" is {wrong!r}; it is a compute capability as a string",
                          str(raised.exception))

    def test_a_launcher_named_in_stages_json_is_refused(self):   # the rule derives it; no second source
        meta = json.loads(self.meta_path.read_text())
        meta["stages"][0]["launcher"] = "add_first"
        self.meta_path.write_text(json.dumps(meta))
        self.assertEqual(self.problems(), [f"chapters/{CHAPTER}/stages.json: stage 1 has a \"launcher\"; remove it: "
                                           "the launcher's name is derived, <op>_<file>."])

    def test_a_chapter_without_op_is_named_once(self):
        meta = json.loads(self.meta_path.read_text())
        meta.pop("op")
        for stage in meta["stages"]:
            stage.pop("op", None)
        self.meta_path.write_text(json.dumps(meta))
        self.assertEqual(self.problems(), [f"chapters/{CHAPTER}/stages.json: the chapter needs an \"op\" (lower "
                                           "case, e.g. \"transpose\"): every launcher is named <op>_<file>."])

    def test_catalog_headers_and_stages(self):
        folder = self.root / "catalog" / CHAPTER
        (folder / "2_fine.cu").write_text('// expect: wrong "the tail"\n')
        (folder / "9_no_such_stage.cu").write_text('// expect: wrong "x"\n')
        (folder / "3_bad_header.cu").write_text("// expect: wrong\n")
        (self.root / "catalog" / "99_nothing").mkdir()
        found = self.problems()
        self.assertIn(f"catalog/{CHAPTER}/9_no_such_stage.cu: chapter 1 has no stage 9.", found)
        bad = f"catalog/{CHAPTER}/3_bad_header.cu: `// expect: wrong` is not"
        self.assertTrue(any(p.startswith(bad) for p in found), found)
        self.assertIn("catalog/99_nothing/ is not the folder of a chapter (chapters/<NN_name>/stages.json).", found)
        self.assertEqual(len(found), 3, found)

    def test_paths_of_this_machine(self):
        notes = self.root / "chapters" / CHAPTER / "notes.md"
        notes.write_text(f"line one\nsee {self.root}/exercises for the files\n")
        (self.root / "chapters" / CHAPTER / "example.md").write_text("a made-up /home/someone/workbook path\n")
        found = self.problems()
        self.assertEqual(found, [f"chapters/{CHAPTER}/notes.md:2 names {self.root}/, a path of this machine: write it "
                                 "relative to the workbook."])

    def test_the_command_line_exits_1_on_a_problem(self):
        shutil.rmtree(self.root / "solutions" / CHAPTER)
        result = self.cli_static()
        self.assertEqual(result.returncode, 1)
        self.assertIn("problems.", result.stdout)

    def cli_static(self):
        env = dict(os.environ, WORKBOOK_ROOT=str(self.root), PYTHONDONTWRITEBYTECODE="1")
        return subprocess.run([sys.executable, str(TOOLS / "selfcheck.py"), "--static"], capture_output=True,
                              text=True, env=env, timeout=120)
