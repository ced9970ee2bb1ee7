"""`make drill [CH=n]`: an interview drill, timed.

It picks a stage you have not mastered yet (mastered: passed as a drill before), writes a blank file
for it into drill/NN_name/ with only the contract (the launcher's signature, what may be assumed,
what is checked: no hints, nothing on the technique), and starts a clock. You write the kernel and
the launch from scratch; press Enter (or run `make drill-grade`) to grade it. The grader is
chNN_grade_drill: the chapter's grader with your drill file as that stage's candidate (see
cmake/WorkbookChapter.cmake). When it passes, the time from start to pass is recorded in
build/progress.json and shown by `make progress`; the file moves to drill/done/.

One drill runs at a time. Quitting keeps the clock running: `make drill` resumes it, and
`make drill-stop` gives it up (the file moves to drill/done/ too: nothing is deleted).
"""
from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

from . import core, ui
from . import state as st

KEEP_MARKERS = ("@brief", "@param", "@tparam", "@return", "@pre", "Checked", "Alignment", "Contract", "Input",
                "Inputs", "Output", "Outputs", "Assume", "Assumes", "Sizes", "Shapes", "Layout", "Requires",
                "Precondition", "Preconditions", "Speed")


def drill_folder() -> Path:
    return core.ROOT / "drill"


def drill_file(meta: dict, stage: dict) -> Path:
    return drill_folder() / meta["dir"] / f"{stage['file']}.cu"


# ---- the contract, from stages.cuh ---------------------------------------------------------------

def _matching_paren(text: str, open_index: int) -> int:
    depth = 0
    for index in range(open_index, len(text)):
        if text[index] == "(":
            depth += 1
        elif text[index] == ")":
            depth -= 1
            if depth == 0:
                return index
    raise ValueError("unbalanced parentheses")


def split_parameters(text: str) -> list[str]:
    parts, depth, current = [], 0, ""
    for char in text:
        if char in "(<[{":
            depth += 1
        elif char in ")>]}":
            depth -= 1
        if char == "," and depth == 0:
            parts.append(current.strip())
            current = ""
        else:
            current += char
    if current.strip():
        parts.append(current.strip())
    return parts


def parameter_name(parameter: str) -> str | None:
    """The name of one parameter (None when it has none): `const float* a` -> a."""
    match = re.search(r"([A-Za-z_]\w*)\s*(\[[^\]]*\]\s*)*$", parameter)
    if not match or not parameter[:match.start()].strip():
        return None
    return match.group(1)


def strip_default(parameter: str) -> str:
    depth = 0
    for index, char in enumerate(parameter):
        if char in "(<[{":
            depth += 1
        elif char in ")>]}":
            depth -= 1
        elif char == "=" and depth == 0:
            return parameter[:index].rstrip()
    return parameter


def keep_contract_lines(comment: list[str]) -> list[str]:
    """The contract part of a launcher's doc comment: brief, parameters and the paragraphs that start
    with a contract word (Checked:, Alignment:, ...); the lesson in between is left out."""
    kept, keeping = [], False
    for line in comment:
        text = line.strip()
        if not text:
            keeping = False
            continue
        word = re.match(r"^(@\w+|[A-Z][a-z]+)", text)
        starts_block = word is not None and (word.group(1).startswith("@") or
                                             re.match(r"^[A-Z][a-z]+s?:", text) is not None)
        if starts_block:
            keeping = word.group(1) in KEEP_MARKERS
            if word.group(1) == "@brief":
                text = text[len("@brief"):].strip()
            elif word.group(1) in ("@param", "@tparam"):
                name, _, rest = text[len(word.group(1)):].strip().partition(" ")
                text = f"{name}: {rest.strip()}"
        if keeping:
            kept.append(text)
    return kept


def chapter_contract(header: str) -> list[str]:
    """The chapter-wide input contract from the @file comment ("Common input contract ...:" and its list)."""
    lines = []
    for line in header.splitlines():
        if not line.startswith("///"):
            if lines or line.strip():
                break
            continue
        lines.append(line[3:].strip())
    found, keeping = [], False
    for text in lines:
        if "contract" in text.lower() and text.endswith(":"):
            keeping = True
            found.append(text)
            continue
        if keeping:
            if not text:
                break
            found.append(text)
    return found


