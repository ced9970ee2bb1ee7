#!/usr/bin/env python3
"""Write each chapter README's "In an interview" table from the "interview" tags of its stages.json.

    python3 tools/interview_tags.py           rewrite the tables
    python3 tools/interview_tags.py --check   exit 1 when a README's table differs from its stages.json

The table sits between two marker comments, just before the chapter's "Interview questions"; the
tags' meaning is documented on the tools page (docs/tools.md, "Interview tags").
"""
from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tools"))
from wbtools import core  # noqa: E402   the one reader of stages.json
BEGIN = "<!-- interview tags: generated from stages.json by tools/interview_tags.py; do not edit -->"
END = "<!-- end of interview tags -->"
ANCHOR = "## Interview questions"


def cell(text: str) -> str:
    return text.replace("|", "\\|")


def section(meta: dict) -> str:
    tag = meta["interview"]
    hand = "written from memory" if tag["by_hand"] else "explained more than written"
    lines = [BEGIN, "", "## In an interview", "",
             f"How often interviews ask for this chapter: **{tag['asked']}**, {hand} "
             f"({cell(tag['source'])}). Per stage (what the tags mean, and the sources: \\ref interview_tags "
             "\"interview tags\"; `make drill` weights its choice by them):", "",
             "| stage | asked | by hand | source of the judgement |",
             "| --- | --- | --- | --- |"]
    for stage in meta["stages"]:
        t = stage["interview"]
        lines.append(f"| {stage['id']}. {cell(stage['title'])} | {t['asked']} | {'yes' if t['by_hand'] else 'no'} "
                     f"| {cell(t['source'])} |")
    lines += ["", END]
    return "\n".join(lines)


def updated(readme: str, meta: dict) -> str:
    if BEGIN in readme:
        start = readme.index(BEGIN)
        end = readme.index(END, start) + len(END)
        return readme[:start] + section(meta) + readme[end:]
    at = readme.index(ANCHOR)
    return readme[:at] + section(meta) + "\n\n" + readme[at:]


def main() -> int:
    check = "--check" in sys.argv[1:]
    stale = []
    for folder in core.chapter_dirs():
        meta = core.read_meta(folder)
        path = folder / "README.md"
        text = path.read_text()
        new = updated(text, meta)
        if new != text:
            stale.append(path.relative_to(ROOT))
            if not check:
                path.write_text(new)
    if check and stale:
        print("Interview tables out of date (run python3 tools/interview_tags.py): "
              + ", ".join(map(str, stale)))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
