"""`make drill [CH=n]`: an interview drill, timed.

It picks a stage (weighted by how often interviews ask for it, see `pick`), writes a blank file for it
into drill/NN_name/ with only the contract (the launcher's signature, what may be assumed, what is
checked: no hints, nothing on the technique), and starts a clock. You write the kernel and the launch
from scratch; press Enter (or run `make drill-grade`) to grade it. The grader is chNN_grade_drill: the
chapter's grader with your drill file as that stage's candidate (see cmake/WorkbookChapter.cmake).
When it passes, the time from start to pass is recorded in build/progress.json and shown by
`make progress`; the file moves to drill/done/.

The blank file is made from the stage's blank scaffold level (generated from scaffolds/, see
wbtools/scaffold.py): its #include lines and its public launchers' signatures, with nothing else;
the contract comes from the doc comment of the launcher's declaration in stages.cuh.

Paper mode (`make drill PAPER=1`, PAPER_MINUTES=20): as in an interview on paper or a whiteboard, you
write the kernel without compiling or running it for a set time; then it is built and graded once,
and that one verdict is the drill's result.

One drill runs at a time. Quitting keeps the clock running: `make drill` resumes it, and
`make drill-stop` gives it up (the file moves to drill/done/ too: nothing is deleted).
"""
from __future__ import annotations

import random
import re
import sys
import time
from pathlib import Path

from . import core, i18n, scaffold, ui
from . import state as st

KEEP_MARKERS = ("@brief", "@param", "@tparam", "@return", "@pre", "Checked", "Alignment", "Contract", "Input",
                "Inputs", "Output", "Outputs", "Assume", "Assumes", "Sizes", "Shapes", "Layout", "Requires",
                "Precondition", "Preconditions", "Speed")


def drill_folder() -> Path:
    return core.ROOT / "drill"


def drill_file(meta: dict, stage: dict) -> Path:
    return drill_folder() / meta["dir"] / f"{stage['file']}.cu"


# ---- the contract, from stages.cuh ---------------------------------------------------------------

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


def doc_comment(text: str, name: str) -> list[str]:
    """The /// lines right above the first line that declares `name(`."""
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if re.search(rf"\b{re.escape(name)}\s*\(", line)
               and not line.lstrip().startswith("//")), None)
    comment = []
    for line in reversed(lines[:at] if at is not None else []):
        if not line.strip().startswith("///"):
            break
        comment.insert(0, line.strip()[3:])
    return comment


def contract(meta: dict, stage: dict) -> list[str]:
    """The chapter's input contract and the contract part of the launcher's doc comment in stages.cuh."""
    header_path = core.ROOT / "chapters" / meta["dir"] / "stages.cuh"
    try:
        text = header_path.read_text()
    except OSError:
        raise core.UserError(f"{core.shown(header_path)} cannot be read: restore it with git.")
    name = core.launcher(meta, stage)
    if not re.search(rf"\b{re.escape(name)}\s*\(", text):
        raise core.UserError(f"The launcher {name} of stage {stage['id']} is not declared in "
                             f"{core.shown(header_path)}: the drill cannot write its skeleton.")
    lines = chapter_contract(text)
    stage_lines = keep_contract_lines(doc_comment(text, name))
    if lines and stage_lines:
        lines.append("")
    return lines + stage_lines


# ---- the blank file, from the stage's skeleton ----------------------------------------------------

def skeleton_text(meta: dict, stage: dict) -> str:
    """The stage's blank scaffold level (the header, the includes and the launchers' signatures), generated
    from its template in scaffolds/ (wbtools/scaffold.py): never the learner's exercise, which may hold
    their solution."""
    return scaffold.generate(meta, stage, "blank")