def contract(meta: dict, stage: dict) -> tuple[list[str], str, list[str]]:
    """(the contract's lines, the launcher's definition line(s), the parameter names)."""
    header_path = core.ROOT / "chapters" / meta["dir"] / "stages.cuh"
    try:
        text = header_path.read_text()
    except OSError:
        raise core.UserError(f"{core.shown(header_path)} cannot be read: restore it with git.")
    function = stage["launcher"]
    match = re.search(r"^([^\n;{}/#]*?)\b" + re.escape(function) + r"\s*\(", text, re.M)
    if not function or not match:
        raise core.UserError(f"The launcher {function or '?'} of stage {stage['id']} is not declared in "
                             f"{core.shown(header_path)}: the drill cannot write its skeleton.")
    open_index = match.end() - 1
    close_index = _matching_paren(text, open_index)
    prefix = " ".join(match.group(1).split())
    parameters = [strip_default(" ".join(p.split())) for p in split_parameters(text[open_index + 1:close_index])]
    parameters = [p for p in parameters if p and p != "void"]
    names = [n for n in (parameter_name(p) for p in parameters) if n]
    # The doc comment right above the declaration.
    before = text[:match.start()].splitlines()
    comment = []
    for line in reversed(before):
        if line.strip().startswith("///"):
            comment.insert(0, line.strip()[3:])
        else:
            break
    lines = chapter_contract(text)
    stage_lines = keep_contract_lines(comment)
    if lines and stage_lines:
        lines.append("")
    lines += stage_lines
    head = f"{prefix} {function}(".lstrip()
    one_line = head + ", ".join(parameters) + ")"
    if len(one_line) <= 110:
        signature = one_line
    else:
        indent = " " * len(head)
        rows, row = [], head
        for index, parameter in enumerate(parameters):
            piece = parameter + (", " if index < len(parameters) - 1 else ")")
            if len(row) + len(piece.rstrip()) > 110 and row.strip():
                rows.append(row.rstrip())
                row = indent
            row += piece
        rows.append(row.rstrip())
        signature = "\n".join(rows)
    return lines, signature, names


def includes_of(meta: dict, stage: dict) -> list[str]:
    try:
        text = core.exercise_path(meta, stage).read_text()
    except OSError:
        text = ""
    found = [line.rstrip() for line in text.splitlines() if line.startswith("#include")]
    return found or [f'#include "{meta["dir"]}/stages.cuh"']


def blank_skeleton(meta: dict, stage: dict, started: float) -> str:
    lines, signature, names = contract(meta, stage)
    out = [f"// Drill: chapter {meta['chapter']}, stage {stage['id']}: {stage['title']}.",
           f"// Started {time.strftime('%Y-%m-%d %H:%M', time.localtime(started))}. Write the kernel(s) and the launcher "
           "from scratch; the clock is running.",
           "// Grade: press Enter in the `make drill` window, or run `make drill-grade`.",
           "//",
           f"// The contract (chapters/{meta['dir']}/stages.cuh):"]
    out += [("//   " + line).rstrip() for line in lines]
    out.append("")
    out += includes_of(meta, stage)
    out += ["", "namespace WORKBOOK_TRACK {", "", "namespace {", "", "}  // namespace", "", signature, "{"]
    if names:
        out.append("    " + ", ".join(f"(void){n}" for n in names) + ";")
    out += ["}", "", "}  // namespace WORKBOOK_TRACK", ""]
    return "\n".join(out)


# ---- choosing a stage ------------------------------------------------------------------------------

def mastered(state: dict, meta: dict, stage: dict) -> bool:
    return bool(st.drill_history(state, meta["chapter"], stage["id"]).get("times"))


def pick(chapters: list[dict], state: dict, rng: random.Random) -> tuple[dict, dict]:
    """A stage not mastered yet; those you passed in the workbook first (you know the idea, now recall
    it against the clock); when every stage is mastered, the one with the slowest best time."""
    pool = [(m, s) for m in chapters for s in m["stages"]]
    fresh = [(m, s) for m, s in pool if not mastered(state, m, s)]
    if fresh:
        learned = [(m, s) for m, s in fresh
                   if st.category(st.result(state, m["chapter"], s["id"])) == st.PASSED]
        return rng.choice(learned or fresh)
    return max(pool, key=lambda ms: st.drill_history(state, ms[0]["chapter"], ms[1]["id"]).get("best", 0))


