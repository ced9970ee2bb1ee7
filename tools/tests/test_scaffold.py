"""The scaffold levels (wbtools/scaffold.py): one template renders three levels, the outline's TODOs hold
no code-level recipe (the lint rejects a deliberately bad outline), and exercises/ is the outline level."""
from __future__ import annotations

import os
import shutil
import subprocess
import unittest

from support import WorkbookTest

from wbtools import core, scaffold

TEMPLATE = """// header
#include "x.cuh"

namespace WORKBOOK_TRACK {

//@ guided
namespace {
__global__ void k(float* y) {}
}   // namespace
//@ end
//@ outline
// TODO: a kernel that writes each output once.
//@ end

void x_1_naive(float* y, cudaStream_t stream)
{
    //@ guided
    // TODO: k<<<1, 32, 0, stream>>>(y);
    //@ end
    //@ outline
    // TODO: launch it on `stream`.
    //@ end
    (void)y, (void)stream;
}

}   // namespace WORKBOOK_TRACK
"""

# An outline that gives the recipe away, one way per TODO: each must be caught.
BAD_TODOS = [
    "for offset = 16, 8, 4, 2, 1: v += __shfl_down_sync(kFullMask, v, offset).",
    "i = blockIdx.x * blockDim.x + threadIdx.x; return when i >= n.",
    "launch reduce<<<blocks, 256>>> and check it.",
    "for (int k = 0; k < K; ++k) acc += a * b.",
    "write y[row * cols + col] for every element.",
    "sum the row with wb::block_reduce_sum.",
    "blocks of kThreads threads along the rows.",
    "use a tile of 32 by 33 floats.",
    "pass the mask 0xffffffff to every exchange.",
    "acc = acc + x times the weight.",
]


def outline_with(todo: str) -> str:
    return f"namespace WORKBOOK_TRACK {{\n\n// TODO: {todo}\n\n}}   // namespace WORKBOOK_TRACK\n"


class Render(unittest.TestCase):
    def test_three_levels_from_one_template(self):
        guided = scaffold.render(TEMPLATE, "guided")
        outline = scaffold.render(TEMPLATE, "outline")
        blank = scaffold.render(TEMPLATE, "blank")
        self.assertIn("__global__ void k", guided)
        self.assertIn("k<<<1, 32, 0, stream>>>", guided)
        self.assertNotIn("a kernel that writes", guided)
        self.assertIn("// TODO: a kernel that writes each output once.", outline)
        self.assertNotIn("__global__", outline)
        self.assertNotIn("TODO", blank)
        for text in (guided, outline, blank):
            self.assertNotIn("//@", text)
            self.assertNotIn("\n\n\n", text)
            self.assertIn("void x_1_naive(float* y, cudaStream_t stream)\n{\n", text)
            self.assertIn("    (void)y, (void)stream;\n}\n", text)
            self.assertTrue(text.startswith("// header\n#include \"x.cuh\"\n"))

    def test_bad_markers_say_where(self):
        cases = [("//@ guided\nx\n", "never closed"),
                 ("//@ end\n", "without an open"),
                 ("//@ guided\n//@ outline\n//@ end\n", "inside a //@ guided block"),
                 ("//@ hints\n", "unknown marker //@ hints")]
        for text, phrase in cases:
            with self.assertRaises(scaffold.TemplateError) as raised:
                scaffold.render(text, "outline", "t.cu")
            self.assertIn(phrase, str(raised.exception))
            self.assertIn("t.cu", str(raised.exception))

    def test_unknown_level(self):
        with self.assertRaises(core.UserError) as raised:
            scaffold.render(TEMPLATE, "hard")
        self.assertIn("LEVEL=hard is not a scaffold level", str(raised.exception))