def public_launchers(skeleton: str) -> list[str]:
    """The skeleton's launchers, emptied: what follows its anonymous namespace (the helpers and kernels,
    left out) inside `namespace WORKBOOK_TRACK`, as lines. A skeleton writes each definition from column 0:
    signature lines, `{`, an indented body, `}`. Of the bodies only the `(void)` lines stay, which keep
    the compiler quiet about parameters not used yet."""
    lines = skeleton.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith("namespace WORKBOOK_TRACK")), None)
    if start is None:
        return []
    anonymous = next((i for i in range(start, len(lines)) if lines[i].startswith("namespace {")), None)
    if anonymous is not None:
        start = next((i for i in range(anonymous, len(lines)) if re.match(r"^}\s*// namespace\s*$", lines[i])),
                     start)
    kept, in_body = [], False
    for line in lines[start + 1:]:
        if re.match(r"^}\s*// namespace WORKBOOK_TRACK", line):
            break
        if in_body:
            if line.startswith("}"):
                in_body = False
                kept.append(line)
            elif "(void)" in line:
                kept.append(line)
            continue
        if line.lstrip().startswith("//"):
            continue
        if not line.strip():
            if kept and kept[-1]:
                kept.append("")
            continue
        kept.append(line.rstrip())
        if line.startswith("{") or (line.rstrip().endswith("{") and "}" not in line):
            in_body = True
    while kept and not kept[-1]:
        kept.pop()
    return kept


def blank_skeleton(meta: dict, stage: dict, started: float, paper_minutes: float | None = None) -> str:
    skeleton = skeleton_text(meta, stage)
    launchers = public_launchers(skeleton)
    if not any(core.launcher(meta, stage) in line for line in launchers):
        raise core.UserError(f"The skeleton {core.shown(core.exercise_path(meta, stage))} has no definition of "
                             f"{core.launcher(meta, stage)}: the drill cannot be made from it.")
    includes = [line.rstrip() for line in skeleton.splitlines() if line.startswith("#include")]
    when = time.strftime("%Y-%m-%d %H:%M", time.localtime(started))
    out = [f"// Drill: chapter {meta['chapter']}, stage {stage['id']}: {stage['title']}."]
    if paper_minutes:
        out += [f"// Started {when}, on paper: write it without compiling or running it. "
                f"In {minutes_text(paper_minutes)}",
                "// it is built and graded once (press Enter in the `make drill` window, or run",
                "// `make drill-grade`, to hand it in earlier).",
                "//"]
    else:
        out += [f"// Started {when}. Write the kernel(s) and the launcher from scratch; the clock is running.",
                "// Grade: press Enter in the `make drill` window, or run `make drill-grade`.",
                "//"]
    out.append(f"// The contract (chapters/{meta['dir']}/stages.cuh):")
    out += [("//   " + line).rstrip() for line in contract(meta, stage)]
    out.append("")
    out += includes or [f'#include "{meta["dir"]}/stages.cuh"']
    out += ["", "namespace WORKBOOK_TRACK {", "", "namespace {", "", "}  // namespace", ""]
    out += launchers
    out += ["", "}  // namespace WORKBOOK_TRACK", ""]
    return "\n".join(out)


# ---- choosing a stage ------------------------------------------------------------------------------

# How often interviews ask for a stage (its "interview": {"asked": ...} in stages.json; none: medium).
ASKED_WEIGHT = {"high": 3.0, "medium": 2.0, "low": 1.0}
# Times the weight: a stage you passed in your exercises but never as a drill (you know the idea, now
# recall it against the clock) counts double; one already passed as a drill counts a quarter.
LEARNED_FACTOR = 2.0
MASTERED_FACTOR = 0.25


def mastered(state: dict, meta: dict, stage: dict) -> bool:
    return bool(st.drill_history(state, meta["chapter"], stage["id"]).get("times"))


def interview_tag(stage: dict) -> dict:
    """The stage's interview tag; a missing or unknown "asked" reads as medium."""
    tag = stage.get("interview") if isinstance(stage.get("interview"), dict) else {}
    asked = tag.get("asked") if tag.get("asked") in ASKED_WEIGHT else "medium"
    return dict(tag, asked=asked)


def weight(state: dict, meta: dict, stage: dict) -> float:
    base = ASKED_WEIGHT[interview_tag(stage)["asked"]]
    if mastered(state, meta, stage):
        return base * MASTERED_FACTOR
    if st.category(st.result(state, meta["chapter"], stage["id"])) == st.PASSED:
        return base * LEARNED_FACTOR
    return base


def pick(chapters: list[dict], state: dict, rng: random.Random) -> tuple[dict, dict]:
    """A stage drawn at random, weighted by how often interviews ask for it, by whether you passed it in
    your exercises (more likely) and by whether you already passed it as a drill (less likely)."""
    pool = [(m, s) for m in chapters for s in m["stages"]]
    return rng.choices(pool, weights=[weight(state, m, s) for m, s in pool])[0]