# ---- running a drill -------------------------------------------------------------------------------

def move_aside(path: Path, kind: str) -> Path:
    """Moves a drill file to drill/done/<chapter>/ with a time stamp; returns where it went."""
    stamp = time.strftime("%Y%m%d-%H%M%S")
    target = drill_folder() / "done" / path.parent.name / f"{path.stem}.{stamp}.{kind}{path.suffix}"
    suffix = 2
    while target.exists():
        target = target.with_name(f"{path.stem}.{stamp}-{suffix}.{kind}{path.suffix}")
        suffix += 1
    target.parent.mkdir(parents=True, exist_ok=True)
    path.replace(target)
    return target


def active_drill(state: dict) -> tuple[dict, dict, dict] | None:
    active = state["drills"]["active"]
    if not active:
        return None
    try:
        meta = core.load_chapter(active["chapter"])
        stage = core.find_stage(meta, active["stage"])
    except (core.UserError, KeyError):
        return None
    return active, meta, stage


def start(meta: dict, stage: dict, state: dict) -> dict:
    path = drill_file(meta, stage)
    now = time.time()
    text = blank_skeleton(meta, stage, now)
    if path.exists():
        old = move_aside(path, "earlier")
        print(f"note: an earlier drill file was moved to {core.shown(old)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    active = {"chapter": meta["chapter"], "stage": stage["id"], "file": core.shown(path), "started": now,
              "attempts": 0}
    state["drills"]["active"] = active
    st.save(state)
    return active


def banner(active: dict, meta: dict, stage: dict) -> None:
    print(ui.paint(f"Drill: chapter {meta['chapter']}, stage {stage['id']}: {stage['title']}", "bold"))
    print(f"Write it in {active['file']}: it holds only the contract. Kernel, launch configuration, tail handling: "
          "all yours.")
    best = st.drill_history(st.load(), meta["chapter"], stage["id"]).get("best")
    if isinstance(best, (int, float)):
        print(f"Your best time on this stage: {ui.duration(best)}.")


def grade(active: dict, meta: dict, stage: dict, timeout: float) -> bool:
    """Builds the drill grader, grades the drill's stage; True when it passed (and was recorded)."""
    core.require_configured_build(meta)
    path = core.ROOT / active["file"]
    if not path.exists():
        raise core.UserError(f"The drill file {active['file']} is gone: `make drill-stop` ends this drill, "
                             "`make drill` then starts a new one.")
    state = st.load()
    if state["drills"]["active"]:
        state["drills"]["active"]["attempts"] = state["drills"]["active"].get("attempts", 0) + 1
        active = state["drills"]["active"]
        st.save(state)
    elapsed = time.time() - active["started"]
    print(f"[{ui.clock(elapsed)}] building ...", flush=True)
    ok, output = core.build_target(f"ch{meta['chapter']:02d}_grade_drill")
    if not ok:
        print(core.compile_errors(output))
        print(ui.paint(f"[{ui.clock(time.time() - active['started'])}] does not compile yet (messages above); "
                       "the clock is running.", "red"))
        return False
    record, output = core.run_stage(core.grader_path(meta, "drill"), stage["id"], timeout)
    status = record.get("status")
    if status == "skipped":
        print("Your drill compiles. Grading needs an NVIDIA GPU, so the clock cannot stop here: "
              f"{record.get('summary', '')}.")
        return False
    if status != "passed":
        print("\n".join(core.failure_details(output).splitlines()[-25:]))
        print(ui.paint(f"[{ui.clock(time.time() - active['started'])}] "
                       f"{core.STATUS_TEXT.get(status, status)}: {record.get('summary', '')}", "red"))
        return False
    seconds = time.time() - active["started"]
    state = st.load()
    entry = st.record_drill_pass(state, meta["chapter"], stage["id"], seconds, active.get("attempts", 1))
    state["drills"]["active"] = None
    st.save(state)
    kept = move_aside(path, "passed")
    extra = ""
    if isinstance(record.get("speedup"), (int, float)):
        extra = f", x{record['speedup']:.2f} over the previous stage"
    print(ui.paint(f"Passed in {ui.duration(seconds)} (grading attempt {active.get('attempts', 1)}{extra}).", "green"))
    if len(entry["times"]) > 1:
        print(f"Your best on this stage: {ui.duration(entry['best'])} over {len(entry['times'])} drills.")
    print(f"Your file is kept in {core.shown(kept)}; `make progress` shows the time.")
    return True


