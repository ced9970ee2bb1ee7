"""make hint: one more hint each time, remembered between runs, helpful sentences for bad input."""
from __future__ import annotations

import unittest

from support import Args, WorkbookTest

from wbtools import core, hints
from wbtools import state as st


class Hints(WorkbookTest):
    copy_root = True

    def stage_hints(self, stage: int) -> list[str]:
        return core.find_stage(core.load_chapter(1), stage)["hints"]

    def hint(self, **kwargs) -> str:
        values = {"chapter": "1", "stage": "2", "all": False, "reset": False}
        values.update(kwargs)
        code, out, _ = self.capture(hints.command_hint, Args(**values))
        self.assertEqual(code, 0)
        return " ".join(out.split())   # wrapped lines joined again

    def test_one_more_hint_each_time(self):
        expected = self.stage_hints(2)
        self.assertGreaterEqual(len(expected), 2)
        first = self.hint()
        self.assertIn(f"Hint 1 of {len(expected)}: {' '.join(expected[0].split())}", first)
        self.assertNotIn(" ".join(expected[1].split()), first)
        second = self.hint()
        self.assertIn("Hint 1 of", second)
        self.assertIn("(seen)", second)
        self.assertIn(f"Hint 2 of {len(expected)}: {' '.join(expected[1].split())}", second)
        for _ in range(len(expected) - 2):
            self.hint()
        self.assertEqual(st.hints_seen(st.load(), 1, 2), len(expected))
        after = self.hint()
        self.assertIn("You have seen every hint", after)
        self.assertIn("solutions/01_elementwise/2_vectorized.cu", after)

    def test_hints_are_per_stage_and_persist(self):
        self.hint(stage="2")
        self.assertEqual(st.hints_seen(st.load(), 1, 2), 1)
        self.assertEqual(st.hints_seen(st.load(), 1, 3), 0)

    def test_reset_and_all(self):
        self.hint(all=True)
        self.assertEqual(st.hints_seen(st.load(), 1, 2), len(self.stage_hints(2)))
        self.hint(reset=True)
        self.assertEqual(st.hints_seen(st.load(), 1, 2), 0)

    def test_default_stage_is_the_first_not_passed(self):
        st.record_results(1, {1: {"stage": 1, "status": "passed"}})
        out = self.hint(chapter=None, stage=None)
        self.assertIn("Chapter 1, stage 2", out)

    def test_bad_input(self):
        for kwargs, sentence in (
                ({"chapter": "9"}, "There is no chapter 9"),
                ({"chapter": "1", "stage": "7"}, "Chapter 1 has no stage 7: its stages are 1 to 4."),
                ({"chapter": "1", "stage": "x"}, "STAGE=x is not a number"),
                ({"chapter": "one"}, "'one' is not a chapter number"),
                ({"chapter": None, "stage": "2"}, "STAGE=2 needs a chapter too")):
            values = {"chapter": "1", "stage": "2", "all": False, "reset": False}
            values.update(kwargs)
            with self.assertRaises(core.UserError) as raised:
                hints.command_hint(Args(**values))
            self.assertIn(sentence, str(raised.exception))

    def test_command_line(self):
        result = self.cli("hint", "1", "--stage", "3")
        self.assertEqual(result.returncode, 0, result.stderr)
        self.assertIn("Hint 1 of", result.stdout)
        result = self.cli("hint", "1", "--stage", "0")
        self.assertEqual(result.returncode, 2)
        self.assertIn("has no stage 0", result.stderr)


if __name__ == "__main__":
    unittest.main()
