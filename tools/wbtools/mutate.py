"""Mutation testing of the graders: small changes to a reference stage that a grader should reject.

A catalog entry (catalog/) is one wrong kernel that someone thought of. This module makes them by the
hundred, mechanically: it copies a reference stage, changes one thing in it (a comparison off by one, a
barrier removed, a 64-bit index narrowed to int, `+=` turned into `=`, x and y swapped, an atomicAdd
 made a plain `+=`, ...), builds the
chapter's grader with the changed stage and runs that stage. A change the grader rejects is *killed*.
One it passes has *survived*: either the change does not alter what the stage computes (an equivalent
mutant: a bound that no thread reaches, a barrier that a warp-synchronous loop did not need), or the
grader has a gap. Each survivor is read by a maintainer; a real gap becomes a catalog entry (several
per class) and a better check.

Everything happens in a scratch copy of the workbook (--scratch, by default build/mutate/): the
solutions are copied into its exercises/, which is where the grader's learner track reads them. The
learner's own exercises and build are never touched.

    python3 tools/mutate.py --chapter 2 [--stage 4] [--operators compare,barrier] [--list]

Standard library only.
"""
from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from . import core


@dataclass(frozen=True)
class Mutant:
    operator: str
    line: int          # 1-based line of the change in the stage file
    before: str        # the line as written
    after: str         # the line as changed

    def describe(self) -> str:
        return f"{self.operator} at line {self.line}: {self.before.strip()}  ->  {self.after.strip()}"


# ---- the operators: each takes the code part of one line and yields changed versions of it --------

STRING_RE = re.compile(r'"(?:[^"\\]|\\.)*"|\'(?:[^\'\\]|\\.)*\'')


def _masked(code: str) -> str:
    """The line with the inside of its string and character literals blanked out (same length), so that
    a message such as "cols <= 1024" is never mutated."""
    return STRING_RE.sub(lambda m: m.group(0)[0] + "_" * (len(m.group(0)) - 2) + m.group(0)[-1], code)


def _each_match(code: str, pattern: str, replace) -> list[str]:
    """One changed line per match of @p pattern outside literals, the match replaced by replace(match)."""
    out = []
    for match in re.finditer(pattern, _masked(code)):
        out.append(code[:match.start()] + replace(match) + code[match.end():])
    return out


def _compare(code: str) -> list[str]:
    """A bound off by one: < and <=, > and >= exchanged (binary operators only, which the formatter
    surrounds with spaces; template brackets and shifts have none)."""
    swap = {" < ": " <= ", " <= ": " < ", " > ": " >= ", " >= ": " > "}
    return _each_match(code, r" (<=|>=|<|>) ", lambda m: swap[m.group(0)])


def _equality(code: str) -> list[str]:
    return _each_match(code, r" (==|!=) ", lambda m: " != " if m.group(1) == "==" else " == ")


BARRIER_RE = re.compile(r"^(\s*)(__syncthreads\(\)|__syncwarp\([^;]*\)|__threadfence\w*\(\)|"
                        r"[\w:]*(cp_async_wait|wait_group|mbarrier_wait|named_barrier_sync|wgmma_fence|"
                        r"fence_async_shared|fence_barrier_init)\w*(<[^;]*>)?\([^;]*\)|[\w.]+\.sync\(\));\s*$")


def _barrier(code: str) -> list[str]:
    """A barrier, fence or wait left out (the statement must be the whole line)."""
    match = BARRIER_RE.match(code)
    return [f"{match.group(1)};   // mutant: {match.group(2)} left out"] if match else []


WIDE_RE = r"\b(std::int64_t|int64_t|std::size_t|size_t|long long)\b"


def _width(code: str) -> list[str]:
    """Every 64-bit integer type of the line narrowed to int (a mutant that only a case past 2^31
    elements can kill: the GPU graders run those where memory allows)."""
    if not re.search(WIDE_RE, code) or code.lstrip().startswith(("using ", "static_assert")):
        return []
    if "cudaStream_t" in code:    # a launcher's signature: the header declares it, so it would not link
        return []
    return [re.sub(WIDE_RE, "int", code)]


def _off_by_one(code: str) -> list[str]:
    """A `+ 1` or `- 1` left out (an integer 1, not 1.0f or 16)."""
    return _each_match(code, r" [+-] 1(?![\w.])", lambda m: "")


def _accumulate(code: str) -> list[str]:
    """An accumulation that overwrites: `x += y` becomes `x = y` (also -=, *=, |=, ...)."""
    return _each_match(code, r" (\+|-|\*|/|\||&|\^|<<|>>)= ", lambda m: " = ")


def _swap_xy(code: str) -> list[str]:
    """threadIdx.x and threadIdx.y (or blockIdx) exchanged, one use at a time."""
    return _each_match(code, r"\b(threadIdx|blockIdx|blockDim|gridDim)\.([xy])\b",
                       lambda m: f"{m.group(1)}.{'y' if m.group(2) == 'x' else 'x'}")


