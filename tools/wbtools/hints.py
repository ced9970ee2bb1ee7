"""`make hint CH=2 STAGE=3`: the next hint of a stage, one more each time.

The hints live in the chapter's stages.json ("hints", two or three per stage, from a nudge to
nearly the answer); how many of them were shown is remembered in build/progress.json. Without
STAGE the hint is for the first stage of the chapter that has not passed yet; without CH, for the
first such stage of the whole workbook.
"""
from __future__ import annotations

import textwrap

from . import core, ui
from . import progress
from . import state as st


def pick_stage(args, state: dict) -> tuple[dict, dict]:
    chapter = getattr(args, "chapter", None)
    stage = getattr(args, "stage", None)
    if chapter in (None, ""):
        if stage not in (None, ""):
            raise core.UserError(f"STAGE={stage} needs a chapter too, e.g. make hint CH=1 STAGE={stage}.")
        following = progress.next_stage(core.all_chapters(), state)
        if following is None:
            raise core.UserError("Every stage passes already: name one, e.g. make hint CH=1 STAGE=2.")
        return following
    meta = core.load_chapter(chapter)
    if stage in (None, ""):
        following = progress.next_stage([meta], state)
        if following is None:
            raise core.UserError(f"Every stage of chapter {meta['chapter']} passes: name one, "
                                 f"e.g. make hint CH={meta['chapter']} STAGE={meta['stages'][-1]['id']}.")
        return following
    return meta, core.find_stage(meta, stage)


def wrap(label: str, text: str) -> str:
    return textwrap.fill(text, width=100, initial_indent=label, subsequent_indent=" " * len(label))


def command_hint(args) -> int:
    state = st.load()
    meta, stage = pick_stage(args, state)
    number, sid = meta["chapter"], stage["id"]
    hints = [h for h in stage.get("hints") or [] if isinstance(h, str) and h.strip()]
    print(ui.paint(f"Chapter {number}, stage {sid}: {stage['title']}", "bold"))
    print(ui.paint(f"your file: {core.shown(core.exercise_path(meta, stage))}   "
                   f"the contract: chapters/{meta['dir']}/stages.cuh ({stage['launcher']})", "dim"))
    print()
    if not hints:
        print(f"Stage {sid} has no hints yet: the chapter's lesson (chapters/{meta['dir']}/README.md) "
              "explains the idea.")
        return 0
    if getattr(args, "reset", False):
        st.set_hints_seen(state, number, sid, 0)
        st.save(state)
        print(f"The hints of stage {sid} are hidden again: `make hint CH={number} STAGE={sid}` shows the first.")
        return 0
    seen = min(st.hints_seen(state, number, sid), len(hints))
    show_all = getattr(args, "all", False)
    if show_all:
        new = list(range(seen, len(hints)))
    elif seen < len(hints):
        new = [seen]
    else:
        new = []
    for index in range(seen):
        print(ui.paint(wrap(f"Hint {index + 1} of {len(hints)} (seen): ", hints[index]), "dim"))
    for index in new:
        label = f"Hint {index + 1} of {len(hints)}: "
        print(ui.paint(label, "cyan") + wrap(label, hints[index])[len(label):])
    shown_now = seen + len(new)
    st.set_hints_seen(state, number, sid, shown_now)
    st.save(state)
    print()
    left = len(hints) - shown_now
    if left > 0:
        print(f"{left} more hint{'s' if left > 1 else ''} left: run the same command again "
              f"(make hint CH={number} STAGE={sid}).")
    elif not new:
        print(f"You have seen every hint of this stage. Still stuck? Re-read the stage's section in "
              f"chapters/{meta['dir']}/README.md; the reference is {core.shown(core.solution_path(meta, stage))} "
              f"(make hint CH={number} STAGE={sid} RESET=1 hides the hints again).")
    else:
        print("That was the last hint. Then there is the chapter's lesson, and the reference solution "
              f"({core.shown(core.solution_path(meta, stage))}) once you have tried.")
    return 0
