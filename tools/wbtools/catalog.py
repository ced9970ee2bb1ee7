"""The catalog of known-wrong kernels (catalog/NN_name/<stage>_<what>.cu): its header grammar, parsed and
judged here and nowhere else. CMake asks this module for the entries at configure time and runs every
entry's ctest test through it; tools/selfcheck.py uses it for its table.

An entry's header holds one line
    // expect: <status> "<phrase>"      status: wrong | not-implemented | too-slow | crashed | hung | race
    // expect: passed                     a right kernel in another style: the grader must pass it
and optionally one line for the CPU emulator's build
    // emulated: <status> "<phrase>"      status: wrong | not-implemented | crashed | hung | passed
    // emulated: skip "<reason>"          the emulator cannot see this bug
The phrase is words of the grader's message ("a | b": either); `race` means compute-sanitizer's
racecheck must report a hazard while the grader runs its correctness checks (selfcheck also runs the
stage's reference the same way, as a control that must show none). Without an `// emulated:` line the
emulated build expects what a GPU gives, except verdicts of the speed checks (skipped: the emulator
times nothing) and `race` (any failing verdict: the emulator's changing schedules expose races).

    python3 -B -m wbtools.catalog cmake [--emulated] <catalog folder>   (from tools/) one line per entry
    python3 -B -m wbtools.catalog judge [--emulated] <entry.cu> <grader>          runs and judges one entry
"""
from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

try:
    from . import core
except ImportError:   # run as a file rather than as wbtools.catalog
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from wbtools import core

STATUSES = ("wrong", "not-implemented", "too-slow", "crashed", "hung", "race")
EMULATED_STATUSES = ("wrong", "not-implemented", "too-slow", "crashed", "hung", "passed")
PHRASE = r"[-A-Za-z0-9_ ,':().=%/|]"
NAME_RE = re.compile(r"^(\d+)_[A-Za-z0-9_]+$")
EXPECT_RE = re.compile(rf'^// expect: (?:({"|".join(STATUSES)}) "({PHRASE}+)"|(passed))\s*$')
EMULATED_RE = re.compile(rf'^// emulated: (?:skip "([^"]+)"|({"|".join(EMULATED_STATUSES)}) "({PHRASE}*)")\s*$')
RACECHECK_RE = re.compile(r"RACECHECK SUMMARY: (\d+) hazard")
# Verdicts that come from the speed checks: the emulator times nothing, so it cannot reach them.
SPEED_PHRASES = ("implausibly fast", "cached")
# Verdicts that come from a timing measurement: on a GPU such an entry runs alone.
TIMED_PHRASES = ("implausibly fast",)
# What a race must turn into under the emulator, which runs the threads in changing orders.
EMULATED_RACE = ("wrong", "crashed", "hung")


class CatalogError(Exception):
    """An entry whose name or header breaks the grammar; one sentence naming the file."""


@dataclass
class Entry:
    path: Path
    name: str
    stage: int
    status: str                 # on a GPU
    phrase: str = ""
    emulated_status: str = ""   # empty: as on a GPU
    emulated_phrase: str = ""
    emulated_skip: str = ""


@dataclass
class Expectation:
    """What one build must give an entry: any of `statuses` and the phrase, or a skip with its reason."""
    statuses: tuple[str, ...]
    phrase: str = ""
    skip: str = ""
    racecheck: bool = False   # judged by compute-sanitizer's racecheck summary
    timed: bool = False       # its verdict needs a quiet GPU: run it alone


def shown(path: Path) -> str:
    try:
        return str(Path(path).resolve().relative_to(core.ROOT))
    except ValueError:
        return str(path)