def _extremes(code: str) -> list[str]:
    """The identity of a max or min made finite or zero, and max and min exchanged."""
    out = _each_match(code, r"-INFINITY|-CUDART_INF_F|-std::numeric_limits<float>::infinity\(\)",
                      lambda m: "-3.0e38f")
    out += _each_match(code, r"\b(fmaxf|fminf|max|min)\(",
                       lambda m: {"fmaxf": "fminf(", "fminf": "fmaxf(", "max": "min(", "min": "max("}[m.group(1)])
    return out


ATOMIC_RE = re.compile(r"\batomicAdd\((&?)([^,()]+(?:\[[^\]]*\])?), ([^;]+)\);")


def _atomic(code: str) -> list[str]:
    """An atomicAdd used as a statement made a plain read-modify-write: `atomicAdd(p, v);` becomes
    `*p += v;` and `atomicAdd(&x[i], v);` becomes `x[i] += v;` (the race between blocks that loses
    updates on a GPU). An atomicAdd whose result is used (a ticket) is left alone."""
    def plain(match: re.Match) -> str:
        target = match.group(2).strip() if match.group(1) else "*" + match.group(2).strip()
        return f"{target} += {match.group(3)};"
    return _each_match(code, ATOMIC_RE.pattern, plain)


OPERATORS = {
    "compare": _compare,
    "equality": _equality,
    "barrier": _barrier,
    "width": _width,
    "off-by-one": _off_by_one,
    "accumulate": _accumulate,
    "swap-xy": _swap_xy,
    "extremes": _extremes,
    "atomic": _atomic,
}


def code_part(line: str, in_comment: bool) -> tuple[str, str, bool]:
    """(code, comment, in_comment after the line): the part of a line a mutation may change. Block
    comments are followed across lines; a `//` starts a comment (the stage files have no strings
    that hold one)."""
    if in_comment:
        end = line.find("*/")
        if end < 0:
            return "", line, True
        return "", line, False    # code after a closing */ on the same line is left alone
    stripped = line.lstrip()
    if stripped.startswith(("#", "/*")) or not stripped:
        return "", line, stripped.startswith("/*") and "*/" not in stripped
    cut = line.find("//")
    if cut < 0:
        return line, "", False
    return line[:cut], line[cut:], False


def mutants(source: str, operators: list[str]) -> list[Mutant]:
    """Every mutant of a stage file for the given operators, in file order per operator."""
    found = []
    lines = source.splitlines()
    in_comment = False
    coded = []
    for line in lines:
        code, comment, in_comment = code_part(line, in_comment)
        coded.append((code, comment))
    for name in operators:
        for number, (code, comment) in enumerate(coded, start=1):
            if not code.strip():
                continue
            for changed in OPERATORS[name](code):
                after = changed + comment if name != "barrier" else changed
                found.append(Mutant(name, number, lines[number - 1], after))
    return found


def apply(source: str, mutant: Mutant) -> str:
    lines = source.splitlines(keepends=True)
    ending = "\n" if lines[mutant.line - 1].endswith("\n") else ""
    lines[mutant.line - 1] = mutant.after + ending
    return "".join(lines)


# ---- the scratch copy ------------------------------------------------------------------------------

def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True)


