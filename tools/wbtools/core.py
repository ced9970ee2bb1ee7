"""Where things are, the chapters and their stages, and running one stage of a grader.

Every path the tools touch comes from ROOT (the workbook's folder) and BUILD (the build folder,
`build/` unless WORKBOOK_BUILD says otherwise). WORKBOOK_ROOT exists for the tools' own tests.
Use them as `core.ROOT` / `core.BUILD` (not copies), so that tests can point them elsewhere.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path

from . import i18n

ROOT = Path(os.environ.get("WORKBOOK_ROOT") or Path(__file__).resolve().parents[2]).resolve()
BUILD = Path(os.environ.get("WORKBOOK_BUILD") or ROOT / "build").resolve()

RESULT_RE = re.compile(r"^WORKBOOK-RESULT (\{.*\})\s*$")
BENCH_RE = re.compile(r"^WORKBOOK-BENCH (\{.*\})\s*$")
STATUS_TEXT = {
    "passed": "passed",
    "wrong": "wrong result",
    "not-implemented": "not implemented yet",
    "too-slow": "correct, too slow",
    "crashed": "crashed",
    "hung": "hung",
    "skipped": "compiled (no GPU)",
}


class UserError(Exception):
    """A problem the learner can fix; printed as one sentence, no traceback."""


# ---- chapters ------------------------------------------------------------------------------------

def chapter_dirs() -> list[Path]:
    folder = ROOT / "chapters"
    if not folder.is_dir():
        raise UserError(f"No chapters/ folder in {ROOT}: run the tools from a copy of the workbook.")
    return sorted(p for p in folder.iterdir()
                  if p.is_dir() and re.match(r"^\d\d_", p.name) and (p / "stages.json").exists())


STAGE_FILE_RE = re.compile(r"^(\d+)_[a-z0-9_]+$")
OP_RE = re.compile(r"^[a-z][a-z0-9_]*$")
MIN_CC_RE = re.compile(r"^[1-9][0-9]?\.[0-9]a?$")


def _check_min_cc(owner: dict, where: str) -> None:
    """An optional "min_cc": the compute capability a stage needs, "8.0", or "9.0a" for a stage that
    runs on that architecture alone (the grader skips it elsewhere, with the reason)."""
    value = owner.get("min_cc")
    if value is not None and not (isinstance(value, str) and MIN_CC_RE.match(value)):
        raise UserError(f"{where} \"min_cc\" is {value!r}; it is a compute capability as a string, \"8.0\", "
                        "or \"9.0a\" for a stage that runs on that architecture alone.")


def launcher_name(meta: dict, stage: dict) -> str:
    """The naming rule: a stage's launcher is <op>_<file> (the stage's "op", else the chapter's)."""
    return f"{stage.get('op') or meta['op']}_{stage['file']}"


def _check_meta(meta: dict, where: str) -> None:
    """The checks CMake's reader (cmake/WorkbookStages.cmake) makes, each said in one sentence."""
    if not isinstance(meta.get("op"), str) or not OP_RE.match(meta["op"]):
        raise UserError(f"{where}: the chapter needs an \"op\" (lower case, e.g. \"transpose\"): every launcher "
                        "is named <op>_<file>.")
    stages = meta.get("stages")
    if not isinstance(stages, list) or not stages:
        raise UserError(f"{where}: \"stages\" must be a list of the chapter's stages.")
    _check_min_cc(meta, f"{where}: the chapter's")
    for number, stage in enumerate(stages, start=1):
        if stage.get("id") != number:
            raise UserError(f"{where}: stage number {number} in the list has \"id\": {stage.get('id')!r}; the ids "
                            "are 1, 2, 3, ... in the order of the list.")
        for derived in ("function", "launcher"):
            if derived in stage:
                raise UserError(f"{where}: stage {number} has a \"{derived}\"; remove it: the launcher's name is "
                                "derived, <op>_<file>.")
        match = STAGE_FILE_RE.match(str(stage.get("file", "")))
        if not match or int(match.group(1)) != number:
            raise UserError(f"{where}: stage {number}'s \"file\" is {stage.get('file')!r}; it must be "
                            f"{number}_<lower-case words>, e.g. {number}_shared_tile.")
        if "op" in stage and not OP_RE.match(str(stage["op"])):
            raise UserError(f"{where}: stage {number}'s \"op\" is {stage['op']!r}; an op is lower case, e.g. \"dot\".")
        _check_min_cc(stage, f"{where}: stage {number}'s")


