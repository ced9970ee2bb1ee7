#!/usr/bin/env python3
"""`make selfcheck`: do the graders reject wrong code for the right reason, and never reject right code?

Runs, from an existing build (configured with -DWORKBOOK_CATALOG=ON -DWORKBOOK_SCAFFOLD_LEVELS=ON):
  harness     the harness's CPU tests                                     must pass
  solutions   every stage of every chapter, reference solutions          must pass
  skeletons   every stage at each scaffold level: outline (the untouched     must say "not implemented yet"
              exercises), guided and blank (generated from scaffolds/)
  catalog     every known-wrong kernel in catalog/NN_name/*.cu           must fail with its expected
                                                                          status and phrase
and prints one table. Any other outcome is a surprise: the exit status is then 1. Without a usable GPU
it says so in one sentence and exits 0 (skipped).

With --repeat N it runs everything N times and reports every check whose outcome differed between
repetitions (flaky), and how close each timed solution came to its required speed-up. Repetitions
spread over several runs (each written with --json) are combined, with no GPU, by
    python3 tools/selfcheck.py --merge run1.json run2.json

Stages run one process each, as ctest runs them. Runs whose verdict cannot depend on timing (skeletons,
catalog entries caught by correctness checks) go first, several at a time (--jobs); then everything
that is timed (solutions, entries expected to be too slow or implausibly fast) runs alone on the GPU.

    python3 tools/selfcheck.py [--build build] [--chapters 1 2] [--jobs 4] [--output table.txt]

`--static` runs nothing and needs no build: the files against stages.json, the skeletons' TODO markers,
the launcher naming rule, the catalog's headers, no path of this machine (wbtools/static_check.py).

Standard library only.
"""
from __future__ import annotations

import argparse
import concurrent.futures
import json
import os
import re
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
# core: the chapters and the graders' records; catalog: the catalog's grammar and judge
from wbtools import catalog, core, static_check  # noqa: E402

ROOT = core.ROOT


@dataclass
class Check:
    suite: str            # harness, solutions, skeletons, catalog
    chapter: int
    stage: int
    case: str             # what is graded: "reference", "skeleton" or the catalog entry's name
    command: list[str]
    status: str           # the expected status
    phrase: str = ""      # words the grader's message must contain
    timed: bool = False   # its verdict depends on timing: run it alone
    racecheck: bool = False   # run under compute-sanitizer's racecheck, correctness checks only
    got: dict = field(default_factory=dict)
    seconds: float = 0.0
    output: str = ""

    @property
    def expected(self) -> str:
        return self.status + (f' "{self.phrase}"' if self.phrase else "")

    @property
    def ok(self) -> bool:
        return catalog.judged((self.status,), self.phrase, self.got)


def chapter_metas(wanted: list[int] | None) -> list[dict]:
    return [meta for meta in core.all_chapters() if not wanted or meta["chapter"] in wanted]


def catalog_entries(meta: dict) -> list[catalog.Entry]:
    """Every entry of the chapter's catalog; one sentence and exit status 2 when a header is wrong."""
    try:
        return catalog.entries(ROOT / "catalog" / meta["dir"])
    except catalog.CatalogError as error:
        raise SystemExit(f"make selfcheck: {error}")


def plan(build: Path, metas: list[dict], suites: set[str], match: str = "") -> list[Check]:
    bin_dir = build / "bin"
    checks: list[Check] = []
    if "harness" in suites:
        checks.append(Check("harness", 0, 0, "CPU tests", [str(bin_dir / "workbook_cpu_tests")], "passed"))
    for meta in metas:
        prefix = f"ch{meta['chapter']:02d}"
        for stage in meta["stages"] if "solutions" in suites else []:
            sid = stage["id"]
            checks.append(Check("solutions", meta["chapter"], sid, "reference",
                                [str(bin_dir / f"{prefix}_grade_solutions"), f"[stage{sid}]"], "passed", timed=True))
        for stage in meta["stages"] if "skeletons" in suites else []:
            sid = stage["id"]
            # exercises/ is the outline level; the guided and blank levels have their own graders
            # (cmake/WorkbookScaffolds.cmake, built with -DWORKBOOK_SCAFFOLD_LEVELS=ON).
            for case, grader in (("skeleton (outline)", "exercises"), ("skeleton (guided)", "guided"),
                                 ("skeleton (blank)", "blank")):
                checks.append(Check("skeletons", meta["chapter"], sid, case,
                                    [str(bin_dir / f"{prefix}_grade_{grader}"), f"[stage{sid}]"],
                                    "not-implemented", "not implemented yet"))
        if "catalog" in suites:
            for entry in catalog_entries(meta):
                if match and not re.search(match, entry.name):
                    continue
                expect = catalog.expectation(entry, emulated=False)
                sid, name = entry.stage, entry.name
                checks.append(Check("catalog", meta["chapter"], sid, name,
                                    [str(bin_dir / "catalog" / f"{prefix}_catalog_{name}"), f"[stage{sid}]"],
                                    entry.status, entry.phrase, timed=expect.timed, racecheck=expect.racecheck))
                if expect.racecheck:   # the control: the reference of the same stage shows no hazard
                    checks.append(Check("catalog", meta["chapter"], sid, f"{name} (control: reference)",
                                        [str(bin_dir / f"{prefix}_grade_solutions"), f"[stage{sid}]"],
                                        "no-race", "0 hazards", racecheck=True))
    return checks