def prepare_scratch(scratch: Path, meta: dict, backend: str) -> Path:
    """A copy of the workbook (tracked and untracked files git does not ignore) in scratch/tree, with
    the chapter's solutions in its exercises/, configured in scratch/tree/build. Returns the tree."""
    tree = scratch / "tree"
    listed = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], core.ROOT)
    if listed.returncode != 0:
        raise core.UserError("The mutation tool copies the workbook with git: run it from a git clone of the workbook.")
    replaced = {f"exercises/{meta['dir']}/{stage['file']}.cu": f"solutions/{meta['dir']}/{stage['file']}.cu"
                for stage in meta["stages"]}
    for name in filter(None, listed.stdout.split("\0")):
        source, target = core.ROOT / replaced.get(name, name), tree / name
        # Files already equal are left alone, so that a second run rebuilds only what changed.
        if source.is_file() and (not target.exists() or target.read_bytes() != source.read_bytes()):
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target)
    build = tree / "build"
    if not (build / "CMakeCache.txt").exists():
        generator = ["-G", "Ninja"] if shutil.which("ninja") else []
        done = _run(["cmake", "-S", str(tree), "-B", str(build), *generator, f"-DWORKBOOK_BACKEND={backend}"], tree)
        if done.returncode != 0:
            raise core.UserError(f"Configuring the scratch copy failed:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
    return tree


def judge(grader: Path, stage: int, timeout: float) -> dict:
    """The stage's verdict, correctness checks only."""
    record, _ = core.run_stage(grader, stage, timeout, {"WORKBOOK_CORRECTNESS_ONLY": "1"})
    return record


SURVIVED = ("passed",)


def command_run(args) -> int:
    meta = core.load_chapter(args.chapter)
    stages = [core.find_stage(meta, s) for s in core.stage_ids(meta, args.stage)]
    operators = args.operators.split(",") if args.operators else list(OPERATORS)
    unknown = [o for o in operators if o not in OPERATORS]
    if unknown:
        raise core.UserError(f"Unknown operator {', '.join(unknown)}: use some of {', '.join(OPERATORS)}.")
    plan = []
    for stage in stages:
        source = core.solution_path(meta, stage).read_text()
        plan += [(stage, source, m) for m in mutants(source, operators)]
    if args.list:
        for stage, _, mutant in plan:
            print(f"stage {stage['id']} {mutant.describe()}")
        print(f"{len(plan)} mutants")
        return 0
    scratch = Path(args.scratch).resolve() if args.scratch else core.BUILD / "mutate"
    tree = prepare_scratch(scratch, meta, args.backend)
    target = f"ch{meta['chapter']:02d}_grade_exercises"
    grader = tree / "build" / "bin" / target
    ok, output = core.build_target(target, tree / "build")
    if not ok:
        raise core.UserError("The chapter's grader does not build with the reference solutions:\n"
                             + core.compile_errors(output))
    results = []
    # Mutants often loop forever (a stride that no longer grows). A mutant may take three times as long
    # as its reference stage, plus a margin, before it counts as hung.
    limits = {}
    for stage in stages:
        began = time.time()
        baseline = judge(grader, stage["id"], args.timeout)
        if baseline.get("status") == "skipped":   # e.g. a Hopper-only stage in emulation
            print(f"stage {stage['id']} is skipped here ({(baseline.get('summary') or '')[:100]}): "
                  "its mutants are left out")
            continue
        if baseline.get("status") != "passed":
            raise core.UserError(f"Reference stage {stage['id']} does not pass unchanged ({baseline.get('status')}): "
                                 "mutants of it would prove nothing.")
        limits[stage["id"]] = min(args.timeout, 3 * (time.time() - began) + 15)
    plan = [item for item in plan if item[0]["id"] in limits]
    started = time.time()
    for index, (stage, source, mutant) in enumerate(plan, start=1):
        exercise = tree / "exercises" / meta["dir"] / f"{stage['file']}.cu"
        exercise.write_text(apply(source, mutant))
        built, output = core.build_target(target, tree / "build")
        if built:
            record = judge(grader, stage["id"], limits[stage["id"]])
            status = record.get("status", "no-verdict")
            verdict = "survived" if status in SURVIVED else "unjudged" if status == "skipped" else "killed"
            summary = (record.get("summary") or "")[:160]
        else:
            status, verdict, summary = "no-build", "stillborn", ""
        exercise.write_text(source)
        results.append({"stage": stage["id"], "operator": mutant.operator, "line": mutant.line,
                        "before": mutant.before.strip(), "after": mutant.after.strip(),
                        "status": status, "verdict": verdict, "summary": summary})
        print(f"[{index}/{len(plan)} {time.time() - started:5.0f} s] stage {stage['id']} {verdict:9} {status:15} "
              f"{mutant.describe()}" + (f"\n      {summary}" if verdict == "killed" and args.verbose else ""),
              flush=True)
    core.build_target(target, tree / "build")   # leave the scratch grader as the references built it
    report = scratch / f"mutants-ch{meta['chapter']:02d}.json"
    report.write_text(json.dumps(results, indent=1) + "\n")
    count = {v: sum(r["verdict"] == v for r in results) for v in ("killed", "survived", "unjudged", "stillborn")}
    survivors = [r for r in results if r["verdict"] == "survived"]
    print(f"\n{len(results) - count['stillborn']} mutants built: {count['killed']} killed, {count['survived']} "
          f"survived, {count['unjudged']} skipped by the grader ({count['stillborn']} did not compile). "
          f"Results: {core.shown(report)}")
    for r in survivors:
        print(f"  SURVIVED stage {r['stage']} {r['operator']} line {r['line']}: {r['before']}  ->  {r['after']}")
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="tools/mutate.py", description=__doc__.splitlines()[0])
    parser.add_argument("--chapter", required=True, help="the chapter whose reference stages are mutated")
    parser.add_argument("--stage", help="only this stage (default: every stage)")
    parser.add_argument("--operators", help=f"comma-separated, default all: {', '.join(OPERATORS)}")
    parser.add_argument("--list", action="store_true", help="print the mutants and stop (builds nothing)")
    parser.add_argument("--scratch", help="the scratch folder (default: build/mutate)")
    parser.add_argument("--backend", default="auto", choices=("auto", "cuda", "cpu"),
                        help="WORKBOOK_BACKEND of the scratch build (cpu: the emulator)")
    parser.add_argument("--timeout", type=float, default=300,
                        help="seconds a reference stage may run (default 300); a mutant may take three times "
                        "its reference's time, plus 15 s")
    parser.add_argument("--verbose", action="store_true", help="also print why each killed mutant was rejected")
    args = parser.parse_args(argv)
    try:
        return command_run(args)
    except core.UserError as error:
        print(error, file=sys.stderr)
        return 2
