"""make drill: the blank skeleton holds the contract and nothing else, the clock, grading on demand
(with recorded grader output instead of a GPU), time-to-pass in the progress table."""
from __future__ import annotations

import json
import os
import random
import shutil
import subprocess
import time
import unittest
from unittest import mock

from support import Args, WorkbookTest, fixture

from wbtools import core, drill, progress
from wbtools import state as st


def drill_args(**values) -> Args:
    defaults = {"chapter": "1", "stage": None, "grade": False, "stop": False, "no_wait": True, "seed": 1}
    defaults.update(values)
    return Args(**defaults)


def record_from(name: str, stage: int) -> tuple[dict, str]:
    output = fixture(name)
    record = next(r for r in core.parse_results(output) if r["stage"] == stage)
    return record, output


class Skeleton(WorkbookTest):
    def test_contract_only(self):
        meta = core.load_chapter(1)
        header = (self.root / "chapters/01_elementwise/stages.cuh").read_text()
        for stage in meta["stages"]:
            text = drill.blank_skeleton(meta, stage, time.time())
            with self.subTest(stage=stage["id"]):
                self.assertIn(f"void {stage['launcher']}(", text)
                self.assertIn("(void)stream;", text)
                self.assertIn('#include "01_elementwise/stages.cuh"', text)
                self.assertIn("namespace WORKBOOK_TRACK {", text)
                self.assertIn("Checked:", text)
                self.assertIn("Common input contract for this chapter:", text)
                for hint in stage["hints"]:
                    self.assertNotIn(hint[:40], text)
                self.assertNotIn("TODO", text)
                self.assertNotIn("__global__", text)
                self.assertIn(stage["launcher"], header)
        stage2 = drill.blank_skeleton(meta, meta["stages"][1], time.time())
        self.assertNotIn("One float4 per thread moves 16 bytes", stage2)   # the lesson stays out
        self.assertIn("16-byte aligned", stage2)                            # the alignment contract stays in

    def test_signature_parsing(self):
        self.assertEqual(drill.split_parameters("const float* a, std::pair<int, int> p, int n = 3"),
                         ["const float* a", "std::pair<int, int> p", "int n = 3"])
        self.assertEqual(drill.parameter_name("const float* __restrict__ a"), "a")
        self.assertEqual(drill.parameter_name("float x[4]"), "x")
        self.assertIsNone(drill.parameter_name("cudaStream_t"))
        self.assertEqual(drill.strip_default("int n = f(1, 2)"), "int n")

    @unittest.skipIf(not (shutil.which("nvcc") or os.path.exists("/usr/local/cuda/bin/nvcc")), "nvcc is not installed")
    def test_skeleton_compiles(self):
        meta = core.load_chapter(1)
        stage = meta["stages"][2]
        source = self.tmp / "drill.cu"
        source.write_text(drill.blank_skeleton(meta, stage, time.time()))
        nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
        result = subprocess.run([nvcc, "-std=c++17", "-DWORKBOOK_TRACK=learner", "-I", str(self.root / "chapters"),
                                 "-c", str(source), "-o", str(self.tmp / "drill.o")], capture_output=True, text=True)
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)


