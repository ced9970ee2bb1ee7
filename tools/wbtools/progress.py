"""`make progress`: chapters x stages, what state each stage is in, and an overall progress bar.

Read-only: it shows what `make check-chapter`, `make watch-chapter` and `make drill` recorded in
build/progress.json, and never runs a grader.
"""
from __future__ import annotations

import os
import textwrap

from . import core, i18n, ui
from . import state as st


def limit_column(meta: dict) -> tuple[str, str, str, str]:
    """(rate header, rate key, percentage header, percentage key) for the chapter's metric."""
    if meta.get("metric") == "TFLOP/s":
        return "TFLOP/s", "tflops", "% cuBLAS", "pct_cublas"
    return "GB/s", "gbps", "% copy", "pct_copy"


def edited_since(meta: dict, stage: dict, record: dict | None) -> bool:
    """True when the exercise file changed after its last grading (the result may be stale)."""
    if not record or not isinstance(record.get("time"), (int, float)):
        return False
    try:
        return os.path.getmtime(core.exercise_path(meta, stage)) > record["time"] + 1
    except OSError:
        return False


def next_stage(chapters: list[dict], state: dict) -> tuple[dict, dict] | None:
    """The first stage, in teaching order, that has not passed."""
    for meta in chapters:
        for stage in meta["stages"]:
            if st.category(st.result(state, meta["chapter"], stage["id"])) != st.PASSED:
                return meta, stage
    return None


def interview_tag(item: dict) -> str:
    """How often interviews ask for it and whether it is written from memory ("interview" in
    stages.json, on each stage and on the chapter): "high, by hand", "low", or "" when untagged."""
    tag = item.get("interview")
    if not isinstance(tag, dict) or tag.get("asked") not in ("high", "medium", "low"):
        return ""
    return i18n.tr(tag["asked"]) + (i18n.tr(", by hand") if tag.get("by_hand") is True else "")


def overview(chapters: list[dict], state: dict) -> list[str]:
    wide = any(s["id"] >= 10 for m in chapters for s in m["stages"])
    cell = 3 if wide else 2
    most = max((len(m["stages"]) for m in chapters), default=0)
    name_width = max((i18n.width(m["title"]) for m in chapters), default=10)
    name_width = min(max(name_width, 7), 34)
    numbers = "".join(str(i + 1).ljust(cell) for i in range(most))
    lines = [f"    {i18n.ljust(i18n.tr('chapter'), name_width)}  {ui.pad(ui.paint(numbers, 'dim'), most * cell)}  "
             f"{i18n.ljust(i18n.tr('passed'), 6)}  {i18n.tr('interview')}"]
    for meta in chapters:
        marks = ""
        passed = 0
        for stage in meta["stages"]:
            category = st.category(st.result(state, meta["chapter"], stage["id"]))
            passed += category == st.PASSED
            marks += ui.symbol(category) + " " * (cell - 1)
        marks += " " * (cell * (most - len(meta["stages"])))
        count = f"{passed}/{len(meta['stages'])}"
        title = i18n.ljust(i18n.clip(meta["title"], name_width), name_width)
        lines.append(f" {meta['chapter']:>2} {title}  {marks}  {count:<6}  {interview_tag(meta)}")
    legend = "   ".join(f"{ui.symbol(c)} {i18n.status(c)}"
                        for c in (st.PASSED, st.TOO_SLOW, st.FAILING, st.NOT_STARTED))
    lines.append("    " + legend)
    meaning = i18n.tr("interview: how often interviews ask for it (high, medium, low); by hand: "
                      "written from memory on a blank page (docs: Tools, interview tags)")
    lines.append(ui.paint("    " + meaning, "dim"))
    return lines


