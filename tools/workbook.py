#!/usr/bin/env python3
"""The learner's command line for the CUDA Kernel Workbook (the Makefile calls it; so can you).

    python3 tools/workbook.py check 2        grade chapter 2's exercises, print a table
    python3 tools/workbook.py bench          run every built chapter's benchmark, write build/bench/
    python3 tools/workbook.py chapters       list the chapters and their stages

Standard library only. It never writes outside build/ except where a command says so.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
BUILD = Path(os.environ.get("WORKBOOK_BUILD", ROOT / "build"))
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


# ---- chapters -----------------------------------------------------------------------------------

def chapter_dirs() -> list[Path]:
    return sorted(p for p in (ROOT / "chapters").iterdir() if p.is_dir() and re.match(r"^\d\d_", p.name))


def load_chapter(number: int | str) -> dict:
    """The chapter's stages.json, plus its folder name; UserError for an unknown chapter."""
    try:
        wanted = int(str(number))
    except ValueError:
        raise UserError(f"'{number}' is not a chapter number: use one of {chapter_list()}.")
    for folder in chapter_dirs():
        meta = json.loads((folder / "stages.json").read_text())
        if meta["chapter"] == wanted:
            meta["dir"] = folder.name
            return meta
    raise UserError(f"There is no chapter {wanted}: the chapters are {chapter_list()}.")


def chapter_list() -> str:
    parts = []
    for folder in chapter_dirs():
        meta = json.loads((folder / "stages.json").read_text())
        parts.append(f"{meta['chapter']} ({folder.name[3:]})")
    return ", ".join(parts)


def grader_path(meta: dict, track: str) -> Path:
    return BUILD / "bin" / f"ch{meta['chapter']:02d}_grade_{track}"


def stage_ids(meta: dict, only: str | None) -> list[int]:
    ids = [s["id"] for s in meta["stages"]]
    if only in (None, ""):
        return ids
    try:
        wanted = int(only)
    except ValueError:
        raise UserError(f"STAGE={only} is not a number: chapter {meta['chapter']} has stages {ids[0]} to {ids[-1]}.")
    if wanted not in ids:
        raise UserError(f"Chapter {meta['chapter']} has no stage {wanted}: its stages are {ids[0]} to {ids[-1]}.")
    return [wanted]


# ---- running one stage --------------------------------------------------------------------------

def run_stage(grader: Path, stage: int, timeout: float, extra_env: dict | None = None) -> tuple[dict, str]:
    """Runs one stage in its own process; returns its result record and its whole output."""
    env = dict(os.environ, **(extra_env or {}))
    try:
        proc = subprocess.run([str(grader), f"[stage{stage}]"], capture_output=True, text=True,
                              timeout=timeout, env=env)
        output = proc.stdout + proc.stderr
        code = proc.returncode
    except subprocess.TimeoutExpired as expired:
        output = (expired.stdout or b"").decode(errors="replace") if isinstance(expired.stdout, bytes) else (expired.stdout or "")
        return ({"stage": stage, "status": "hung",
                 "summary": f"the stage did not finish in {timeout:.0f} s: a deadlock or an endless loop"}, output)
    for line in output.splitlines():
        match = RESULT_RE.match(line)
        if match:
            return json.loads(match.group(1)), output
    reason = f"exit code {code}" if code >= 0 else f"signal {-code}"
    return ({"stage": stage, "status": "crashed",
             "summary": f"the grader process died ({reason}) before reporting"}, output)


def failure_details(output: str) -> str:
    """The grader's explanation of a failure: the lines from the first FAILED/not-ok on."""
    lines = output.splitlines()
    keep = []
    for line in lines:
        if line.startswith(("WORKBOOK-RESULT", "====", "---", "Filters:", "test cases:", "assertions:", "Randomness")):
            continue
        keep.append(line)
    return "\n".join(keep).rstrip()


# ---- check-chapter ------------------------------------------------------------------------------

def format_number(value, pattern: str) -> str:
    return pattern.format(value) if isinstance(value, (int, float)) else "-"


