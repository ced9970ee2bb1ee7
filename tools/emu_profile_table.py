#!/usr/bin/env python3
"""The emulator's memory-behaviour counters of every reference stage, as Markdown tables.

    make emu-profile-chapter N          (or: python3 tools/emu_profile_table.py N)
        runs chapter N's grader of the reference solutions stage by stage and prints its table
    python3 tools/emu_profile_table.py --write docs/emulated_counters.md --from build/emu_counters
        writes the page of every chapter from the counters the reference-stage tests kept
    python3 tools/emu_profile_table.py --check docs/emulated_counters.md --from build/emu_counters
        exit status 1, with what differs, when the page is not what those counters give

Needs a build on the CPU emulator (WORKBOOK_BACKEND=cpu). Each stage prints a WORKBOOK-MEMORY line after
its memory comparison (harness/emulated_profile.hpp): the counters of that stage on the grader's small
input. The tests of the reference stages (ctest -L solutions) also keep it in build/emu_counters/
(chNN_stageK.json), which --write and --check read: the page is checked without running a grader again.
"""
from __future__ import annotations

import argparse
import json
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wbtools import core  # noqa: E402

# (column title, key of the WORKBOOK-MEMORY record, key of the requests it needs: "-" when there are none)
COLUMNS = [
    ("global load sectors / request", "global_load_sectors_per_request", "global_load_requests"),
    ("global load sectors / 128 B", "global_load_sectors_per_128B", "global_load_requests"),
    ("global store sectors / request", "global_store_sectors_per_request", "global_store_requests"),
    ("global store sectors / 128 B", "global_store_sectors_per_128B", "global_store_requests"),
    ("global sectors in all", "global_sectors", None),
    ("shared load conflict degree", "shared_load_conflict_degree", "shared_load_requests"),
    ("shared store conflict degree", "shared_store_conflict_degree", "shared_store_requests"),
    ("requests with idle lanes", "divergent_requests", None),
    ("barriers / block", "barriers_per_block", None),
]

HEADER = """# Emulated counters of the reference stages {#emulated_counters}

What the CPU emulator counts for every reference stage on the small input its grader compares on
(\\ref emulated-counters "how the counters are defined"): global-memory sectors per warp request and per
128 requested bytes, all the sectors the stage moves, the shared-memory conflict degree (wavefronts per
ideal wavefront: 1 without bank conflicts), the warp requests with idle lanes (a proxy for divergent
branches: *idle / all*) and the barriers per block. Without a GPU, `make check-chapter N` prints your
stage's counters beside those of reference stages k-1 and k; these tables are the references' column.

Generated from the emulated build's reference-stage tests, and checked current by the test
`tools.emu_counters_table`: after changing a reference stage, run `ctest -L solutions` in a build with
`WORKBOOK_BACKEND=cpu`, then
`python3 tools/emu_profile_table.py --write docs/emulated_counters.md --from build/emu_counters`.
"""


def cell(record: dict, key: str, needs: str | None) -> str:
    if needs and not record.get(needs):
        return "-"
    if key == "divergent_requests":
        return f"{record.get(key, 0)} / {record.get('requests', 0)}"
    return str(record.get(key, ""))


