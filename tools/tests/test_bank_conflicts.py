"""tools/bank_conflicts.py: the conflict degrees of chapter 2's trees, and the lesson states them."""
from __future__ import annotations

import unittest

from support import REPO

import bank_conflicts as bc


class ConflictDegree(unittest.TestCase):
    def test_distinct_banks_and_broadcast_are_one_pass(self):
        self.assertEqual(bc.conflict_degree(range(32)), 1)
        self.assertEqual(bc.conflict_degree([5] * 32), 1)          # one word: a broadcast
        self.assertEqual(bc.conflict_degree([]), 0)

    def test_words_of_one_bank_are_serialised(self):
        self.assertEqual(bc.conflict_degree([0, 32]), 2)
        self.assertEqual(bc.conflict_degree(range(0, 32 * 32, 32)), 32)
        self.assertEqual(bc.conflict_degree(range(0, 64, 2)), 2)   # stride 2: 16 banks, 2 words each


class Trees(unittest.TestCase):
    def column(self, tree, field, threads=256):
        return [getattr(level, field) for level in bc.levels(tree, threads)]

    def test_strided_index_conflicts_from_the_first_level(self):
        # s = 1, 2, ..., 128 on 256 threads: thread tid touches words 2 s tid and 2 s tid + s.
        self.assertEqual(self.column(bc.STRIDED, "s"), [1, 2, 4, 8, 16, 32, 64, 128])
        self.assertEqual(self.column(bc.STRIDED, "degree"), [2, 4, 8, 8, 8, 4, 2, 1])
        self.assertEqual(self.column(bc.STRIDED, "busy_warps"), [4, 2, 1, 1, 1, 1, 1, 1])
        self.assertEqual(self.column(bc.STRIDED, "working_threads"), [128, 64, 32, 16, 8, 4, 2, 1])

    def test_interleaved_keeps_every_warp_busy_only_up_to_s_16(self):
        self.assertEqual(self.column(bc.INTERLEAVED, "busy_warps"), [8, 8, 8, 8, 8, 4, 2, 1])
        self.assertEqual(self.column(bc.INTERLEAVED, "degree"), [1] * 8)

    def test_sequential_addressing_has_no_conflict(self):
        self.assertEqual(self.column(bc.SEQUENTIAL, "degree"), [1] * 8)

    def test_never_worse_than_eight_way_on_256_threads(self):
        # Eight active lanes at most share a bank: the "16- and 32-way" of a 1024-word array do
        # not happen on a 256-thread block.
        self.assertEqual(max(self.column(bc.STRIDED, "degree")), 8)


class Lesson(unittest.TestCase):
    def test_chapter_2_states_the_computed_table(self):
        readme = (REPO / "chapters/02_reduce/README.md").read_text()
        for line in bc.markdown_table(256).splitlines():
            with self.subTest(row=line.split("|")[1].strip()):
                self.assertIn(line, readme, "chapters/02_reduce/README.md should carry the output of "
                              "tools/bank_conflicts.py: paste it again")

    def test_the_lesson_has_no_stale_claims(self):
        readme = (REPO / "chapters/02_reduce/README.md").read_text()
        self.assertNotIn("32-way", readme)
        self.assertNotIn("16-way", readme)


if __name__ == "__main__":
    unittest.main()