def read_meta(folder: Path) -> dict:
    """The one reader of a chapter's stages.json: checked, with "dir" (the folder's name) added,
    each stage's "launcher" derived by the naming rule and its "min_cc" (the compute capability it
    needs: its own, else the chapter's, else None)."""
    where = f"chapters/{folder.name}/stages.json"
    try:
        meta = json.loads((folder / "stages.json").read_text())
    except (OSError, json.JSONDecodeError) as error:
        raise UserError(f"{where} cannot be read ({error}): "
                        f"restore it with `git checkout -- {where}`.")
    _check_meta(meta, where)
    meta["dir"] = folder.name
    for stage in meta["stages"]:
        stage["launcher"] = launcher_name(meta, stage)
        if stage.get("min_cc") or meta.get("min_cc"):
            stage["min_cc"] = stage.get("min_cc") or meta["min_cc"]
    return meta


def all_chapters() -> list[dict]:
    """Every chapter, titles and hints in the learner's language (i18n.localize_chapter)."""
    return [i18n.localize_chapter(read_meta(folder), folder) for folder in chapter_dirs()]


def chapter_list() -> str:
    return ", ".join(f"{m['chapter']} ({m['dir'][3:]})" for m in all_chapters()) or "none yet"


def load_chapter(number: int | str) -> dict:
    """The chapter's stages.json (read_meta); UserError for an unknown chapter."""
    try:
        wanted = int(str(number).strip())
    except ValueError:
        raise UserError(f"'{number}' is not a chapter number: use one of {chapter_list()}.")
    for meta in all_chapters():
        if meta["chapter"] == wanted:
            return meta
    raise UserError(f"There is no chapter {wanted}: the chapters are {chapter_list()}.")


def stage_ids(meta: dict, only: int | str | None = None) -> list[int]:
    """Every stage id of the chapter, or just `only` after checking that it exists."""
    ids = [s["id"] for s in meta["stages"]]
    if only in (None, ""):
        return ids
    try:
        wanted = int(str(only).strip())
    except ValueError:
        raise UserError(f"STAGE={only} is not a number: chapter {meta['chapter']} has stages {ids[0]} to {ids[-1]}.")
    if wanted not in ids:
        raise UserError(f"Chapter {meta['chapter']} has no stage {wanted}: its stages are {ids[0]} to {ids[-1]}.")
    return [wanted]


def find_stage(meta: dict, stage: int | str) -> dict:
    wanted = stage_ids(meta, stage)[0]
    return next(s for s in meta["stages"] if s["id"] == wanted)


def launcher(meta: dict, stage: dict) -> str:
    """The stage's launcher function: the name the reader gives it, or the rule's `<op>_<file stem>`
    (the stage's "op", else the chapter's)."""
    named = stage.get("launcher")
    if named:
        return named
    return f"{stage.get('op') or meta.get('op', '')}_{stage['file']}"


def exercise_path(meta: dict, stage: dict) -> Path:
    return ROOT / "exercises" / meta["dir"] / f"{stage['file']}.cu"


def solution_path(meta: dict, stage: dict) -> Path:
    return ROOT / "solutions" / meta["dir"] / f"{stage['file']}.cu"


def shown(path: Path) -> str:
    """A path as the learner should read it: relative to the workbook when inside it."""
    try:
        return str(Path(path).resolve().relative_to(ROOT))
    except ValueError:
        return str(path)


# ---- building and running graders ----------------------------------------------------------------

