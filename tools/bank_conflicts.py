#!/usr/bin/env python3
"""The shared-memory tree of chapter 2, counted: at each level of the reduction, which warps have
work and how many different words of one bank a warp's access touches (its bank-conflict degree).

    python3 tools/bank_conflicts.py [--threads 256]

prints the table of chapter 2's stage 2 section (chapters/02_reduce/README.md); a test
(tools/tests/test_bank_conflicts.py) checks that the lesson states these numbers.

The model: shared memory has 32 banks of 4-byte words, word w lives in bank w % 32. A warp's
32-bit access is served in one pass when no two of its active lanes touch *different* words of one
bank (lanes reading the same word share it: a broadcast). Otherwise the access takes as many
passes as the largest number of different words in one bank: that number is the degree, 1 means
no conflict. Inactive lanes (masked off by the `if`) do not count.
"""
from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Callable, Iterable

BANKS = 32
WARP = 32


def conflict_degree(words: Iterable[int], banks: int = BANKS) -> int:
    """Passes one warp-wide access takes: the most different words that fall into one bank
    (0 when no lane is active)."""
    per_bank: dict[int, set[int]] = {}
    for word in set(words):
        per_bank.setdefault(word % banks, set()).add(word)
    return max((len(ws) for ws in per_bank.values()), default=0)


@dataclass(frozen=True)
class Tree:
    """One way of running the tree: which threads work at level s, and the words each touches."""
    name: str
    active: Callable[[int, int, int], bool]          # (tid, s, threads) -> works at this level
    words: Callable[[int, int], tuple[int, ...]]     # (tid, s) -> words read or written


# Stage 1: thread tid works when tid % (2s) == 0 and adds sdata[tid + s] into sdata[tid].
INTERLEAVED = Tree("interleaved (stage 1)",
                   lambda tid, s, n: tid % (2 * s) == 0,
                   lambda tid, s: (tid, tid + s))
# Stage 2: thread tid works on index 2 s tid while that index is inside the block.
STRIDED = Tree("strided index (stage 2)",
               lambda tid, s, n: 2 * s * tid < n,
               lambda tid, s: (2 * s * tid, 2 * s * tid + s))
# Stage 3: s runs downwards, thread tid < s adds sdata[tid + s] into sdata[tid].
SEQUENTIAL = Tree("sequential addressing (stage 3)",
                  lambda tid, s, n: tid < s,
                  lambda tid, s: (tid, tid + s))


@dataclass(frozen=True)
class Level:
    s: int
    working_threads: int
    busy_warps: int      # warps with at least one working lane: they all run the level
    degree: int          # worst conflict degree over the busy warps and the accesses of the level


def levels(tree: Tree, threads: int = 256) -> list[Level]:
    """Every level s = 1, 2, 4, ... < threads of the tree on a block of `threads` threads."""
    result = []
    s = 1
    while s < threads:
        working = [tid for tid in range(threads) if tree.active(tid, s, threads)]
        warps = sorted({tid // WARP for tid in working})
        degree = 0
        for warp in warps:
            lanes = [tid for tid in working if tid // WARP == warp]
            accesses = len(tree.words(lanes[0], s))
            for k in range(accesses):   # each read (and the write) is its own instruction
                degree = max(degree, conflict_degree(tree.words(tid, s)[k] for tid in lanes))
        result.append(Level(s, len(working), len(warps), degree))
        s *= 2
    return result


def markdown_table(threads: int = 256) -> str:
    """The table of chapter 2's lesson: one column per level s."""
    interleaved, strided = levels(INTERLEAVED, threads), levels(STRIDED, threads)

    def row(label: str, cells: Iterable[object]) -> str:
        return "| " + " | ".join([label, *map(str, cells)]) + " |"

    def way(degree: int) -> str:
        return "none" if degree <= 1 else f"{degree}-way"

    lines = [
        row("level s", [lv.s for lv in strided]),
        "| --- |" + " ---: |" * len(strided),
        row("working threads", [lv.working_threads for lv in strided]),
        row("warps that run the level, stage 1", [lv.busy_warps for lv in interleaved]),
        row("warps that run the level, stage 2", [lv.busy_warps for lv in strided]),
        row("bank conflict, stage 1", [way(lv.degree) for lv in interleaved]),
        row("bank conflict, stage 2", [way(lv.degree) for lv in strided]),
    ]
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--threads", type=int, default=256, help="threads per block (a power of 2)")
    args = parser.parse_args()
    if args.threads < 2 or args.threads & (args.threads - 1):
        parser.error("--threads must be a power of 2, at least 2")
    print(markdown_table(args.threads))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
