"""make watch-chapter: noticing saves (inotify and polling), grading the saved stage, one status line."""
from __future__ import annotations

import shutil
import threading
import time
import unittest
from unittest import mock

from support import Args, WorkbookTest, fixture

from wbtools import core, watch
from wbtools import state as st


def watch_args(**values) -> Args:
    defaults = {"chapter": "1", "stage": None, "poll": True, "rounds": 1}
    defaults.update(values)
    return Args(**defaults)


def save_later(path, delay: float = 0.6) -> threading.Thread:
    def write():
        time.sleep(delay)
        with open(path, "a") as handle:
            handle.write("// saved\n")
    thread = threading.Thread(target=write)
    thread.start()
    return thread


class Watchers(WorkbookTest):
    copy_root = True

    def files(self):
        return sorted((self.root / "exercises/01_elementwise").glob("*.cu"))

    def test_polling_sees_a_save(self):
        files = self.files()
        watcher = watch.PollingWatcher(files, interval=0.1)
        thread = save_later(files[2], 0.3)
        changed = watcher.wait(timeout=5)
        thread.join()
        self.assertEqual(changed, [files[2]])

    def test_polling_times_out_quietly(self):
        self.assertEqual(watch.PollingWatcher(self.files(), interval=0.05).wait(timeout=0.2), [])

    @unittest.skipIf(shutil.which("inotifywait") is None, "inotifywait (inotify-tools) is not installed")
    def test_inotify_sees_a_save_and_ignores_other_files(self):
        files = self.files()
        watcher = watch.InotifyWatcher(files[0].parent, files)
        try:
            (files[0].parent / "notes.txt").write_text("not a stage\n")
            thread = save_later(files[1], 0.3)
            changed = watcher.wait(timeout=10)
            thread.join()
        finally:
            watcher.close()
        self.assertEqual(changed, [files[1]])

    def test_fallback_note_without_inotify(self):
        with mock.patch.object(watch.shutil, "which", lambda name: None):
            watcher, note = watch.make_watcher(self.files()[0].parent, self.files())
        self.assertIsInstance(watcher, watch.PollingWatcher)
        self.assertIn("inotify-tools", note)


class StatusLine(unittest.TestCase):
    def test_tflops_chapter(self):
        line = watch.status_line({"id": 4, "title": "tiled"},
                                 {"status": "passed", "speedup": 2.5, "required": 2.0, "tflops": 41.27,
                                  "pct_cublas": 82.6}, "TFLOP/s")
        self.assertIn("stage 4: passed", line)
        self.assertIn("x2.50 over the previous stage (needed x2.00)", line)
        self.assertIn("41.3 TFLOP/s = 83% of cuBLAS", line)

    def test_first_stage_has_no_speed_up(self):
        line = watch.status_line({"id": 1, "title": "naive"}, {"status": "passed", "gbps": 3461.0, "pct_copy": 81.8},
                                 "GB/s")
        self.assertNotIn("over the previous stage", line)
        self.assertIn("3461 GB/s = 82% of copy bandwidth", line)


class WatchChapter(WorkbookTest):
    copy_root = True

    def setUp(self):
        super().setUp()
        (self.build / "CMakeCache.txt").write_text("# a configured build\n")

    def run_watch(self, record_stage: int, log: str, build_ok: bool = True, **values):
        output = fixture(log)
        record = next(r for r in core.parse_results(output) if r["stage"] == record_stage)
        calls = []

        def build(target):
            calls.append(("build", target))
            return build_ok, "" if build_ok else "exercises/01_elementwise/3_fused.cu(12): error: boom\n"

        def run(grader, stage, timeout, extra_env=None):
            calls.append(("grade", grader.name, stage))
            return record, output

        with mock.patch.object(core, "build_target", build), mock.patch.object(core, "run_stage", run):
            code, out, _ = self.capture(watch.command_watch, watch_args(**values))
        return code, out, calls

    def test_grades_the_first_stage_not_passed_and_records_it(self):
        st.record_results(1, {1: {"stage": 1, "status": "passed"}, 2: {"stage": 2, "status": "passed"}})
        code, out, calls = self.run_watch(3, "ch01_exercises_h200_mixed.log")
        self.assertEqual(code, 0)
        self.assertEqual(calls, [("build", "ch01"), ("grade", "ch01_grade_exercises", 3)])
        status = out.strip().splitlines()[-1]
        self.assertIn("stage 3: correct, too slow", status)
        self.assertIn("x1.15", status)
        self.assertIn("needed x1.34", status)
        self.assertIn("70% of copy bandwidth", status)
        self.assertEqual(st.result(st.load(), 1, 3)["status"], "too-slow")

    def test_compile_errors_are_shown(self):
        code, out, calls = self.run_watch(3, "ch01_exercises_h200_mixed.log", build_ok=False, stage="3")
        self.assertEqual(calls, [("build", "ch01")])
        self.assertIn("error: boom", out)
        self.assertIn("stage 3: does not compile", out.strip().splitlines()[-1])

    def test_no_gpu(self):
        code, out, _ = self.run_watch(2, "ch01_exercises_no_gpu.log", stage="2")
        self.assertIn("Grading needs an NVIDIA GPU", out)
        self.assertIsNone(st.result(st.load(), 1, 2))

    def test_a_save_grades_the_saved_stage(self):
        target = self.root / "exercises/01_elementwise/4_half2.cu"
        thread = save_later(target, 1.0)
        code, out, calls = self.run_watch(4, "ch01_exercises_h200_mixed.log", stage="1", rounds=2)
        thread.join()
        self.assertEqual([c for c in calls if c[0] == "grade"],
                         [("grade", "ch01_grade_exercises", 1), ("grade", "ch01_grade_exercises", 4)])
        self.assertIn("likely cause: the tail", out)

    def test_ctrl_c_stops_cleanly(self):
        def interrupted(*args, **kwargs):
            raise KeyboardInterrupt

        with mock.patch.object(watch, "grade_once", interrupted):
            code, out, _ = self.capture(watch.command_watch, watch_args(rounds=None))
        self.assertEqual(code, 0)
        self.assertIn("Stopped watching", out)

    def test_no_build_yet(self):
        (self.build / "CMakeCache.txt").unlink()
        with self.assertRaises(core.UserError) as raised:
            watch.command_watch(watch_args())
        self.assertIn("There is no build yet", str(raised.exception))
        self.assertIn("make check-chapter 1", str(raised.exception))

    def test_bad_chapter(self):
        result = self.cli("watch", "12")
        self.assertEqual(result.returncode, 2)
        self.assertIn("There is no chapter 12", result.stderr)


if __name__ == "__main__":
    unittest.main()