def run(check: Check, timeout: float) -> Check:
    start = time.monotonic()
    if not Path(check.command[0]).exists():
        check.got = {"status": "not-built", "summary": f"{Path(check.command[0]).name} is not built"}
        return check
    if check.suite == "harness":
        try:
            proc = subprocess.run(check.command, capture_output=True, text=True, timeout=timeout)
            check.output = proc.stdout + proc.stderr
            last_line = (check.output.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
            check.got = {"status": "passed" if proc.returncode == 0 else "wrong",
                         "summary": "" if proc.returncode == 0 else last_line}
        except subprocess.TimeoutExpired:
            check.got = {"status": "hung", "summary": f"no verdict after {timeout:.0f} s"}
    else:   # a grader, under racecheck when asked: judged as the catalog's ctest tests judge it
        try:
            check.got, check.output = catalog.run(check.command, check.racecheck, timeout)
        except catalog.CatalogError as error:
            check.got = {"status": "not-built", "summary": str(error)}
    check.seconds = time.monotonic() - start
    return check


def gpu_unavailable(checks: list[Check], timeout: float) -> str | None:
    """The harness's sentence when no GPU can be used, from one quick grader run; None when one can."""
    probe = next((c for c in checks if c.suite in ("solutions", "skeletons", "catalog")
                  and Path(c.command[0]).exists()), None)
    if probe is None:
        return None
    env = dict(os.environ, WORKBOOK_CORRECTNESS_ONLY="1", WORKBOOK_SANITIZE="0")
    proc = subprocess.run(probe.command, capture_output=True, text=True, timeout=timeout, env=env)
    for line in proc.stdout.splitlines():
        if line.startswith("WORKBOOK-SKIP:"):
            return line.split(":", 1)[1].strip().rstrip(".")
    if any(record.get("emulated") for record in core.parse_results(proc.stdout)):   # a CPU backend
        return "this build runs the kernels on a CPU emulator, and the catalog needs a real GPU"
    return None


def table(checks: list[Check], gpu: str) -> str:
    header = f"{'suite':<10} {'ch':>2} {'st':>2}  {'case':<30} {'expected':<42} {'got':<16} {'time':>6}  verdict"
    lines = [f"make selfcheck on {gpu}" if gpu else "make selfcheck", header, "-" * len(header)]
    for c in checks:
        verdict = "ok" if c.ok else "SURPRISE: " + (c.got.get("summary") or c.got.get("status", "?"))[:160]
        lines.append(f"{c.suite:<10} {c.chapter or '':>2} {c.stage or '':>2}  {c.case[:30]:<30} {c.expected[:42]:<42} "
                     f"{c.got.get('status', '?'):<16} {c.seconds:>5.1f}s  {verdict}")
    surprises = sum(not c.ok for c in checks)
    counts = {}
    for c in checks:
        counts[c.suite] = counts.get(c.suite, 0) + 1
    lines.append("-" * len(header))
    lines.append(f"{len(checks)} checks ({', '.join(f'{n} {s}' for s, n in counts.items())}): "
                 + ("no surprises." if surprises == 0 else f"{surprises} SURPRISE{'S' if surprises > 1 else ''}."))
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="selfcheck", description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.environ.get("WORKBOOK_BUILD", str(ROOT / "build")))
    parser.add_argument("--chapters", nargs="*", type=int, default=None)
    parser.add_argument("--suites", default="harness,solutions,skeletons,catalog")
    parser.add_argument("--match", default="", metavar="REGEX",
                        help="run only the catalog entries whose name matches this regular expression (solutions, "
                             "skeletons and the harness as --suites says), e.g. the entries a grader change concerns")
    parser.add_argument("--jobs", type=int, default=int(os.environ.get("SELFCHECK_JOBS", 4)),
                        help="processes at a time for the runs whose verdict does not depend on timing")
    parser.add_argument("--timeout", type=float, default=float(os.environ.get("WORKBOOK_STAGE_TIMEOUT", 300)))
    parser.add_argument("--output", help="also write the table to this file")
    parser.add_argument("--json", help="also write every outcome to this file")
    parser.add_argument("--verbose", "-v", action="store_true", default=os.environ.get("SELFCHECK_VERBOSE") == "1",
                        help="print progress and the whole output of every surprise (also SELFCHECK_VERBOSE=1)")
    parser.add_argument("--repeat", type=int, default=1, help="run everything this many times; report any check "
                        "whose outcome differs between repetitions")
    parser.add_argument("--deadline", type=float, default=0, help="with --repeat: start no repetition that would "
                        "end more than this many seconds after the first began")
    parser.add_argument("--static", action="store_true", help="run nothing: check the files against stages.json, "
                        "the skeletons' TODO markers, the launcher naming rule, the catalog's headers and "
                        "paths of this machine (no build, no GPU)")
    parser.add_argument("--merge", nargs="+", metavar="JSON", help="run nothing: combine the repetitions saved "
                        "with --json by earlier runs, and report surprises, flaky checks and speed margins")
    args = parser.parse_args(argv)
    if args.merge:
        return merge(args.merge)
    if args.static:
        return static_check.main()

    build = Path(args.build)
    try:
        metas = chapter_metas(args.chapters)
    except core.UserError as error:
        print(f"make selfcheck: {error}")
        return 2
    suites = set(args.suites.split(","))
    reason = gpu_unavailable(plan(build, metas, suites), args.timeout)
    if reason:
        print(f"make selfcheck: skipped, because {reason}. Only the build and the harness's CPU tests ran.")
        return 0

    def run_one(c: Check) -> None:
        run(c, args.timeout)
        if args.verbose:   # progress, so that a log cut short still shows what finished
            print(f"  {'ok' if c.ok else 'SURPRISE'}: {c.suite} ch{c.chapter:02d} stage {c.stage} {c.case}: "
                  f"{c.got.get('status')} ({c.seconds:.1f} s)", flush=True)

    started = time.monotonic()
    repetitions: list[list[Check]] = []
    texts: list[str] = []
    while len(repetitions) < args.repeat:
        if repetitions and args.deadline:   # would one more repetition end past the deadline?
            elapsed = time.monotonic() - started
            if elapsed + elapsed / len(repetitions) > args.deadline:
                break
        rep_started = time.monotonic()
        checks = plan(build, metas, suites, args.match)
        untimed = [c for c in checks if not c.timed]
        timed = [c for c in checks if c.timed]
        print(f"selfcheck{f' {len(repetitions) + 1}/{args.repeat}' if args.repeat > 1 else ''}: {len(untimed)} "
              f"untimed runs ({args.jobs} at a time), then {len(timed)} timed runs alone ...", flush=True)
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
            list(pool.map(run_one, untimed))
        for c in timed:
            run_one(c)
        gpu = next((c.output for c in checks if "GPU: " in c.output), "")
        gpu = re.search(r"^GPU: (.*)$", gpu, re.M).group(1) if gpu else ""
        texts.append(table(checks, gpu) + f"\n(this run: {time.monotonic() - rep_started:.0f} s)")
        repetitions.append(checks)
        save(args, texts, repetitions)   # after every repetition, so that a run cut short keeps what it did
        if args.verbose:
            for c in checks:
                if not c.ok:
                    print(f"\n==== {c.suite} ch{c.chapter:02d} stage {c.stage} {c.case}: {' '.join(c.command)}\n"
                          f"{c.output}")

    text = texts[-1]
    if len(repetitions) > 1:
        text += "\n\n" + flakiness(repetitions)
    text += "\n\n" + speed_margins(repetitions)
    print(text)
    return 0 if all(c.ok for checks in repetitions for c in checks) else 1


