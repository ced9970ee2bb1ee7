"""tools/emu_profile_table.py: the page of the emulator's counters of every reference stage, written from
the records the reference-stage tests keep, and the check that the page is current."""
from __future__ import annotations

import contextlib
import io
import json
import unittest

from support import WorkbookTest

import emu_profile_table as table
from wbtools import core

RECORD = {"stage": 1, "input": "2^14 floats", "kernels": 1, "launches": 1, "global_load_requests": 1024,
          "global_load_sectors_per_request": 4.0, "global_load_sectors_per_128B": 4.0, "global_store_requests": 512,
          "global_store_sectors_per_request": 4.0, "global_store_sectors_per_128B": 4.0, "global_sectors": 6144,
          "shared_load_requests": 0, "shared_load_conflict_degree": 0.0, "shared_store_requests": 0,
          "shared_store_conflict_degree": 0.0, "requests": 1536, "divergent_requests": 0, "barriers_per_block": 0.0}


class CountersPage(WorkbookTest):
    def setUp(self):
        super().setUp()
        self.folder = self.tmp / "emu_counters"
        self.folder.mkdir()
        for stage in (1, 2):
            record = dict(RECORD, stage=stage, divergent_requests=stage - 1)
            (self.folder / f"ch01_stage{stage}.json").write_text(json.dumps(record) + "\n")

    def quiet(self, function, *args):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            status = function(*args)
        return status, out.getvalue()

    def test_one_row_per_stage_with_the_records_values(self):
        page = table.page(self.folder)
        self.assertIn("## Chapter 1: ", page)
        self.assertIn("Counted on 2^14 floats.", page)
        meta = core.load_chapter(1)
        first = next(line for line in page.splitlines() if line.startswith("| 1: "))
        self.assertEqual(first, f"| 1: {meta['stages'][0]['title']} | 4.0 | 4.0 | 4.0 | 4.0 | 6144 | - | - | 0 / 1536 "
                                "| 0.0 |")
        self.assertIn("| 1 / 1536 |", page)
        later = [line for line in page.splitlines() if line.startswith("| 3: ")]
        self.assertTrue(later and "not counted" in later[0])   # no record for stage 3

    def test_check_passes_on_the_written_page_and_names_the_first_difference(self):
        document = self.tmp / "emulated_counters.md"
        document.write_text(table.page(self.folder))
        self.assertEqual(self.quiet(table.check, document, self.folder)[0], 0)
        (self.folder / "ch01_stage2.json").write_text(json.dumps(dict(RECORD, stage=2, divergent_requests=7)))
        status, text = self.quiet(table.check, document, self.folder)
        self.assertEqual(status, 1)
        self.assertIn("is out of date: chapter 1, line", text)
        self.assertIn("7 / 1536", text)
        self.assertIn("--write", text)

    def test_a_chapter_not_on_the_page_yet_is_named_not_failed(self):
        document = self.tmp / "emulated_counters.md"
        document.write_text(table.HEADER + "\n")
        status, text = self.quiet(table.check, document, self.folder)
        self.assertEqual(status, 0)
        self.assertIn("chapter 1 is not on the page yet", text)

    def test_a_missing_folder_says_what_to_run(self):
        with self.assertRaises(core.UserError) as caught:
            table.page(self.tmp / "nowhere")
        self.assertIn("ctest -L solutions", str(caught.exception))


if __name__ == "__main__":
    unittest.main()