# ---- running a drill -------------------------------------------------------------------------------

def now() -> float:
    """The drill's clock (the tests replace it)."""
    return time.time()


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


def start(meta: dict, stage: dict, state: dict, paper_minutes: float | None = None) -> dict:
    path = drill_file(meta, stage)
    started = now()
    text = blank_skeleton(meta, stage, started, paper_minutes)
    if path.exists():
        old = move_aside(path, "earlier")
        print(f"note: an earlier drill file was moved to {core.shown(old)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    active = {"chapter": meta["chapter"], "stage": stage["id"], "file": core.shown(path), "started": started,
              "attempts": 0}
    if paper_minutes:
        active["paper_minutes"] = paper_minutes
    state["drills"]["active"] = active
    st.save(state)
    return active


def minutes_text(minutes: float) -> str:
    return f"{minutes:g} minute{'' if minutes == 1 else 's'}"


def paper_deadline(active: dict) -> float | None:
    minutes = active.get("paper_minutes")
    return active["started"] + 60 * minutes if minutes else None


def banner(active: dict, meta: dict, stage: dict) -> None:
    print(ui.paint(i18n.tr("Drill: chapter {chapter}, stage {stage}: {title}", chapter=meta["chapter"],
                           stage=stage["id"], title=stage["title"]), "bold"))
    tag = interview_tag(stage)
    asked = i18n.tr("Asked in interviews: {asked}", asked=i18n.tr(tag["asked"]))
    if tag.get("by_hand"):
        asked += i18n.tr("; expected written by hand, from memory")
    print(asked + i18n.tr("."))
    deadline = paper_deadline(active)
    if deadline is not None:
        at = time.strftime("%H:%M", time.localtime(deadline))
        print(i18n.tr("On paper: write it in {file} without compiling or running it. At {at} ({minutes}) it is "
                      "built and graded once.", file=active["file"], at=at,
                      minutes=minutes_text(active["paper_minutes"])))
    else:
        print(i18n.tr("Write it in {file}: it holds only the contract. Kernel, launch configuration, tail "
                      "handling: all yours.", file=active["file"]))
    best = st.drill_history(st.load(), meta["chapter"], stage["id"]).get("best")
    if isinstance(best, (int, float)):
        print(i18n.tr("Your best time on this stage: {time}.", time=ui.duration(best)))


def finish(active: dict, meta: dict, stage: dict, kind: str) -> Path | None:
    """Ends the running drill: no drill is active any more, and its file goes to drill/done/."""
    state = st.load()
    state["drills"]["active"] = None
    st.save(state)
    path = core.ROOT / active["file"]
    return move_aside(path, kind) if path.exists() else None


