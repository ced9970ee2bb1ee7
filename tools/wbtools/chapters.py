"""`make chapters`: every chapter and its stages, as stages.json lists them."""
from __future__ import annotations

from . import core


def command_chapters(args) -> int:
    for meta in core.all_chapters():
        print(f"{meta['chapter']}  {meta['title']}")
        for stage in meta["stages"]:
            print(f"     {stage['id']:>2}. {stage['title']}")
    return 0