def save(args, texts: list[str], repetitions: list[list[Check]]) -> None:
    """Writes --output (every repetition's table, then the flakiness report) and --json."""
    if args.output:
        extra = ["\n" + flakiness(repetitions)] if len(repetitions) > 1 else []
        extra.append("\n" + speed_margins(repetitions))
        Path(args.output).write_text("\n\n".join(texts + extra) + "\n")
    if args.json:
        Path(args.json).write_text(json.dumps([[{"suite": c.suite, "chapter": c.chapter, "stage": c.stage,
                                                 "case": c.case, "expected": c.expected, "ok": c.ok,
                                                 "seconds": round(c.seconds, 2), "got": c.got} for c in checks]
                                               for checks in repetitions], indent=1))


def differing_outcomes(repetitions: list[list]) -> dict[tuple, list[str]]:
    """The checks that did not end the same way in every repetition (status, and whether it was
    expected), with what each repetition gave."""
    outcomes: dict[tuple, list[str]] = {}
    for checks in repetitions:
        for c in checks:
            key = (c.suite, c.chapter, c.stage, c.case)
            outcomes.setdefault(key, []).append(f"{c.got.get('status')}{'' if c.ok else ' (SURPRISE)'}")
    return {k: v for k, v in outcomes.items() if len(set(v)) > 1}


