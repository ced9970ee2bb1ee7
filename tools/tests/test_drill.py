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
            launcher = core.launcher(meta, stage)
            with self.subTest(stage=stage["id"]):
                self.assertIn(f"void {launcher}(", text)
                self.assertIn("(void)stream;", text)
                self.assertIn('#include "01_elementwise/stages.cuh"', text)
                self.assertIn("namespace WORKBOOK_TRACK {", text)
                self.assertIn("Checked:", text)
                self.assertIn("Common input contract for this chapter:", text)
                for hint in stage["hints"]:
                    self.assertNotIn(hint[:40], text)
                self.assertNotIn("TODO", text)
                self.assertNotIn("__global__", text)
                self.assertNotIn("template", text)   # the skeleton's kernel templates stay out
                self.assertIn(launcher, header)
        stage2 = drill.blank_skeleton(meta, meta["stages"][1], time.time())
        self.assertNotIn("One float4 per thread moves 16 bytes", stage2)   # the lesson stays out
        self.assertIn("16-byte aligned", stage2)                            # the alignment contract stays in

    def test_every_launcher_of_a_stage_from_its_skeleton(self):
        skeleton = """// Chapter 9, stage 1: a skeleton.
#include "09_x/stages.cuh"

namespace WORKBOOK_TRACK {

namespace {

template <int k>
__global__ void helper_kernel(float* y)
{
    // TODO: the idea, in a sentence.
}

void launch(float* y, cudaStream_t stream)
{
    (void)y, (void)stream;
}

}  // namespace

// The float launcher.
void x_1_float(float* y, std::int64_t n,
               cudaStream_t stream)
{
    // TODO: launch helper_kernel.
    launch(y, stream);
    (void)y, (void)n, (void)stream;
}

void x_1_half(__half* y, std::int64_t n, cudaStream_t stream)
{
    (void)y, (void)n, (void)stream;
}

}  // namespace WORKBOOK_TRACK
"""
        self.assertEqual(drill.public_launchers(skeleton), [
            "void x_1_float(float* y, std::int64_t n,",
            "               cudaStream_t stream)",
            "{",
            "    (void)y, (void)n, (void)stream;",
            "}",
            "",
            "void x_1_half(__half* y, std::int64_t n, cudaStream_t stream)",
            "{",
            "    (void)y, (void)n, (void)stream;",
            "}"])

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

    def test_the_skeleton_is_the_blank_level_not_the_learners_file(self):   # on the private copy of chapter 1
        meta = core.load_chapter(1)
        stage = meta["stages"][0]
        skeleton = core.exercise_path(meta, stage).read_text()
        solved = skeleton.replace("(void)a, (void)b, (void)c, (void)n, (void)stream;", "my_launch(a, b, c, n);")
        core.exercise_path(meta, stage).write_text(solved)
        text = drill.blank_skeleton(meta, stage, time.time())
        self.assertIn("(void)stream;", text)
        self.assertNotIn("my_launch", text)
        self.assertNotIn("TODO", text)   # the blank level: no outline sentence, no guided step

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
        row = next(line for line in table.splitlines() if line.strip().startswith("2  float4"))
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

    def test_pick_weights_by_interview_tag_exercises_and_drill_history(self):
        meta = core.load_chapter(1)
        for stage, asked in zip(meta["stages"], ("high", "low", None, "medium")):
            stage.pop("interview", None)
            if asked:
                stage["interview"] = {"asked": asked, "by_hand": True, "source": "a test"}
        state = st.load()
        self.assertEqual([drill.weight(state, meta, s) for s in meta["stages"]], [3.0, 1.0, 2.0, 2.0])
        st.record_results(1, {2: {"stage": 2, "status": "passed"}})   # passed in the exercises: double
        state = st.load()
        st.record_drill_pass(state, 1, 1, 100.0, 1)                    # passed as a drill: a quarter
        self.assertEqual([drill.weight(state, meta, s) for s in meta["stages"]], [0.75, 2.0, 2.0, 2.0])
        rng = random.Random(7)
        counts = {s["id"]: 0 for s in meta["stages"]}
        for _ in range(6750):
            counts[drill.pick([meta], state, rng)[1]["id"]] += 1
        self.assertAlmostEqual(counts[1] / 6750, 0.75 / 6.75, delta=0.02)
        self.assertAlmostEqual(counts[3] / 6750, 2.0 / 6.75, delta=0.03)

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


