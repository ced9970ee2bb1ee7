"""make profile-chapter: ncu's raw CSV read, aggregated and tabulated (fixture CSVs in ncu's format), the
permission error, the machine without ncu, and the automatic profile after a "too slow" verdict. A fake
grader (a script that prints WORKBOOK-PROFILE lines) and a fake ncu stand in for the real ones."""
from __future__ import annotations

import os
import stat
import unittest
from pathlib import Path
from unittest import mock

from support import FIXTURES, Args, WorkbookTest, fixture

from wbtools import core, profile


def executable(path: Path, text: str) -> Path:
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path


# A grader in profile mode: one WORKBOOK-PROFILE line, the launch facts of the launcher asked for.
FAKE_GRADER = """#!/usr/bin/env python3
import json, sys
stage, which = int(sys.argv[2]), sys.argv[3]
blocks = {"learner": (65536, 1024), "previous": (65536, 256), "current": (65536, 256)}[which]
label = {"learner": "your stage", "previous": f"reference stage {stage - 1}", "current": f"reference stage {stage}"}
kernel = {"name": "transpose_kernel", "blocks": blocks[0], "threads_per_block": blocks[1], "registers": 18,
          "shared_bytes": 4224, "local_bytes": 0, "occupancy": 1.0, "occupancy_limit": ""}
print("== chapter 5, stage %d ==" % stage)
print("WORKBOOK-PROFILE " + json.dumps({"stage": stage, "which": which, "label": label[which], "kernels": [kernel]}))
"""

# ncu: `--export <report> <grader...>` runs the grader and writes <report>.ncu-rep naming the launcher;
# `--import <file> --csv ...` prints the fixture of that launcher. FAIL_PERMISSION makes it refuse.
FAKE_NCU = """#!/usr/bin/env python3
import os, subprocess, sys
args = sys.argv[1:]
if "--import" in args:
    which = open(args[args.index("--import") + 1]).read().strip()
    sys.stdout.write(open(os.path.join(os.environ["FIXTURES"], f"ncu_ch05_stage4_{which}.csv")).read())
    sys.exit(0)
report = args[args.index("--export") + 1]
grader = args[args.index("--force-overwrite") + 3:]
subprocess.run(grader)
if os.environ.get("FAIL_PERMISSION"):
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
    sys.exit(1)
open(report + ".ncu-rep", "w").write(grader[-1])
"""


class CsvTest(unittest.TestCase):
    def test_reads_every_kernel_with_units_and_thousands_separators(self):
        kernels = profile.parse_ncu_csv("==PROF== Connected to process 4242\n" + fixture("ncu_ch02_stage7_learner.csv"))
        self.assertEqual(len(kernels), 2)
        self.assertEqual(kernels[0]["Kernel Name"], "sum_fixed_grid_kernel(const float *, float *, long)")
        self.assertEqual(kernels[0]["dram__bytes_read.sum"], 268435456.0)
        self.assertEqual(kernels[1]["gpu__time_duration.sum"], 3200.0)
        self.assertNotIn("Grid Size", kernels[0])   # identity columns are not metrics

    def test_units_with_a_prefix_become_base_units(self):
        self.assertEqual(profile.parse_number("1.5", "Kbyte"), 1500.0)
        self.assertEqual(profile.parse_number("2", "usecond"), 2000.0)
        self.assertIsNone(profile.parse_number("n/a", ""))

    def test_permission_error_says_how_to_get_the_counters(self):
        with self.assertRaises(profile.ProfileError) as raised:
            profile.parse_ncu_csv(fixture("ncu_permission_error.txt"))
        self.assertIn("RmProfilingAdminOnly=0", str(raised.exception))
        self.assertIn("ERR_NVGPUCTRPERM", str(raised.exception))

    def test_no_table_is_an_error_with_ncus_last_message(self):
        with self.assertRaises(profile.ProfileError) as raised:
            profile.parse_ncu_csv("==PROF== Connected\n==WARNING== No kernels were profiled.\n")
        self.assertIn("No kernels were profiled", str(raised.exception))


