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
        meta = json.loads(self.meta_path.read_text())
        meta["op"] = "add"
        for stage in meta["stages"]:   # the rule's names for the launchers that stages.cuh declares
            declared = core.launcher(meta, stage)
            stage.pop("function", None)
            stage["op"] = declared.partition(f"_{stage['id']}_")[0]   # add_act_3_fused: op add_act, file 3_fused
            stage["launcher"], stage["file"] = declared, declared[len(stage["op"]) + 1:]
            for track in ("exercises", "solutions"):
                folder = self.root / track / CHAPTER
                for old in folder.glob(f"{stage['id']}_*.cu"):
                    old.rename(folder / f"{stage['file']}.cu")
        self.meta_path.write_text(json.dumps(meta))
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

    def test_launcher_rule_and_declaration(self):
        meta = json.loads(self.meta_path.read_text())
        meta["stages"][0]["launcher"] = "add_first"       # breaks the rule, and is declared nowhere
        meta["stages"][1].pop("launcher")
        meta["stages"][1]["op"] = "sub"                     # derived: sub_<file>, declared nowhere
        self.meta_path.write_text(json.dumps(meta))
        found = self.problems()
        file1 = meta["stages"][0]["file"]
        self.assertIn(f"chapter 1 stage 1: the launcher add_first breaks the rule <op>_<file stem>: it should be "
                      f"{meta['stages'][0]['op']}_{file1}.", found)
        self.assertIn(f"chapter 1 stage 1: the launcher add_first is not declared in chapters/{CHAPTER}/stages.cuh.",
                      found)
        self.assertIn(f"chapter 1 stage 2: the launcher sub_{meta['stages'][1]['file']} is not declared in "
                      f"chapters/{CHAPTER}/stages.cuh.", found)

    def test_a_chapter_without_op_is_named_once(self):
        meta = json.loads(self.meta_path.read_text())
        meta.pop("op")
        for stage in meta["stages"]:
            stage.pop("op")
        self.meta_path.write_text(json.dumps(meta))
        found = self.problems()
        self.assertEqual(found, [f"chapters/{CHAPTER}/stages.json gives no \"op\" for the chapter: its launchers "
                                 "cannot be checked against the rule <op>_<file stem>."])

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