def print_table(meta: dict, results: dict[int, dict]) -> None:
    metric_is_flops = meta.get("metric") == "TFLOP/s"
    rate = "TFLOP/s" if metric_is_flops else "GB/s"
    header = f"{'stage':<5} {'':<46} {'result':<22} {'speed-up':>9} {'needed':>7} {rate:>8} {'% copy':>7}"
    print(header)
    print("-" * len(header))
    for stage in meta["stages"]:
        r = results.get(stage["id"])
        if r is None:
            continue
        status = STATUS_TEXT.get(r.get("status"), r.get("status", "?"))
        speed = format_number(r.get("speedup"), "x{:.2f}")
        needed = format_number(r.get("required"), "x{:.2f}")
        value = r.get("tflops") if metric_is_flops else r.get("gbps")
        rate_text = format_number(value, "{:.1f}" if metric_is_flops else "{:.0f}")
        pct = format_number(r.get("pct_copy"), "{:.0f}%")
        title = stage["title"][:46]
        print(f"{stage['id']:<5} {title:<46} {status:<22} {speed:>9} {needed:>7} {rate_text:>8} {pct:>7}")


def save_results(meta: dict, results: dict[int, dict]) -> None:
    """Keeps the latest result of every stage in build/progress.json (read by `make progress`)."""
    path = BUILD / "progress.json"
    try:
        state = json.loads(path.read_text()) if path.exists() else {}
    except json.JSONDecodeError:
        state = {}
    chapter = state.setdefault(str(meta["chapter"]), {})
    for stage, record in results.items():
        if record.get("status") == "skipped":
            continue
        record = dict(record, when=time.strftime("%Y-%m-%d %H:%M:%S"))
        chapter[str(stage)] = record
    BUILD.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(state, indent=1, sort_keys=True))


def command_check(args) -> int:
    meta = load_chapter(args.chapter)
    grader = grader_path(meta, "solutions" if args.solutions else "exercises")
    if not grader.exists():
        raise UserError(f"The grader {grader.relative_to(ROOT)} is not built: run `make check-chapter {meta['chapter']}`.")
    stages = stage_ids(meta, args.stage)
    extra_env = {"WORKBOOK_CORRECTNESS_ONLY": "1"} if args.correctness_only else None
    print(f"Chapter {meta['chapter']}: {meta['title']}  ({'reference solutions' if args.solutions else 'your exercises'})")
    results: dict[int, dict] = {}
    shown_failure = False
    for stage in stages:
        result, output = run_stage(grader, stage, args.timeout, extra_env)
        results[stage] = result
        status = result.get("status")
        if status == "skipped":
            print(f"\nYour code compiles. Grading needs an NVIDIA GPU: {result.get('summary', '')}.")
            for other in stages:
                results[other] = {"stage": other, "status": "skipped"}
            break
        mark = "ok " if status == "passed" else "-- "
        print(f"  {mark}stage {stage}: {STATUS_TEXT.get(status, status)}")
        if status != "passed" and not shown_failure and (status != "not-implemented" or args.verbose):
            print("\n" + failure_details(output) + "\n")
            shown_failure = True
        elif args.verbose:
            print(failure_details(output))
    print()
    print_table(meta, results)
    if not args.solutions:
        save_results(meta, results)
    pending = [s for s in stages if results[s].get("status") not in ("passed", "skipped")]
    if pending:
        stage = next(s for s in meta["stages"] if s["id"] == pending[0])
        print(f"\nNext: stage {stage['id']}, {stage['title']}: exercises/{meta['dir']}/{stage['file']}.cu"
              f"  (hints: make hint CH={meta['chapter']} STAGE={stage['id']})")
    elif all(results[s].get("status") == "passed" for s in stages):
        print(f"\nEvery stage of chapter {meta['chapter']} passes.")
    return 0


# ---- bench --------------------------------------------------------------------------------------