def details(meta: dict, state: dict) -> list[str]:
    rate_header, rate_key, pct_header, pct_key = limit_column(meta)
    rate_pattern = "{:.1f}" if rate_key == "tflops" else "{:.0f}"
    title_width = 44
    words = {w: i18n.tr(w) for w in ("stage", "state", "speed-up", "needed", "drill best", "interview", "graded")}
    header = (f" {i18n.ljust(words['stage'], title_width + 4)} {i18n.ljust(words['state'], 24)} "
              f"{i18n.rjust(words['speed-up'], 8)} {i18n.rjust(words['needed'], 7)} {rate_header:>8} "
              f"{i18n.rjust(i18n.tr(pct_header), 8)}  {i18n.rjust(words['drill best'], 10)}  "
              f"{i18n.ljust(words['interview'], 15)} {words['graded']}")
    lines = [ui.paint(i18n.tr("Chapter {chapter}: {title}", chapter=meta["chapter"], title=meta["title"]), "bold"),
             ui.paint(header, "dim")]
    stale = False
    for stage in meta["stages"]:
        record = st.result(state, meta["chapter"], stage["id"])
        category = st.category(record)
        text = i18n.status(category)
        if category == st.FAILING:
            text = i18n.status(core.STATUS_TEXT.get(record.get("status"), str(record.get("status", "?"))))
        elif record and record.get("status") == "not-implemented":
            text = i18n.status("not implemented yet")
        if edited_since(meta, stage, record):
            text += " *"
            stale = True
        text = (ui.symbol(category) + " " + ui.paint(i18n.clip(text, 22), ui.color_of(category)))
        record = record or {}
        drill = st.drill_history(state, meta["chapter"], stage["id"])
        drill_text = ui.duration(drill["best"]) if isinstance(drill.get("best"), (int, float)) else "-"
        title = stage["title"] if i18n.width(stage["title"]) <= title_width else \
            i18n.clip(stage["title"], title_width - 3) + "..."
        lines.append(
            f" {stage['id']:>2}  {i18n.ljust(title, title_width)} {ui.pad(text, 24)} "
            f"{core.format_number(record.get('speedup'), 'x{:.2f}'):>8} "
            f"{core.format_number(record.get('required'), 'x{:.2f}'):>7} "
            f"{core.format_number(record.get(rate_key), rate_pattern):>8} "
            f"{core.format_number(record.get(pct_key), '{:.0f}%'):>8}  "
            f"{drill_text:>10}  {i18n.ljust(interview_tag(stage), 15)} {ui.when(record.get('time'))}")
    if stale:
        lines.append(ui.paint(i18n.tr(" * edited since it was graded: `make check-chapter {chapter}` grades it again.",
                                      chapter=meta["chapter"]), "dim"))
    failing = [(s, st.result(state, meta["chapter"], s["id"])) for s in meta["stages"]
               if st.category(st.result(state, meta["chapter"], s["id"])) in (st.FAILING, st.TOO_SLOW)]
    for stage, record in failing[:1]:
        summary = (record or {}).get("summary")
        if summary:
            wrapped = textwrap.shorten(summary, width=160, placeholder=" ...")
            lines.append(ui.paint(i18n.tr(" last message of stage {stage}: {message}", stage=stage["id"],
                                          message=wrapped), "dim"))
    return lines


def has_any(meta: dict, state: dict) -> bool:
    key = str(meta["chapter"])
    return bool(state["results"].get(key)) or bool(state["drills"]["history"].get(key))


def command_progress(args) -> int:
    chapters = core.all_chapters()
    if not chapters:
        raise core.UserError("There are no chapters in this copy of the workbook (chapters/NN_name/stages.json).")
    wanted = core.load_chapter(args.chapter) if getattr(args, "chapter", None) not in (None, "") else None
    state = st.load()
    total = sum(len(m["stages"]) for m in chapters)
    passed = sum(st.category(st.result(state, m["chapter"], s["id"])) == st.PASSED
                 for m in chapters for s in m["stages"])
    print(ui.paint(i18n.tr("CUDA Kernel Workbook: your progress"), "bold"))
    print(f"{ui.bar(passed, total)}  " + i18n.tr("{passed} of {total} stages passed ({percent}%)", passed=passed,
                                                 total=total, percent=f"{100 * passed / total:.0f}"))
    print()
    for line in overview(chapters, state):
        print(line)
    shown = [wanted] if wanted else [m for m in chapters if has_any(m, state)]
    for meta in shown:
        print()
        for line in details(meta, state):
            print(line)
    print()
    if not any(has_any(m, state) for m in chapters):
        print(i18n.tr("Nothing graded yet: start with `make check-chapter 1`; results appear here as you go."))
    following = next_stage([wanted] if wanted else chapters, state)
    if following:
        meta, stage = following
        print(i18n.tr("Next: chapter {chapter}, stage {stage} ({title}), in {file}.", chapter=meta["chapter"],
                      stage=stage["id"], title=stage["title"], file=core.shown(core.exercise_path(meta, stage))))
        print(i18n.tr("      Grade it: make check-chapter {chapter} STAGE={stage}   stuck? make hint CH={chapter} "
                      "STAGE={stage}", chapter=meta["chapter"], stage=stage["id"]))
    elif wanted:
        print(i18n.tr("Every stage of chapter {chapter} passes. Time yourself: make drill CH={chapter}",
                      chapter=wanted["chapter"]))
    else:
        print(i18n.tr("Every stage of every chapter passes. Time yourself on them: make drill"))
    return 0