class PaperDrill(WorkbookTest):
    """make drill PAPER=1: no compiling for a set time, then one grading, whatever it says."""
    copy_root = True

    def start(self, **values) -> str:
        (self.build / "CMakeCache.txt").write_text("# a configured build\n")
        code, out, _ = self.capture(drill.command_drill, drill_args(stage="2", paper=True, **values))
        self.assertEqual(code, 0)
        return out

    def running(self):
        return drill.active_drill(st.load())

    def test_start_on_paper(self):
        out = self.start()
        self.assertIn("On paper: write it in drill/01_elementwise/2_vectorized.cu without compiling", out)
        self.assertIn("(20 minutes) it is built and graded once", out)
        self.assertIn("Hand it in with `make drill-grade`", out)
        active, _, _ = self.running()
        self.assertEqual(active["paper_minutes"], 20.0)
        text = (self.root / "drill/01_elementwise/2_vectorized.cu").read_text()
        self.assertIn("on paper: write it without compiling or running it. In 20 minutes", text)
        self.assertIn("void add_2_vectorized(", text)

    def test_time_is_up_then_one_grading_that_fails_ends_the_drill(self):
        self.start(minutes="5")
        active, meta, stage = self.running()
        waited = []

        def wait(deadline):   # a fake clock: the five minutes pass at once
            waited.append(deadline - active["started"])
            return "time"

        wrong = record_from("ch01_exercises_h200_mixed.log", 4)
        with mock.patch.object(core, "build_target", lambda target: (True, "")), \
                mock.patch.object(core, "run_stage", lambda *a, **k: wrong):
            code, out, _ = self.capture(drill.paper, active, meta, stage, 60.0, wait)
        self.assertEqual(code, 1)
        self.assertEqual(waited, [300.0])
        self.assertIn("Time is up: building and grading your drill once.", out)
        self.assertIn("The drill ends here (one grading on paper)", out)
        self.assertIsNone(st.load()["drills"]["active"])
        self.assertEqual(st.drill_history(st.load(), 1, 2), {})
        self.assertEqual(len(list((self.root / "drill/done/01_elementwise").glob("*.paper-failed.cu"))), 1)

    def test_a_compile_error_on_paper_is_the_verdict(self):
        self.start()
        with mock.patch.object(core, "build_target", lambda target: (False, "x.cu(3): error: oops\n")):
            code, out, _ = self.capture(drill.command_drill, drill_args(grade=True))
        self.assertEqual(code, 1)
        self.assertIn("On paper: does not compile", out)
        self.assertIsNone(st.load()["drills"]["active"])

    def test_handed_in_early_and_passed(self):
        self.start()
        active, meta, stage = self.running()
        passed = record_from("ch01_exercises_h200_mixed.log", 2)
        with mock.patch.object(core, "build_target", lambda target: (True, "")), \
                mock.patch.object(core, "run_stage", lambda *a, **k: passed), \
                mock.patch.object(drill, "now", lambda: active["started"] + 610):
            code, out, _ = self.capture(drill.paper, active, meta, stage, 60.0, lambda deadline: "handed in")
        self.assertEqual(code, 0, out)
        self.assertIn("Handed in", out)
        self.assertIn("Passed in 10m10s (on paper, first time", out)
        self.assertAlmostEqual(st.drill_history(st.load(), 1, 2)["best"], 610, delta=1)

    def test_waiting_uses_the_clock_and_enter(self):
        with mock.patch.object(drill, "now", lambda: 1000.0):
            _, out, _ = self.capture(drill.wait_for_hand_in, 999.0)
            self.assertEqual(out, "")
            self.assertEqual(drill.wait_for_hand_in(999.0), "time")
        stdin = mock.Mock()
        stdin.readline.return_value = "\n"
        with mock.patch.object(drill, "now", lambda: 1000.0), mock.patch.object(drill.sys, "stdin", stdin), \
                mock.patch("select.select", lambda r, w, x, t: (r, [], [])):
            result, out, _ = self.capture(drill.wait_for_hand_in, 1000.0 + 4 * 60)
        self.assertEqual(result, "handed in")
        self.assertIn("[04:00 left] Enter hands it in now.", out)

    def test_bad_minutes(self):
        for minutes in ("0", "x", "9999"):
            with self.assertRaises(core.UserError) as raised:
                drill.command_drill(drill_args(paper=True, minutes=minutes))
            self.assertIn("is not a number of minutes from 1 to 600", str(raised.exception))

    def test_command_line(self):
        result = self.cli("drill", "1", "--stage", "1", "--paper", "--minutes", "5", stdin="")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("(5 minutes) it is built and graded once", result.stdout)


if __name__ == "__main__":
    unittest.main()
