"""`make hint CH=2 STAGE=3`: the next hint of a stage, one more each time.

The hints live in the chapter's stages.json ("hints", two or three per stage, from a nudge to
nearly the answer); how many of them were shown is remembered in build/progress.json. Without
STAGE the hint is for the first stage of the chapter that has not passed yet; without CH, for the
first such stage of the whole workbook.
"""
from __future__ import annotations

import textwrap

from . import core, i18n, ui
from . import progress
from . import state as st


def pick_stage(args, state: dict) -> tuple[dict, dict]:
    chapter = getattr(args, "chapter", None)
    stage = getattr(args, "stage", None)
    if chapter in (None, ""):
        if stage not in (None, ""):
            raise core.UserError(i18n.tr("STAGE={stage} needs a chapter too, e.g. make hint CH=1 STAGE={stage}.",
                                         stage=stage))
        following = progress.next_stage(core.all_chapters(), state)
        if following is None:
            raise core.UserError(i18n.tr("Every stage passes already: name one, e.g. make hint CH=1 STAGE=2."))
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
    if i18n.chinese() and i18n.width(text) != len(text):   # Chinese: no spaces to break at, cut by columns
        lines, rest, first = [], text, True
        while rest:
            room = 100 - i18n.width(label)
            piece = i18n.clip(rest, room) or rest[:1]
            lines.append((label if first else " " * i18n.width(label)) + piece)
            rest, first = rest[len(piece):].lstrip(), False
        return "\n".join(lines)
    return textwrap.fill(text, width=100, initial_indent=label, subsequent_indent=" " * len(label))


def command_hint(args) -> int:
    state = st.load()
    meta, stage = pick_stage(args, state)
    number, sid = meta["chapter"], stage["id"]
    hints = [h for h in stage.get("hints") or [] if isinstance(h, str) and h.strip()]
    lesson = f"chapters/{meta['dir']}/README.zh.md" if i18n.chinese() else f"chapters/{meta['dir']}/README.md"
    print(ui.paint(i18n.tr("Chapter {chapter}, stage {stage}: {title}", chapter=number, stage=sid,
                           title=stage["title"]), "bold"))
    print(ui.paint(i18n.tr("your file: {file}   the contract: {contract} ({launcher})",
                           file=core.shown(core.exercise_path(meta, stage)),
                           contract=f"chapters/{meta['dir']}/stages.cuh", launcher=stage["launcher"]), "dim"))
    print()
    if not hints:
        print(i18n.tr("Stage {stage} has no hints yet: the chapter's lesson ({lesson}) explains the idea.",
                      stage=sid, lesson=lesson))
        return 0
    if getattr(args, "reset", False):
        st.set_hints_seen(state, number, sid, 0)
        st.save(state)
        print(i18n.tr("The hints of stage {stage} are hidden again: `make hint CH={chapter} STAGE={stage}` "
                      "shows the first.", stage=sid, chapter=number))
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
        label = i18n.tr("Hint {index} of {total} (seen): ", index=index + 1, total=len(hints))
        print(ui.paint(wrap(label, hints[index]), "dim"))
    for index in new:
        label = i18n.tr("Hint {index} of {total}: ", index=index + 1, total=len(hints))
        print(ui.paint(label, "cyan") + wrap(label, hints[index])[len(label):])
    shown_now = seen + len(new)
    st.set_hints_seen(state, number, sid, shown_now)
    st.save(state)
    print()
    left = len(hints) - shown_now
    if left > 0:
        print(i18n.tr("{left} more {hints} left: run the same command again (make hint CH={chapter} STAGE={stage}).",
                      left=left, hints="hints" if left > 1 else "hint", chapter=number, stage=sid))
    elif not new:
        print(i18n.tr("You have seen every hint of this stage. Still stuck? Re-read the stage's section in "
                      "{lesson}; the reference is {solution} (make hint CH={chapter} STAGE={stage} RESET=1 hides "
                      "the hints again).", lesson=lesson, solution=core.shown(core.solution_path(meta, stage)),
                      chapter=number, stage=sid))
    else:
        print(i18n.tr("That was the last hint. Then there is the chapter's lesson, and the reference solution "
                      "({solution}) once you have tried.", solution=core.shown(core.solution_path(meta, stage))))
    return 0