class NoRecordTest(unittest.TestCase):
    def test_no_gpu_emulated_build_and_no_timed_case_are_told_apart(self):
        self.assertEqual(profile.no_profile_reason("WORKBOOK-SKIP: no NVIDIA GPU driver was found.\n"),
                         "Profiling needs an NVIDIA GPU: no NVIDIA GPU driver was found.")
        emulated = 'WORKBOOK-RESULT {"chapter": 5, "stage": 4, "status": "passed", "emulated": true, "summary": ""}\n'
        self.assertIn("CPU emulator", profile.no_profile_reason(emulated))
        self.assertIn("no timed case", profile.no_profile_reason(""))
        crashed = ('WORKBOOK-RESULT {"chapter": 5, "stage": 4, "status": "crashed", '
                   '"summary": "the GPU reported an error"}')
        self.assertIn("stopped before the stage's timed case: the GPU reported", profile.no_profile_reason(crashed))

    def test_a_table_without_its_units_row_keeps_its_first_kernel(self):
        text = fixture("ncu_ch02_stage7_learner.csv").splitlines()
        kernels = profile.parse_ncu_csv("\n".join([text[0]] + text[2:]))
        self.assertEqual(len(kernels), 2)


class AggregateTest(unittest.TestCase):
    def test_stall_reasons_are_per_issued_instruction(self):
        # Nsight Compute's Warp State breakdown. The look-alike smsp__average_warp_latency_issue_stalled_*
        # sums a warp's whole life (hundreds of thousands of cycles in long kernels): two stages with
        # different work per warp could not be compared with it.
        for metric in profile.STALL_METRICS:
            self.assertRegex(metric.value, r"^smsp__average_warps_issue_stalled_[a-z_]+_per_issue_active\.ratio$")
            self.assertIn("per issued instruction", metric.label)

    def test_counts_add_ratios_divide_the_sums_rates_weigh_by_duration(self):
        kernels = profile.parse_ncu_csv(fixture("ncu_ch02_stage7_learner.csv"))
        values = profile.aggregate(kernels, profile.chapter_metrics(2))
        self.assertAlmostEqual(values["dram_read"], (268435456 + 1024) * 1e-6)
        self.assertAlmostEqual(values["ld_sectors"], (8388608 + 32) / (2097152 + 8))
        self.assertAlmostEqual(values["occupancy"], (12.10 * 3200000 + 1.50 * 3200) / 3203200)
        self.assertAlmostEqual(values["time"], 3203.2)
        self.assertEqual(values["stalls"][0][0], "long_scoreboard")
        self.assertIsNone(values["threads_per_inst"])   # not in the fixture: shown as "-"

    def test_work_values_for_the_roofline(self):
        kernels = [{"smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 1000.0,
                    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 10.0,
                    "dram__bytes_read.sum": 4000.0, "dram__bytes_write.sum": 1000.0, profile.DURATION: 50.0},
                   {"smsp__inst_executed_pipe_tensor_op_hmma.sum": 2.0, profile.DURATION: 25.0}]
        values = profile.work_values(kernels)
        self.assertEqual(values["flops"], 2 * 1000 + 10 + 2 * 4096)
        self.assertEqual(values["dram_bytes"], 5000.0)
        self.assertEqual(values["time_ns"], 75.0)
        self.assertIsNone(profile.work_values([{profile.DURATION: 1.0}])["flops"])
        self.assertIn("smsp__sass_thread_inst_executed_op_ffma_pred_on.sum", profile.ncu_metric_names(1))

    def test_metric_list_uses_only_known_names(self):
        names = profile.ncu_metric_names(7)
        self.assertIn("sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active", names)
        self.assertIn("l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum", names)
        self.assertEqual(len(names), len(set(names)))


class TableTest(WorkbookTest):
    def columns(self):
        metrics = profile.chapter_metrics(5)
        out = []
        launchers = (("your stage", "learner"), ("reference stage 3", "previous"), ("reference stage 4", "current"))
        for label, which in launchers:
            kernels = profile.parse_ncu_csv(fixture(f"ncu_ch05_stage4_{which}.csv"))
            out.append(profile.Column(label, profile.aggregate(kernels, metrics)))
        return metrics, out

    def test_bank_conflicts_differ_most_between_stage_3_and_4(self):
        metrics, columns = self.columns()
        highlight = profile.most_different(metrics, columns, 1, 2)
        self.assertEqual(highlight.key, "ld_conflicts")
        text = profile.render_table(metrics, columns, highlight, markdown=False)
        self.assertRegex(text, r"shared load bank conflicts per request +0\.00 +31\.00 +0\.00 <<")
        self.assertRegex(text, r"global store sectors per request +4\.0 +4\.0 +4\.0\n")
        markdown = profile.render_table(metrics, columns, highlight, markdown=True)
        self.assertIn("| **shared load bank conflicts per request** | **0.00** | **31.00** | **0.00** |", markdown)

    def test_the_sentence_names_the_readme_section(self):
        metrics, columns = self.columns()
        meta = core.load_chapter(5)
        sentence = profile.lesson_sentence(meta, profile.METRICS["ld_conflicts"], columns, 1, 2)
        self.assertIn("shared load bank conflicts per request, 31.00 for reference stage 3 against 0.00", sentence)
        self.assertIn('"Coalescing and banks, in two pictures" in', sentence)

    def test_similar_columns_highlight_nothing(self):
        metrics, columns = self.columns()
        self.assertIsNone(profile.most_different(metrics, [columns[2], columns[2]], 0, 1))


