"""build/progress.json: what the tools remember between runs (git ignores build/).

    {"format": 2,
     "results":    {"<chapter>": {"<stage>": <latest WORKBOOK-RESULT record + "when", "time">}},
     "hints_seen": {"<chapter>": {"<stage>": <how many hints were shown>}},
     "drills":     {"active": {"chapter", "stage", "file", "started", "attempts"} or null,
                    "history": {"<chapter>": {"<stage>": {"times": [seconds to pass, ...], "best": s}}}}}

Version 1 (written by the first `make check-chapter`) kept the results at the top level; it is
read as such. A file that cannot be parsed is set aside (progress.json.unreadable-<time>), never
silently overwritten. Writes go through a temporary file and a rename, so an interrupted run
cannot leave half a file.
"""
from __future__ import annotations

import json
import os
import sys
import time
from pathlib import Path

from . import core

FORMAT = 2


def path() -> Path:
    return core.BUILD / "progress.json"


def empty() -> dict:
    return {"format": FORMAT, "results": {}, "hints_seen": {}, "drills": {"active": None, "history": {}}}


def load() -> dict:
    file = path()
    state = empty()
    if not file.exists():
        return state
    try:
        data = json.loads(file.read_text())
        if not isinstance(data, dict):
            raise ValueError("not a JSON object")
    except (OSError, ValueError) as error:
        aside = file.with_name(f"progress.json.unreadable-{time.strftime('%Y%m%d-%H%M%S')}")
        try:
            file.rename(aside)
            where = f"it was moved to {core.shown(aside)}"
        except OSError:
            where = "it was left as it is"
        print(f"note: {core.shown(file)} could not be read ({error}); {where} and progress starts afresh.",
              file=sys.stderr)
        return state
    if "format" not in data:   # version 1: {"1": {"2": record}}
        data = {"results": {k: v for k, v in data.items() if k.isdigit() and isinstance(v, dict)}}
    for key in ("results", "hints_seen"):
        if isinstance(data.get(key), dict):
            state[key] = data[key]
    drills = data.get("drills")
    if isinstance(drills, dict):
        state["drills"]["active"] = drills.get("active") if isinstance(drills.get("active"), dict) else None
        if isinstance(drills.get("history"), dict):
            state["drills"]["history"] = drills["history"]
    return state


def save(state: dict) -> None:
    file = path()
    file.parent.mkdir(parents=True, exist_ok=True)
    state["format"] = FORMAT
    temporary = file.with_name(f".progress.json.{os.getpid()}")
    temporary.write_text(json.dumps(state, indent=1, sort_keys=True) + "\n")
    os.replace(temporary, file)


# ---- results -------------------------------------------------------------------------------------

def result(state: dict, chapter: int, stage: int) -> dict | None:
    return state["results"].get(str(chapter), {}).get(str(stage))


def record_results(chapter: int, results: dict[int, dict], now: float | None = None) -> None:
    """Keeps the latest result of every graded stage ("skipped" says nothing about the code: not kept)."""
    now = time.time() if now is None else now
    results = {s: r for s, r in results.items() if r.get("status") not in (None, "skipped")}
    if not results:
        return
    state = load()
    chapter_results = state["results"].setdefault(str(chapter), {})
    for stage, record in results.items():
        previous = chapter_results.get(str(stage), {})
        kept = dict(record, when=time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(now)), time=now)
        kept.pop("details", None)   # the whole failure message: the grader prints it, the table does not need it
        first = previous.get("first_passed")
        if first is None and record.get("status") == "passed":
            first = now
        if first is not None:
            kept["first_passed"] = first
        chapter_results[str(stage)] = kept
    save(state)


# What a record means for the progress table.
NOT_STARTED, FAILING, TOO_SLOW, PASSED = "not started", "failing", "correct, too slow", "passed"
UNTIMED = "correct, not timed"   # passed on the CPU emulator: correctness only, speed needs a GPU


def category(record: dict | None) -> str:
    status = (record or {}).get("status")
    if status in (None, "not-implemented", "skipped"):
        return NOT_STARTED
    if status == "passed":
        return UNTIMED if (record or {}).get("emulated") else PASSED
    if status == "too-slow":
        return TOO_SLOW
    return FAILING


# ---- hints ---------------------------------------------------------------------------------------

def hints_seen(state: dict, chapter: int, stage: int) -> int:
    value = state["hints_seen"].get(str(chapter), {}).get(str(stage), 0)
    return value if isinstance(value, int) and value >= 0 else 0


def set_hints_seen(state: dict, chapter: int, stage: int, count: int) -> None:
    state["hints_seen"].setdefault(str(chapter), {})[str(stage)] = count


# ---- drills --------------------------------------------------------------------------------------

def drill_history(state: dict, chapter: int, stage: int) -> dict:
    entry = state["drills"]["history"].get(str(chapter), {}).get(str(stage))
    return entry if isinstance(entry, dict) else {}


def record_drill_pass(state: dict, chapter: int, stage: int, seconds: float, attempts: int) -> dict:
    history = state["drills"]["history"].setdefault(str(chapter), {})
    entry = history.setdefault(str(stage), {"times": []})
    entry.setdefault("times", []).append(round(seconds, 1))
    entry["best"] = min(entry["times"])
    entry["last"] = round(seconds, 1)
    entry["last_attempts"] = attempts
    entry["when"] = time.strftime("%Y-%m-%d %H:%M:%S")
    return entry