def parse(path: Path) -> Entry:
    """The entry's name and header lines; CatalogError with one sentence when they break the grammar."""
    path = Path(path)
    match = NAME_RE.match(path.stem)
    if not match:
        raise CatalogError(f"{shown(path)}: a catalog entry's name is <stage>_<what_is_wrong>.cu, e.g. 2_no_tail.cu.")
    lines = path.read_text(errors="replace").splitlines()
    expects = [line for line in lines if line.startswith("// expect: ")]
    if len(expects) != 1:
        raise CatalogError(f'{shown(path)}: needs exactly one line `// expect: <status> "<phrase>"` '
                           f"(it has {len(expects)}).")
    expect = EXPECT_RE.match(expects[0])
    if not expect:
        raise CatalogError(f'{shown(path)}: `{expects[0]}` is not `// expect: <status> "<phrase>"` (status: '
                           f"{', '.join(STATUSES)}; phrase: letters, digits, spaces, - _ , ' : ( ) . = % /), "
                           "nor `// expect: passed` for a right kernel.")
    entry = Entry(path, path.stem, int(match.group(1)), expect.group(1) or "passed", expect.group(2) or "")
    emulated = [line for line in lines if line.startswith("// emulated: ")]
    if len(emulated) > 1:
        raise CatalogError(f"{shown(path)}: has {len(emulated)} `// emulated:` lines; one at most.")
    if emulated:
        found = EMULATED_RE.match(emulated[0])
        if not found:
            raise CatalogError(f'{shown(path)}: `{emulated[0]}` is not `// emulated: <status> "<phrase>"` (status: '
                               f'{", ".join(EMULATED_STATUSES)}) nor `// emulated: skip "<reason>"`.')
        entry.emulated_skip = found.group(1) or ""
        entry.emulated_status = found.group(2) or ""
        entry.emulated_phrase = found.group(3) or ""
    return entry


def entries(folder: Path) -> list[Entry]:
    """Every entry of one chapter's catalog folder, by name."""
    folder = Path(folder)
    return [parse(path) for path in sorted(folder.glob("*.cu"))] if folder.is_dir() else []


def expectation(entry: Entry, emulated: bool) -> Expectation:
    """The verdict an entry must get from a GPU build, or from the CPU emulator's build."""
    if not emulated:
        timed = entry.status in ("too-slow", "passed") or any(p in entry.phrase for p in TIMED_PHRASES)
        return Expectation((entry.status,), entry.phrase, racecheck=entry.status == "race", timed=timed)
    if entry.emulated_skip:
        return Expectation((), skip=entry.emulated_skip)
    if entry.emulated_status:
        return Expectation((entry.emulated_status,), entry.emulated_phrase)
    if entry.status == "too-slow" or any(p in entry.phrase for p in SPEED_PHRASES):
        return Expectation((), skip="its verdict comes from the speed checks, which need a GPU")
    if entry.status == "race":   # a race that only racecheck sees on a GPU must fail under the emulator
        return Expectation(EMULATED_RACE)
    return Expectation((entry.status,), entry.phrase)


def judged(statuses: tuple[str, ...], phrase: str, got: dict) -> bool:
    """Whether a verdict (a grader's record, or racecheck's) is the one expected."""
    if got.get("status") not in statuses:
        return False
    if not phrase:
        return True
    text = f"{got.get('summary', '')}\n{got.get('details', '')}"
    return any(part in text for part in phrase.split(" | "))


# ---- running a grader, under racecheck when asked ---------------------------------------------------

def sanitizer_path() -> str | None:
    found = shutil.which("compute-sanitizer") or "/usr/local/cuda/bin/compute-sanitizer"
    return found if Path(found).exists() else None


def racecheck_command(command: list[str]) -> tuple[list[str], dict]:
    """The command under racecheck, with the grader's correctness checks only (no timing, no inner pass)."""
    sanitizer = sanitizer_path()
    if sanitizer is None:
        raise CatalogError("compute-sanitizer (CUDA Toolkit, bin/) was not found")
    env = dict(os.environ, WORKBOOK_CORRECTNESS_ONLY="1", WORKBOOK_SANITIZE="0")
    return [sanitizer, "--tool", "racecheck", "--print-limit", "3", *command], env