def grader_path(meta: dict, track: str) -> Path:
    return BUILD / "bin" / f"ch{meta['chapter']:02d}_grade_{track}"


def require_configured_build(meta: dict) -> None:
    if not (BUILD / "CMakeCache.txt").exists():
        raise UserError(f"There is no build yet in {shown(BUILD)}: run `make check-chapter {meta['chapter']}` "
                        "once (it configures and builds), then try again.")
    if shutil.which("cmake") is None:
        raise UserError("CMake was not found: install it (Debian/Ubuntu: sudo apt-get install cmake).")


def build_target(target: str, build: Path | None = None) -> tuple[bool, str]:
    """Builds one target of the configured build (@p build, default the workbook's build/); returns
    (success, compiler output)."""
    folder = build or BUILD
    proc = subprocess.run(["cmake", "--build", str(folder), "--target", target, "-j", str(os.cpu_count() or 2)],
                          capture_output=True, text=True, cwd=folder.parent)
    return proc.returncode == 0, proc.stdout + proc.stderr


def compile_errors(output: str, limit: int = 40) -> str:
    """The part of a failed build a learner needs: the compiler's messages, not the command lines."""
    keep = []
    for line in output.splitlines():
        if re.match(r"^\[\d+/\d+\]", line) or line.startswith(("FAILED:", "ninja:", "gmake", "make[", "make:")):
            continue
        if "nvcc" in line and len(line) > 300:   # a compiler command line
            continue
        keep.append(line.replace(str(ROOT) + os.sep, ""))
    while keep and not keep[0].strip():
        keep.pop(0)
    if len(keep) > limit:
        keep = keep[:limit] + [f"... ({len(keep) - limit} more lines)"]
    return "\n".join(keep).rstrip()


def parse_results(output: str, tag: str = "WORKBOOK-RESULT") -> list[dict]:
    """Every record of a grader's output (or of a ctest -V log, whose lines have a prefix) that follows
    @p tag: WORKBOOK-RESULT (a stage's verdict) or WORKBOOK-SANITIZER (the sanitizer pass of a stage)."""
    pattern = RESULT_RE if tag == "WORKBOOK-RESULT" else re.compile(rf"^{re.escape(tag)} (\{{.*\}})\s*$")
    records = []
    for line in output.splitlines():
        match = pattern.match(line.strip()) or pattern.match(line.split(": ", 1)[-1].strip())
        if match:
            try:
                records.append(json.loads(match.group(1)))
            except json.JSONDecodeError:
                continue
    return records


def run_stage(grader: Path, stage: int, timeout: float, extra_env: dict | None = None) -> tuple[dict, str]:
    """Runs one stage in its own process; returns its result record and its whole output."""
    env = dict(os.environ, **(extra_env or {}))
    try:
        proc = subprocess.run([str(grader), f"[stage{stage}]"], capture_output=True, text=True,
                              timeout=timeout, env=env)
        output = proc.stdout + proc.stderr
        code = proc.returncode
    except subprocess.TimeoutExpired as expired:
        partial = expired.stdout or ""
        if isinstance(partial, bytes):
            partial = partial.decode(errors="replace")
        return ({"stage": stage, "status": "hung",
                 "summary": f"the stage did not finish in {timeout:.0f} s: a deadlock or an endless loop"}, partial)
    records = parse_results(output)
    if records:
        return records[-1], output
    reason = f"exit code {code}" if code >= 0 else f"signal {-code}"
    return ({"stage": stage, "status": "crashed",
             "summary": f"the grader process died ({reason}) before reporting"}, output)


def failure_details(output: str) -> str:
    """The grader's explanation of a failure, without Catch2's framing lines."""
    keep = []
    for line in output.splitlines():
        if line.startswith(("WORKBOOK-RESULT", "====", "---", "Filters:", "test cases:", "assertions:", "Randomness")):
            continue
        keep.append(line)
    return "\n".join(keep).rstrip()


def format_number(value, pattern: str) -> str:
    return pattern.format(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else "-"