class Lint(unittest.TestCase):
    def test_every_bad_outline_todo_is_caught(self):
        for todo in BAD_TODOS:
            problems = scaffold.recipe_problems(outline_with(todo), "bad.cu")
            self.assertEqual(len(problems), 1, f"not caught: {todo!r}")
            self.assertIn("bad.cu:3: the outline TODO holds", problems[0])

    def test_a_continuation_line_is_part_of_its_todo(self):
        text = "// TODO: sum the values of the row,\n//       then v += __shfl_xor_sync(m, v, 1).\n"
        self.assertEqual(len(scaffold.recipe_problems(text, "bad.cu")), 1)

    def test_words_pass(self):
        good = ["stage 7's kernel with the block's reduction done by warp shuffles, one barrier in all.",
                "a kernel that moves fp16 data as half2 pairs and launches on `stream`, as in stages 2 and 3.",
                "a kernel in which a block owns a row (the row cached in shared memory)."]
        for todo in good:
            self.assertEqual(scaffold.recipe_problems(outline_with(todo), "good.cu"), [], todo)

    def test_an_outline_block_holds_comments_only(self):
        template = TEMPLATE.replace("// TODO: a kernel that writes each output once.\n",
                                    "// TODO: a kernel that writes each output once.\n__global__ void k();\n")
        [problem] = scaffold.outline_block_problems(template, "t.cu")
        self.assertIn("t.cu:13: an //@ outline block holds code", problem)
        self.assertEqual(scaffold.outline_block_problems(TEMPLATE, "t.cu"), [])

    def test_an_outline_without_todo(self):
        self.assertIn("has no TODO", scaffold.recipe_problems("void f() {}\n", "empty.cu")[0])


class Repository(WorkbookTest):
    """The workbook's own templates (read-only)."""

    def test_every_template_renders_and_its_outline_passes_the_lint(self):
        result = self.cli("scaffold", "--lint")
        self.assertEqual(result.returncode, 0, result.stdout + result.stderr)
        self.assertIn("no problem", result.stdout)

    def test_every_level_keeps_the_launchers(self):
        for meta in core.all_chapters():
            for stage in meta["stages"]:
                for level, text in scaffold.all_levels(meta, stage).items():
                    self.assertRegex(text, rf"\bvoid {stage['launcher']}\(", f"{meta['dir']} {stage['file']} {level}")
                    self.assertIn(f"chapters/{meta['dir']}/stages.cuh", text)   # the pointer to the contract


class SyncWithoutGit(WorkbookTest):
    copy_root = True

    def test_the_learners_edits_are_noted_and_strict_mode_sees_them(self):
        (self.root / "exercises/01_elementwise/2_vectorized.cu").write_text("// my kernel\n")
        result = self.cli("scaffold", "--check")
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("changed by you (not a git clone)", result.stdout)
        self.assertEqual(self.cli("scaffold", "--check", "--strict").returncode, 1)


@unittest.skipIf(shutil.which("git") is None, "git is not installed")
class Sync(WorkbookTest):
    """exercises/ against the templates, on a private git copy of chapter 1."""
    copy_root = True

    def git(self, *args: str) -> None:
        env = dict(os.environ, HOME=str(self.tmp), GIT_CONFIG_NOSYSTEM="1", GIT_AUTHOR_NAME="a",
                   GIT_AUTHOR_EMAIL="a@example.org", GIT_COMMITTER_NAME="a", GIT_COMMITTER_EMAIL="a@example.org")
        subprocess.run(["git", "-C", str(self.root), *args], check=True, capture_output=True, env=env)

    def setUp(self):
        super().setUp()
        self.git("init", "-q")
        self.git("add", ".")
        self.git("commit", "-q", "-m", "the workbook")

    def check(self, *extra: str):
        return self.cli("scaffold", "--check", *extra)

    def test_the_learners_edits_are_not_errors_but_strict_mode_sees_them(self):
        (self.root / "exercises/01_elementwise/2_vectorized.cu").write_text("// my kernel\n")
        result = self.check()
        self.assertEqual(result.returncode, 0, result.stdout)
        self.assertIn("changed by you, the committed file is checked", result.stdout)
        result = self.check("--strict")
        self.assertEqual(result.returncode, 1)
        self.assertIn("exercises/01_elementwise/2_vectorized.cu is not the outline level", result.stdout)

    def test_a_template_committed_without_its_exercise_fails(self):
        template = self.root / "scaffolds/01_elementwise/3_fused.cu"
        template.write_text(template.read_text().replace("// TODO: a kernel", "// TODO: one kernel", 1))
        result = self.check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("changed but not committed", result.stdout)
        self.git("commit", "-q", "-am", "a better outline")
        result = self.check()
        self.assertEqual(result.returncode, 1)
        self.assertIn("as committed with scaffolds/01_elementwise/3_fused.cu", result.stdout)
        self.assertIn("python3 tools/workbook.py scaffold --write", result.stdout)
        self.assertEqual(self.cli("scaffold", "--write").returncode, 0)
        self.git("commit", "-q", "-am", "regenerated")
        self.assertEqual(self.check().returncode, 0)


if __name__ == "__main__":
    unittest.main()