def table(meta: dict, records: dict[int, dict]) -> str:
    """The Markdown table of one chapter: one row per stage ("not counted" where no record is there, "not
    emulated" for a stage the emulator skips)."""
    lines = ["| stage | " + " | ".join(name for name, _, _ in COLUMNS) + " |",
             "|---|" + "---:|" * len(COLUMNS)]
    for stage in meta["stages"]:
        record = records.get(stage["id"])
        # A stage of one architecture alone ("9.0a": wgmma, TMA) is skipped by the emulator: say so.
        missing = "not emulated (sm_90a)" if str(stage.get("min_cc", "")).endswith("a") else "not counted"
        cells = [missing] * len(COLUMNS) if record is None else [cell(record, k, n) for _, k, n in COLUMNS]
        title = str(stage["title"]).replace("|", "\\|")
        lines.append(f"| {stage['id']}: {title} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def inputs_line(meta: dict, records: dict[int, dict]) -> str:
    """"On 2^14 floats (stages 1 and 2), ..." from the inputs the records name."""
    by_input: dict[str, list[int]] = {}
    for stage in meta["stages"]:
        record = records.get(stage["id"])
        if record and record.get("input"):
            by_input.setdefault(record["input"], []).append(stage["id"])
    if not by_input:
        return ""
    parts = []
    for text, ids in by_input.items():
        stages = ", ".join(str(i) for i in ids)
        parts.append(f"{text} (stage{'s' if len(ids) > 1 else ''} {stages})" if len(by_input) > 1 else text)
    return "Counted on " + "; ".join(parts) + "."


def read_counters(folder: Path, chapter: int) -> dict[int, dict]:
    records: dict[int, dict] = {}
    for path in sorted(folder.glob(f"ch{chapter:02d}_stage*.json")):
        try:
            record = json.loads(path.read_text())
            records[int(record["stage"])] = record
        except (OSError, ValueError, KeyError, TypeError) as error:
            raise core.UserError(f"{core.shown(path)} is not a record of the emulator's counters ({error}): "
                                 "run `ctest -L solutions` again in the emulated build.")
    return records


def chapter_sections(folder: Path) -> dict[int, str]:
    """The section of each chapter that has records in @p folder, by chapter number."""
    if not folder.is_dir():
        raise core.UserError(f"{core.shown(folder)} does not exist: run `ctest -L solutions` in a build with "
                             "WORKBOOK_BACKEND=cpu first (its reference-stage tests write the counters there).")
    sections: dict[int, str] = {}
    for meta in core.all_chapters():
        records = read_counters(folder, meta["chapter"])
        if not records:
            continue
        parts = [f"## Chapter {meta['chapter']}: {meta['title']}\n"]
        line = inputs_line(meta, records)
        if line:
            parts.append(line + "\n")
        parts.append(table(meta, records) + "\n")
        sections[meta["chapter"]] = "\n".join(parts)
    return sections


def page(folder: Path) -> str:
    return "\n".join([HEADER] + list(chapter_sections(folder).values()))


def split_page(text: str) -> tuple[str, dict[int, str]]:
    """The header of a page and its chapter sections, by chapter number."""
    chunks = re.split(r"(?m)^(?=## Chapter \d+:)", text)
    sections = {}
    for chunk in chunks[1:]:
        number = int(re.match(r"## Chapter (\d+):", chunk).group(1))
        sections[number] = chunk.rstrip("\n") + "\n"
    return chunks[0], sections


def run_chapter(meta: dict, timeout: float = 600.0) -> str:
    grader = core.grader_path(meta, "solutions")
    if not grader.exists():
        raise core.UserError(f"{core.shown(grader)} is not built: build ch{meta['chapter']:02d}_grade_solutions first.")
    records: dict[int, dict] = {}
    for stage in meta["stages"]:
        record, output = core.run_stage(grader, stage["id"], timeout)
        if not record.get("emulated"):
            raise core.UserError("this build runs the kernels on a GPU: the counters come from the CPU emulator "
                                 "(configure a build with WORKBOOK_BACKEND=cpu)")
        memory = core.parse_results(output, "WORKBOOK-MEMORY")
        if memory:
            records[stage["id"]] = memory[-1]
    return table(meta, records)


def check(document: Path, folder: Path) -> int:
    """Every chapter section of the page against the counters: 1 at the first difference. A chapter with
    counters but no section yet is named, not failed (the page grows as chapters are counted)."""
    expected = chapter_sections(folder)
    try:
        current_header, current = split_page(document.read_text())
    except OSError as error:
        raise core.UserError(f"{core.shown(document)} cannot be read ({error}): write it with --write.")
    regenerate = (f"Regenerate it: python3 tools/emu_profile_table.py --write {core.shown(document)} "
                  f"--from {core.shown(folder)}")
    problems = []
    if current_header != HEADER + "\n":
        problems.append("its introduction is not the tool's")
    for number, section in current.items():
        if number not in expected:
            print(f"chapter {number}: no counters in {core.shown(folder)} (its reference-stage tests did not run): "
                  "not checked")
            continue
        old, new = section.splitlines(), expected[number].rstrip("\n").splitlines()
        for line, (a, b) in enumerate(zip(old + [""] * len(new), new + [""] * len(old)), start=1):
            if a != b:
                problems.append(f"chapter {number}, line {line} of its section:\n  page:     {a}\n  counters: {b}")
                break
    for number in sorted(set(expected) - set(current)):
        print(f"chapter {number} is not on the page yet. {regenerate}")
    if problems:
        print(f"{core.shown(document)} is out of date: " + "\n".join(problems))
        print(regenerate)
        return 1
    print(f"{core.shown(document)}: chapters {', '.join(str(n) for n in sorted(set(current) & set(expected)))} "
          "match the emulator's counters of their reference stages.")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.strip().splitlines()[0])
    parser.add_argument("chapter", nargs="?", help="run this chapter's reference stages and print its table")
    parser.add_argument("--from", dest="folder", type=Path, help="the counters the reference-stage tests kept")
    parser.add_argument("--write", type=Path, help="write the page of every chapter here")
    parser.add_argument("--check", type=Path, help="check that this page is current")
    args = parser.parse_args(argv[1:])
    try:
        if args.chapter:
            print(run_chapter(core.load_chapter(args.chapter)))
            return 0
        if not args.folder or not (args.write or args.check):
            parser.print_usage()
            return 2
        if args.check:
            return check(args.check, args.folder)
        args.write.write_text(page(args.folder))
        print(f"wrote {core.shown(args.write)}")
    except core.UserError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