def grade(active: dict, meta: dict, stage: dict, timeout: float) -> bool:
    """Builds the drill grader, grades the drill's stage; True when it passed (and was recorded). On
    paper, this one grading ends the drill, whatever its verdict."""
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
    paper = paper_deadline(active) is not None
    print(f"[{ui.clock(now() - active['started'])}] building ...", flush=True)
    ok, output = core.build_target(f"ch{meta['chapter']:02d}_grade_drill")
    if not ok:
        print(core.compile_errors(output))
        if paper:
            return paper_verdict(active, meta, stage, "does not compile (the compiler's messages are above)")
        print(ui.paint(f"[{ui.clock(now() - active['started'])}] does not compile yet (messages above); "
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
        verdict = f"{core.STATUS_TEXT.get(status, status)}: {record.get('summary', '')}"
        if paper:
            return paper_verdict(active, meta, stage, verdict)
        print(ui.paint(f"[{ui.clock(now() - active['started'])}] {verdict}", "red"))
        return False
    seconds = now() - active["started"]
    state = st.load()
    entry = st.record_drill_pass(state, meta["chapter"], stage["id"], seconds, active.get("attempts", 1))
    st.save(state)
    kept = finish(active, meta, stage, "passed")
    extra = ""
    if isinstance(record.get("speedup"), (int, float)):
        extra = f", x{record['speedup']:.2f} over the previous stage"
    how = "on paper, first time" if paper else f"grading attempt {active.get('attempts', 1)}"
    print(ui.paint(i18n.tr("Passed in {time} ({how}{extra}).", time=ui.duration(seconds), how=how, extra=extra),
                   "green"))
    if len(entry["times"]) > 1:
        print(i18n.tr("Your best on this stage: {time} over {count} drills.", time=ui.duration(entry["best"]),
                      count=len(entry["times"])))
    print(i18n.tr("Your file is kept in {file}; `make progress` shows the time.", file=core.shown(kept)))
    return True


def paper_verdict(active: dict, meta: dict, stage: dict, verdict: str) -> bool:
    """The end of a paper drill that did not pass: its one grading is its result."""
    kept = finish(active, meta, stage, "paper-failed")
    print(ui.paint(f"On paper: {verdict}. The drill ends here (one grading on paper); your file is kept in "
                   f"{core.shown(kept) if kept else '?'}.", "red"))
    print(f"Fix it in your exercise (exercises/{meta['dir']}/), or try again: make drill CH={meta['chapter']} "
          f"STAGE={stage['id']} PAPER=1.")
    return False


def wait_for_hand_in(deadline: float) -> str:
    """Waits, without compiling anything, until the deadline or until Enter; "time" or "handed in"."""
    import select
    last_shown = None
    while True:
        left = deadline - now()
        if left <= 0:
            return "time"
        minutes = int(left // 60) + 1
        if minutes != last_shown and (minutes in (1, 5) or last_shown is None):
            print(f"[{ui.clock(left)} left] Enter hands it in now.", flush=True)
        last_shown = minutes
        try:
            ready, _, _ = select.select([sys.stdin], [], [], min(left, 30.0))
        except (OSError, ValueError):   # no selectable standard input: just wait
            time.sleep(min(left, 30.0))
            continue
        if ready:
            sys.stdin.readline()
            return "handed in"


def paper(active: dict, meta: dict, stage: dict, timeout: float, wait=wait_for_hand_in) -> int:
    """Paper mode in the terminal: wait for the time (or Enter), then grade once."""
    try:
        how = wait(paper_deadline(active))
    except KeyboardInterrupt:
        print(i18n.tr("\nThe drill is still running: `make drill` resumes it, `make drill-grade` hands it in, "
                      "`make drill-stop` gives it up."))
        return 0
    print(i18n.tr("Time is up: building and grading your drill once." if how == "time" else
                  "Handed in: building and grading your drill once."))
    return 0 if grade(active, meta, stage, timeout) else 1


def interactive(active: dict, meta: dict, stage: dict, timeout: float) -> int:
    contract_lines = contract(meta, stage)
    while True:
        elapsed = now() - active["started"]
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


def paper_minutes(args) -> float | None:
    if not getattr(args, "paper", False):
        return None
    minutes = getattr(args, "minutes", None)
    if minutes is None:
        return 20.0
    try:
        minutes = float(minutes)
    except (TypeError, ValueError):
        minutes = -1.0
    if not 0 < minutes <= 600:
        raise core.UserError(f"PAPER_MINUTES={getattr(args, 'minutes')} is not a number of minutes from 1 to 600.")
    return minutes


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
            print(i18n.tr("No drill is running."))
            return 0
        active, meta, stage = running
        kept = finish(active, meta, stage, "stopped")
        where = f"; your file is in {core.shown(kept)}" if kept else ""
        print(f"Drill of chapter {meta['chapter']}, stage {stage['id']} stopped after "
              f"{ui.duration(now() - active['started'])}{where}.")
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
                                 f"{ui.duration(now() - active['started'])} so far): finish it with "
                                 "`make drill-grade`, or give it up with `make drill-stop`, then start another.")
        print(i18n.tr("Resuming the drill started {time} ago.", time=ui.duration(now() - active["started"])))
    else:
        minutes = paper_minutes(args)
        if chapter in (None, ""):
            if wanted_stage not in (None, ""):
                raise core.UserError(f"STAGE={wanted_stage} needs a chapter too, "
                                     f"e.g. make drill CH=1 STAGE={wanted_stage}.")
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
        active = start(meta, stage, state, minutes)
    banner(active, meta, stage)
    on_paper = paper_deadline(active) is not None
    if getattr(args, "no_wait", False) or not sys.stdin.isatty():
        print(i18n.tr("Hand it in with `make drill-grade` when the time is up (it is graded once)." if on_paper else
                      "Grade it with `make drill-grade` when you are ready; the clock is running."))
        return 0
    if on_paper:
        return paper(active, meta, stage, args.timeout)
    return interactive(active, meta, stage, args.timeout)
