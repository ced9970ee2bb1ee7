#!/usr/bin/env python3
"""The emulator's memory-behaviour counters of every reference stage of a chapter, as a Markdown table.

    make emu-profile-chapter N          (or: python3 tools/emu_profile_table.py N)

Needs a build on the CPU emulator (WORKBOOK_BACKEND=cpu). Runs the chapter's grader of the reference
solutions stage by stage and collects the WORKBOOK-MEMORY line each stage prints after its memory
comparison (harness/emulated_profile.hpp): the counters of that stage on the grader's small input.
The table in docs/emulation.md was made this way; rerun it after changing a reference stage.
"""
from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wbtools import core  # noqa: E402

# (column title, key of the WORKBOOK-MEMORY record, key of the requests it needs, "-" when none)
COLUMNS = [
    ("global load sectors / request", "global_load_sectors_per_request", "global_load_requests"),
    ("global load sectors / 128 B", "global_load_sectors_per_128B", "global_load_requests"),
    ("global store sectors / request", "global_store_sectors_per_request", "global_store_requests"),
    ("global store sectors / 128 B", "global_store_sectors_per_128B", "global_store_requests"),
    ("shared load conflict degree", "shared_load_conflict_degree", "shared_load_requests"),
    ("shared store conflict degree", "shared_store_conflict_degree", "shared_store_requests"),
    ("requests with idle lanes", "divergent_requests", None),
    ("barriers / block", "barriers_per_block", None),
]


def table(meta: dict, timeout: float = 600.0) -> str:
    grader = core.grader_path(meta, "solutions")
    if not grader.exists():
        raise core.UserError(f"{core.shown(grader)} is not built: build ch{meta['chapter']:02d}_grade_solutions first.")
    lines = ["| stage | " + " | ".join(name for name, _, _ in COLUMNS) + " |",
             "|---|" + "---:|" * len(COLUMNS)]
    for stage in meta["stages"]:
        record, output = core.run_stage(grader, stage["id"], timeout)
        if not record.get("emulated"):
            raise core.UserError("this build runs the kernels on a GPU: the counters come from the CPU emulator "
                                 "(configure a build with WORKBOOK_BACKEND=cpu)")
        memory = core.parse_results(output, "WORKBOOK-MEMORY")
        if not memory:
            cells = ["not counted"] * len(COLUMNS)
        else:
            record = memory[-1]
            cells = ["-" if needs and not record.get(needs) else str(record.get(key, "")) for _, key, needs in COLUMNS]
        lines.append(f"| {stage['id']}: {stage['title']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__.strip())
        return 2
    try:
        print(table(core.load_chapter(argv[1])))
    except core.UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