def command_bench(args) -> int:
    rows = []
    chapters = [load_chapter(c) for c in args.chapters] if args.chapters else [load_chapter(int(p.name[:2])) for p in chapter_dirs()]
    for meta in chapters:
        grader = grader_path(meta, "solutions")
        if not grader.exists():
            print(f"chapter {meta['chapter']}: {grader.name} is not built, skipped")
            continue
        print(f"chapter {meta['chapter']}: benchmarking ...", flush=True)
        proc = subprocess.run([str(grader), "[bench]"], capture_output=True, text=True, timeout=args.timeout)
        output = proc.stdout + proc.stderr
        if "WORKBOOK-SKIP" in output:
            raise UserError("`make bench` needs an NVIDIA GPU; none is usable here.")
        found = [json.loads(m.group(1)) for m in map(BENCH_RE.match, output.splitlines()) if m]
        if proc.returncode != 0 or not found:
            print(output[-4000:])
            raise UserError(f"chapter {meta['chapter']}'s benchmark failed (output above).")
        rows.extend(found)
    if not rows:
        raise UserError("Nothing was benchmarked: build the chapters first (`make test` builds them all).")
    out_dir = BUILD / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {"gpu": rows[0].get("gpu"), "date": time.strftime("%Y-%m-%d"), "copy_gbps": rows[0].get("copy_gbps")}
    (out_dir / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    table = markdown_table(meta, rows)
    (out_dir / "results.md").write_text(table)
    print(table)
    print(f"written: {(out_dir / 'results.json').relative_to(ROOT)}, {(out_dir / 'results.md').relative_to(ROOT)}")
    return 0


def markdown_table(meta: dict, rows: list[dict]) -> str:
    lines = [f"Measured on {meta['gpu']}, {meta['date']}; device copy bandwidth {meta['copy_gbps']:.0f} GB/s "
             "(bytes read + written).", "",
             "| chapter | op | variant | shape | dtype | ms | GB/s | % copy | TFLOP/s | vs previous row |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    previous = {}
    for r in rows:
        key = (r["chapter"], r["op"], r["shape"], r.get("dtype"))
        before = previous.get(key)
        ratio = f"x{before / r['ms']:.2f}" if before and r.get("stage", 0) > 0 else ""
        lines.append(f"| {r['chapter']} | {r['op']} | {r['variant']} | {r['shape']} | {r.get('dtype', '')} | "
                     f"{r['ms']:.4f} | {format_number(r.get('gbps'), '{:.0f}')} | "
                     f"{format_number(r.get('pct_copy'), '{:.1f}%')} | {format_number(r.get('tflops'), '{:.2f}')} | {ratio} |")
        if r.get("stage", 0) > 0:
            previous[key] = r["ms"]
    return "\n".join(lines) + "\n"


# ---- chapters -------------------------------------------------------------------------------------

def command_chapters(args) -> int:
    for folder in chapter_dirs():
        meta = json.loads((folder / "stages.json").read_text())
        print(f"{meta['chapter']}  {meta['title']}")
        for s in meta["stages"]:
            print(f"     {s['id']:>2}. {s['title']}")
    return 0


# ---- results --------------------------------------------------------------------------------------

def command_results(args) -> int:
    """Prints one line per WORKBOOK-RESULT found in a log read from standard input."""
    for line in sys.stdin:
        match = RESULT_RE.match(line.split(": ", 1)[-1].strip()) or RESULT_RE.match(line.strip())
        if not match:
            continue
        r = json.loads(match.group(1))
        extras = []
        for key, pattern in (("speedup", "x{:.2f}"), ("required", "need x{:.2f}"), ("gbps", "{:.0f} GB/s"),
                             ("pct_copy", "{:.0f}% copy"), ("tflops", "{:.1f} TFLOP/s"), ("ms", "{:.3f} ms")):
            if isinstance(r.get(key), (int, float)):
                extras.append(pattern.format(r[key]))
        print(f"ch{r['chapter']:02d} stage {r['stage']:>2} {r['track']:<9} {r['status']:<15} {'  '.join(extras)}"
              + ("" if r["status"] == "passed" else f"  | {r.get('summary', '')[:150]}"))
    return 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="workbook", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    check = sub.add_parser("check", help="grade one chapter")
    check.add_argument("chapter")
    check.add_argument("--stage", default=os.environ.get("STAGE"))
    check.add_argument("--solutions", action="store_true", help="grade the reference solutions instead")
    check.add_argument("--correctness-only", action="store_true", help="skip the speed checks")
    check.add_argument("--verbose", "-v", action="store_true")
    check.add_argument("--timeout", type=float, default=float(os.environ.get("WORKBOOK_STAGE_TIMEOUT", 300)))
    check.set_defaults(func=command_check)
    bench = sub.add_parser("bench", help="benchmark every built chapter's reference stages")
    bench.add_argument("chapters", nargs="*")
    bench.add_argument("--timeout", type=float, default=900)
    bench.set_defaults(func=command_bench)
    chapters = sub.add_parser("chapters", help="list chapters and stages")
    chapters.set_defaults(func=command_chapters)
    results = sub.add_parser("results", help="summarise the WORKBOOK-RESULT lines of a log on standard input")
    results.set_defaults(func=command_results)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UserError as error:
        print(error, file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