def outcome(output: str, code: int, racecheck: bool) -> dict:
    """The verdict of one run: the grader's first record, or racecheck's (the grader's kept beside it)."""
    records = core.parse_results(output)
    if records:
        got = records[0]
    else:
        reason = f"exit code {code}" if code >= 0 else f"signal {-code}"
        got = {"status": "crashed", "summary": f"the grader process died ({reason}) before reporting"}
    if not racecheck:
        return got
    summary = RACECHECK_RE.search(output)
    lines = [line for line in output.splitlines() if "RACECHECK SUMMARY" in line or "Race reported" in line]
    grader = got.get("status")
    if summary is None:
        return {"status": "no-verdict",
                "summary": f"racecheck printed no summary (grader: {grader}): {got.get('summary', '')}"}
    return {"status": "race" if int(summary.group(1)) > 0 else "no-race",
            "summary": f"{lines[-1].strip('= ').strip()} (grader: {grader})",
            "details": "\n".join(lines[:3])}


def run(command: list[str], racecheck: bool, timeout: float) -> tuple[dict, str]:
    """Runs one grader command; returns its verdict and its whole output."""
    env = None
    if racecheck:
        command, env = racecheck_command(command)
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=env)
    except subprocess.TimeoutExpired:
        return {"status": "hung", "summary": f"no verdict after {timeout:.0f} s"}, ""
    output = proc.stdout + proc.stderr
    return outcome(output, proc.returncode, racecheck), output


# ---- the command line CMake uses ---------------------------------------------------------------------

def command_cmake(folder: str, emulated: bool) -> int:
    """One line per entry for cmake/WorkbookCatalog.cmake: `name|stage|skip reason` (no reason: a test).
    The reason loses the characters that CMake's lists give a meaning to."""
    try:
        found = entries(Path(folder))
    except CatalogError as error:
        print(error, file=sys.stderr)
        return 1
    for entry in found:
        skip = expectation(entry, emulated).skip.translate(str.maketrans(";|[]", ",/()"))
        print(f"{entry.name}|{entry.stage}|{skip}")
    return 0


def command_judge(path: str, grader: str, emulated: bool, timeout: float) -> int:
    """Runs one entry's grader on its stage and judges the verdict: exit status 0 when it is the one
    expected. A skipped entry prints WORKBOOK-SKIP and its reason (ctest's SKIP_REGULAR_EXPRESSION)."""
    entry = parse(Path(path))
    expect = expectation(entry, emulated)
    if expect.skip:
        print(f"WORKBOOK-SKIP: {expect.skip}")
        return 0
    try:
        got, output = run([grader, f"[stage{entry.stage}]"], expect.racecheck, timeout)
    except CatalogError as error:
        print(f"WORKBOOK-SKIP: {error}")
        return 0
    if "WORKBOOK-SKIP" in output and not expect.racecheck:
        print(output)
        return 0
    ok = judged(expect.statuses, expect.phrase, got)
    print(output)
    wanted = " or ".join(expect.statuses) + (f' "{expect.phrase}"' if expect.phrase else "")
    print(f"catalog entry {entry.name}: expected {wanted}, got {got.get('status')}: "
          f"{(got.get('summary') or '')[:300]} -> {'as expected' if ok else 'SURPRISE'}")
    return 0 if ok else 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="wbtools.catalog", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    listing = sub.add_parser("cmake", help="one line per entry of a chapter's catalog folder, for CMake")
    listing.add_argument("folder")
    listing.add_argument("--emulated", action="store_true")
    judge = sub.add_parser("judge", help="run one entry's grader on its stage and judge the verdict")
    judge.add_argument("entry")
    judge.add_argument("grader")
    judge.add_argument("--emulated", action="store_true")
    judge.add_argument("--timeout", type=float, default=float(os.environ.get("WORKBOOK_STAGE_TIMEOUT", 300)))
    args = parser.parse_args(argv)
    if args.command == "cmake":
        return command_cmake(args.folder, args.emulated)
    return command_judge(args.entry, args.grader, args.emulated, args.timeout)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