def interactive(active: dict, meta: dict, stage: dict, timeout: float) -> int:
    contract_lines = contract(meta, stage)[0]
    while True:
        elapsed = time.time() - active["started"]
        try:
            answer = input(f"[{ui.clock(elapsed)}] Enter: grade   c: show the contract   "
                           "q: quit (the clock keeps running) > ")
        except (EOFError, KeyboardInterrupt):
            answer = "q"
            print()
        answer = answer.strip().lower()
        if answer in ("q", "quit", "exit"):
            print("The drill is still running: `make drill` resumes it, `make drill-grade` grades it, "
                  "`make drill-stop` gives it up.")
            return 0
        if answer == "c":
            print("\n".join("  " + line for line in contract_lines))
            continue
        try:
            if grade(active, meta, stage, timeout):
                return 0
        except KeyboardInterrupt:
            print("\ngrading interrupted")


def command_drill(args) -> int:
    state = st.load()
    running = active_drill(state)
    if running is None and state["drills"]["active"]:
        state["drills"]["active"] = None   # its chapter or stage no longer exists
        st.save(state)
    chapter = getattr(args, "chapter", None)
    wanted_stage = getattr(args, "stage", None)

    if getattr(args, "stop", False):
        if running is None:
            print("No drill is running.")
            return 0
        active, meta, stage = running
        path = core.ROOT / active["file"]
        where = f"; your file is in {core.shown(move_aside(path, 'stopped'))}" if path.exists() else ""
        state["drills"]["active"] = None
        st.save(state)
        print(f"Drill of chapter {meta['chapter']}, stage {stage['id']} stopped after "
              f"{ui.duration(time.time() - active['started'])}{where}.")
        return 0

    if getattr(args, "grade", False):
        if running is None:
            raise core.UserError("No drill is running: `make drill` (or make drill CH=2) starts one.")
        active, meta, stage = running
        banner(active, meta, stage)
        return 0 if grade(active, meta, stage, args.timeout) else 1

    if running is not None:
        active, meta, stage = running
        asked = chapter not in (None, "") and core.load_chapter(chapter)["chapter"] != meta["chapter"]
        asked = asked or (wanted_stage not in (None, "") and core.stage_ids(meta, wanted_stage)[0] != stage["id"])
        if asked:
            raise core.UserError(f"A drill is running (chapter {meta['chapter']}, stage {stage['id']}, "
                                 f"{ui.duration(time.time() - active['started'])} so far): finish it with "
                                 "`make drill-grade`, or give it up with `make drill-stop`, then start another.")
        print(f"Resuming the drill started {ui.duration(time.time() - active['started'])} ago.")
    else:
        if chapter in (None, ""):
            if wanted_stage not in (None, ""):
                raise core.UserError(f"STAGE={wanted_stage} needs a chapter too, e.g. make drill CH=1 STAGE={wanted_stage}.")
            chapters = core.all_chapters()
            if not chapters:
                raise core.UserError("There are no chapters to drill on.")
            meta, stage = pick(chapters, state, random.Random(getattr(args, "seed", None)))
        else:
            meta = core.load_chapter(chapter)
            if wanted_stage not in (None, ""):
                stage = core.find_stage(meta, wanted_stage)
            else:
                meta, stage = pick([meta], state, random.Random(getattr(args, "seed", None)))
        active = start(meta, stage, state)
    banner(active, meta, stage)
    if getattr(args, "no_wait", False) or not sys.stdin.isatty():
        print("Grade it with `make drill-grade` when you are ready; the clock is running.")
        return 0
    return interactive(active, meta, stage, args.timeout)
