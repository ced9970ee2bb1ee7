"""The mutation tool (tools/mutate.py): which changes it makes to a stage file, and that it leaves
comments, preprocessor lines and launcher signatures alone. Building and grading the mutants needs a
build of the workbook and is not tested here."""
from __future__ import annotations

import unittest

from support import REPO  # noqa: F401  (puts tools/ on sys.path)

from wbtools import mutate

SOURCE = """\
// Stage 9: a comment with i < n and __syncthreads(); in it
#include "x.cuh"
/* a block comment
   with sum += x; inside */
__global__ void kernel(const float* __restrict__ x, float* y, std::int64_t n)
{
    const std::int64_t i = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
    float best = -INFINITY;   // the identity of max
    if (i < n) best = fmaxf(best, x[i]);
    __syncthreads();
    for (int k = 0; k <= n - 1; ++k) y[i] += best;
}
void launch(const float* x, float* y, std::int64_t n, cudaStream_t stream);
"""


def changes(operator: str) -> list[tuple[int, str]]:
    return [(m.line, m.after.strip()) for m in mutate.mutants(SOURCE, [operator])]


class Operators(unittest.TestCase):
    def test_comparisons_move_by_one_and_spare_comments(self):
        self.assertEqual(changes("compare"), [
            (9, "if (i <= n) best = fmaxf(best, x[i]);"),
            (11, "for (int k = 0; k < n - 1; ++k) y[i] += best;"),
        ])

    def test_string_literals_are_never_changed(self):
        line = '    if (cols > 1024) throw std::invalid_argument("supports cols <= 1024");'
        self.assertEqual(mutate.OPERATORS["compare"](line),
                         ['    if (cols >= 1024) throw std::invalid_argument("supports cols <= 1024");'])

    def test_barrier_is_left_out_as_a_whole_statement(self):
        self.assertEqual(changes("barrier"), [(10, ";   // mutant: __syncthreads() left out")])

    def test_width_narrows_a_line_but_not_a_launcher_signature(self):
        found = changes("width")
        self.assertEqual([line for line, _ in found], [5, 7])
        self.assertEqual(found[1][1], "const int i = static_cast<int>(blockIdx.x) * blockDim.x + threadIdx.x;")

    def test_accumulation_overwrites(self):
        self.assertEqual(changes("accumulate"), [(11, "for (int k = 0; k <= n - 1; ++k) y[i] = best;")])

    def test_off_by_one_drops_an_integer_one_only(self):
        self.assertEqual(changes("off-by-one"), [(11, "for (int k = 0; k <= n; ++k) y[i] += best;")])

    def test_swap_xy_changes_one_use_at_a_time(self):
        self.assertEqual(len(changes("swap-xy")), 3)

    def test_extremes(self):
        found = changes("extremes")
        self.assertIn((8, "float best = -3.0e38f;   // the identity of max"), found)
        self.assertIn((9, "if (i < n) best = fminf(best, x[i]);"), found)

    def test_atomic_becomes_a_plain_read_modify_write_unless_its_result_is_used(self):
        code = ["if (threadIdx.x == 0) atomicAdd(out, v);", "atomicAdd(&state[1], s + t);",
                "is_last = atomicAdd(counter, 1u) == gridDim.x - 1;"]
        self.assertEqual(mutate._atomic(code[0]), ["if (threadIdx.x == 0) *out += v;"])
        self.assertEqual(mutate._atomic(code[1]), ["state[1] += s + t;"])
        self.assertEqual(mutate._atomic(code[2]), [])

    def test_apply_changes_one_line(self):
        mutant = mutate.mutants(SOURCE, ["barrier"])[0]
        changed = mutate.apply(SOURCE, mutant).splitlines()
        original = SOURCE.splitlines()
        self.assertEqual([i for i, (a, b) in enumerate(zip(original, changed)) if a != b], [9])
        self.assertEqual(len(changed), len(original))

    def test_every_reference_stage_has_mutants(self):
        from wbtools import core
        for meta in core.all_chapters():
            for stage in meta["stages"]:
                source = core.solution_path(meta, stage).read_text()
                self.assertTrue(mutate.mutants(source, list(mutate.OPERATORS)),
                                f"chapter {meta['chapter']} stage {stage['id']}")


if __name__ == "__main__":
    unittest.main()