def flakiness(repetitions: list[list]) -> str:
    """One line on surprises and flaky checks over all repetitions, then one line per flaky check."""
    differing = differing_outcomes(repetitions)
    surprises = sum(not c.ok for checks in repetitions for c in checks)
    lines = [f"{len(repetitions)} repetitions of {len(repetitions[0])} checks: {surprises} surprises in all, "
             f"{len(differing)} checks whose outcome differed between repetitions."]
    for (suite, chapter, stage, case), seen in sorted(differing.items()):
        lines.append(f"  FLAKY {suite} ch{chapter:02d} stage {stage} {case}: {', '.join(seen)}")
    return "\n".join(lines)


def speed_margins(repetitions: list[list]) -> str:
    """How far above its required speed-up each timed solution stage stayed: the smallest margin over
    the repetitions, closest first. A margin of a few percent is the place where a noisier GPU would
    first turn a right kernel into a wrong verdict."""
    seen: dict[tuple, list[tuple[float, float]]] = {}
    for checks in repetitions:
        for c in checks:
            got = c.got
            if c.suite == "solutions" and got.get("speedup") and got.get("required"):
                seen.setdefault((c.chapter, c.stage), []).append((got["speedup"], got["required"]))
    if not seen:
        return "Speed margins: no timed solution stage reported a speed-up."
    rows = sorted(((min(s / r - 1 for s, r in v), k, v) for k, v in seen.items()))
    lines = [f"Speed margins of the {len(rows)} timed solution stages over {len(repetitions)} "
             f"repetition{'s' if len(repetitions) > 1 else ''} (measured speed-up over the required one, "
             "smallest first):"]
    for margin, (chapter, stage), v in rows[:8]:
        speedups = [s for s, _ in v]
        lines.append(f"  ch{chapter:02d} stage {stage}: x{min(speedups):.3f} to x{max(speedups):.3f}, required "
                     f"x{max(r for _, r in v):.3f} at most: {100 * margin:+.1f}%")
    if len(rows) > 8:
        lines.append(f"  ... the other {len(rows) - 8} stages kept at least {100 * rows[8][0]:+.1f}%.")
    return "\n".join(lines)


@dataclass
class Outcome:
    """One check's outcome as saved by --json, for --merge."""
    suite: str
    chapter: int
    stage: int
    case: str
    ok: bool
    got: dict


def merge(paths: list[str]) -> int:
    """Combines the repetitions saved by several runs: one report, exit status 1 on any surprise or on
    any check whose outcome was not the same in every repetition."""
    repetitions: list[list[Outcome]] = []
    for path in paths:
        try:
            saved = json.loads(Path(path).read_text())
            repetitions += [[Outcome(c["suite"], c["chapter"], c["stage"], c["case"], c["ok"], c["got"])
                             for c in checks] for checks in saved]
        except (OSError, ValueError, KeyError, TypeError) as error:
            print(f"selfcheck --merge: cannot read {path} ({error!r}); give the files written by --json.")
            return 2
    if not repetitions:
        print("selfcheck --merge: the files hold no repetition.")
        return 2
    sizes = sorted({len(checks) for checks in repetitions})
    if len(sizes) > 1:
        print(f"selfcheck --merge: the repetitions ran different sets of checks ({sizes}); merge runs of "
              "the same build and options only.")
        return 2
    print(f"{len(repetitions)} repetitions from {len(paths)} file{'s' if len(paths) > 1 else ''}\n")
    surprises = [c for checks in repetitions for c in checks if not c.ok]
    for c in surprises:
        print(f"  SURPRISE {c.suite} ch{c.chapter:02d} stage {c.stage} {c.case}: {c.got.get('status')}: "
              f"{(c.got.get('summary') or '')[:160]}")
    print(flakiness(repetitions) + "\n\n" + speed_margins(repetitions))
    return 1 if surprises or differing_outcomes(repetitions) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