class Drill(WorkbookTest):
    copy_root = True

    def configured(self):
        (self.build / "CMakeCache.txt").write_text("# a configured build\n")

    def start(self, stage: str = "2") -> str:
        code, out, _ = self.capture(drill.command_drill, drill_args(stage=stage))
        self.assertEqual(code, 0)
        return out

    def test_start_writes_the_file_and_starts_the_clock(self):
        out = self.start()
        path = self.root / "drill/01_elementwise/2_vectorized.cu"
        self.assertTrue(path.exists())
        self.assertIn("drill/01_elementwise/2_vectorized.cu", out)
        active = st.load()["drills"]["active"]
        self.assertEqual((active["chapter"], active["stage"]), (1, 2))
        self.assertLess(abs(active["started"] - time.time()), 5)
        # The learner's exercise is not touched.
        exercise = (self.root / "exercises/01_elementwise/2_vectorized.cu").read_text()
        self.assertIn("TODO", exercise)

    def test_one_drill_at_a_time(self):
        self.start("2")
        with self.assertRaises(core.UserError) as raised:
            drill.command_drill(drill_args(stage="3"))
        self.assertIn("A drill is running (chapter 1, stage 2", str(raised.exception))
        _, out, _ = self.capture(drill.command_drill, drill_args(stage=None))
        self.assertIn("Resuming", out)

    def test_grade_needs_a_build(self):
        self.start()
        with self.assertRaises(core.UserError) as raised:
            self.capture(drill.command_drill, drill_args(grade=True))
        self.assertIn("There is no build yet", str(raised.exception))

    def test_grade_without_a_drill(self):
        with self.assertRaises(core.UserError) as raised:
            drill.command_drill(drill_args(grade=True))
        self.assertIn("No drill is running", str(raised.exception))

    def test_compile_error_then_no_gpu_then_pass(self):
        self.configured()
        self.start()
        built = []

        def build(target):
            built.append(target)
            return False, "drill/01_elementwise/2_vectorized.cu(30): error: expected a \";\"\n"

        with mock.patch.object(core, "build_target", build):
            code, out, _ = self.capture(drill.command_drill, drill_args(grade=True))
        self.assertEqual(code, 1)
        self.assertEqual(built, ["ch01_grade_drill"])
        self.assertIn("error: expected", out)
        self.assertIn("does not compile yet", out)

        skipped = record_from("ch01_exercises_no_gpu.log", 2)
        with mock.patch.object(core, "build_target", lambda target: (True, "")), \
                mock.patch.object(core, "run_stage", lambda *a, **k: skipped):
            code, out, _ = self.capture(drill.command_drill, drill_args(grade=True))
        self.assertEqual(code, 1)
        self.assertIn("Grading needs an NVIDIA GPU", out)
        self.assertIsNotNone(st.load()["drills"]["active"])

        state = st.load()
        state["drills"]["active"]["started"] = time.time() - 125   # the clock ran for about two minutes
        st.save(state)
        passed = record_from("ch01_exercises_h200_mixed.log", 2)
        graders = []

        def run(grader, stage, timeout, extra_env=None):
            graders.append((grader.name, stage))
            return passed

        with mock.patch.object(core, "build_target", lambda target: (True, "")), \
                mock.patch.object(core, "run_stage", run):
            code, out, _ = self.capture(drill.command_drill, drill_args(grade=True))
        self.assertEqual(code, 0, out)
        self.assertEqual(graders, [("ch01_grade_drill", 2)])
        self.assertIn("Passed in 2m0", out)
        self.assertIn("grading attempt 3", out)
        state = st.load()
        self.assertIsNone(state["drills"]["active"])
        history = st.drill_history(state, 1, 2)
        self.assertAlmostEqual(history["best"], 125, delta=5)
        self.assertFalse((self.root / "drill/01_elementwise/2_vectorized.cu").exists())
        self.assertEqual(len(list((self.root / "drill/done/01_elementwise").glob("2_vectorized.*.passed.cu"))), 1)
        _, table, _ = self.capture(progress.command_progress, Args(chapter="1"))
        row = next(l for l in table.splitlines() if l.strip().startswith("2  float4"))
        self.assertIn("2m0", row)

    def test_failure_shows_the_graders_explanation(self):
        self.configured()
        self.start("4")
        wrong = record_from("ch01_exercises_h200_mixed.log", 4)
        with mock.patch.object(core, "build_target", lambda target: (True, "")), \
                mock.patch.object(core, "run_stage", lambda *a, **k: wrong):
            code, out, _ = self.capture(drill.command_drill, drill_args(grade=True))
        self.assertEqual(code, 1)
        self.assertIn("likely cause: the tail", out)
        self.assertIn("wrong result", out)

    def test_stop_keeps_the_file(self):
        self.start()
        (self.root / "drill/01_elementwise/2_vectorized.cu").write_text("// half way\n")
        code, out, _ = self.capture(drill.command_drill, drill_args(stop=True))
        self.assertEqual(code, 0)
        self.assertIn("stopped", out)
        [kept] = (self.root / "drill/done/01_elementwise").glob("2_vectorized.*.stopped.cu")
        self.assertEqual(kept.read_text(), "// half way\n")
        self.assertIsNone(st.load()["drills"]["active"])

    def test_restart_moves_an_old_file_aside(self):
        folder = self.root / "drill/01_elementwise"
        folder.mkdir(parents=True)
        (folder / "2_vectorized.cu").write_text("// an old attempt\n")
        out = self.start()
        self.assertIn("an earlier drill file was moved", out)
        [old] = (self.root / "drill/done/01_elementwise").glob("*.earlier.cu")
        self.assertEqual(old.read_text(), "// an old attempt\n")

    def test_pick_prefers_stages_not_mastered_and_already_learned(self):
        meta = core.load_chapter(1)
        state = st.load()
        st.record_results(1, {3: {"stage": 3, "status": "passed"}})
        state = st.load()
        for stage in (1, 2, 4):
            st.record_drill_pass(state, 1, stage, 100.0 + stage, 1)
        for seed in range(5):
            picked = drill.pick([meta], state, random.Random(seed))
            self.assertEqual(picked[1]["id"], 3)
        st.record_drill_pass(state, 1, 3, 50.0, 1)
        picked = drill.pick([meta], state, random.Random(0))
        self.assertEqual(picked[1]["id"], 4)   # every stage mastered: the slowest best time

    def test_bad_input(self):
        for values, sentence in (({"chapter": "8"}, "There is no chapter 8"),
                                 ({"stage": "0"}, "Chapter 1 has no stage 0"),
                                 ({"chapter": None, "stage": "2"}, "needs a chapter too")):
            with self.assertRaises(core.UserError) as raised:
                drill.command_drill(drill_args(**values))
            self.assertIn(sentence, str(raised.exception))
        self.assertFalse((self.root / "drill").exists())

    def test_command_line_without_a_terminal(self):
        result = self.cli("drill", "1", "--stage", "1", stdin="")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("make drill-grade", result.stdout)
        self.assertTrue((self.root / "drill/01_elementwise/1_naive.cu").exists())
        state = json.loads((self.build / "progress.json").read_text())
        self.assertEqual(state["drills"]["active"]["stage"], 1)


if __name__ == "__main__":
    unittest.main()