class CommandTest(WorkbookTest):
    def setUp(self):
        super().setUp()
        (self.build / "bin").mkdir()
        self.grader = executable(self.build / "bin" / "ch05_grade_exercises", FAKE_GRADER)
        self.ncu = executable(self.tmp / "ncu", FAKE_NCU)
        os.environ["FIXTURES"] = str(FIXTURES)
        self.addCleanup(os.environ.pop, "FIXTURES", None)

    def test_three_launchers_profiled_table_and_files_written(self):
        with mock.patch.object(profile, "find_ncu", return_value=str(self.ncu)):
            code, out, _ = self.capture(profile.command_profile, Args(chapter="5", stage="4", solutions=False,
                                                                      markdown=False))
        self.assertEqual(code, 0)
        self.assertIn("your stage: 1 kernel(s); `transpose_kernel` 65536 blocks x 1024 threads", out)
        self.assertIn("The largest difference:", out)
        record = (self.build / "profile" / "ch05_stage4.json").read_text()
        self.assertIn('"label": "reference stage 3"', record)
        self.assertTrue((self.build / "profile" / "ch05_stage4.md").read_text().startswith("### Chapter 5, stage 4"))

    def test_permission_error_one_sentence_and_the_launch_facts(self):
        os.environ["FAIL_PERMISSION"] = "1"
        self.addCleanup(os.environ.pop, "FAIL_PERMISSION", None)
        with mock.patch.object(profile, "find_ncu", return_value=str(self.ncu)):
            code, out, _ = self.capture(profile.command_profile, Args(chapter="5", stage="4", solutions=False,
                                                                      markdown=False))
        self.assertEqual(code, 0)
        self.assertEqual(out.count("RmProfilingAdminOnly=0"), 1)
        self.assertIn("reference stage 4: 1 kernel(s); `transpose_kernel` 65536 blocks x 256 threads", out)
        self.assertNotIn("DRAM throughput", out)

    def test_without_ncu_one_sentence_and_the_launch_facts(self):
        with mock.patch.object(profile, "find_ncu", return_value=None):
            code, out, _ = self.capture(profile.command_profile, Args(chapter="5", stage="4", solutions=False,
                                                                      markdown=False))
        self.assertEqual(code, 0)
        self.assertIn("Nsight Compute (ncu) was not found", out)
        self.assertIn("your stage: 1 kernel(s)", out)

    def test_after_check_profiles_a_slow_stage_only(self):
        meta = core.load_chapter(5)
        passing = {3: {"status": "passed"}, 4: {"status": "passed"}}
        with mock.patch.object(profile, "find_ncu", return_value=str(self.ncu)), \
                mock.patch.dict(os.environ, {"CI": "", "WORKBOOK_PROFILE": ""}):
            _, out, _ = self.capture(profile.after_check, meta, self.grader, passing, 60)
            self.assertEqual(out, "")
            _, out, _ = self.capture(profile.after_check, meta, self.grader, {4: {"status": "too-slow"}}, 60)
            self.assertIn("Profiling stage 4 with Nsight Compute", out)
            self.assertIn("<<", out)
        with mock.patch.dict(os.environ, {"WORKBOOK_PROFILE": "0"}):
            _, out, _ = self.capture(profile.after_check, meta, self.grader, {4: {"status": "too-slow"}}, 60)
            self.assertEqual(out, "")
        with mock.patch.object(profile, "find_ncu", return_value=None), \
                mock.patch.dict(os.environ, {"CI": "", "WORKBOOK_PROFILE": ""}):
            _, out, _ = self.capture(profile.after_check, meta, self.grader, {4: {"status": "too-slow"}}, 60)
            self.assertIn("Nsight Compute (ncu) was not found", out)


if __name__ == "__main__":
    unittest.main()
