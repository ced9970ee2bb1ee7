#!/usr/bin/env python3
"""The learner's command line for the CUDA Kernel Workbook (the Makefile calls it; so can you).

    python3 tools/workbook.py check 2        grade chapter 2's exercises, print a table
    python3 tools/workbook.py bench          run every built chapter's benchmark, write build/bench/
    python3 tools/workbook.py chapters       list the chapters and their stages
    python3 tools/workbook.py progress       chapters x stages: where you are (build/progress.json)
    python3 tools/workbook.py hint 2 --stage 3    the next hint of a stage
    python3 tools/workbook.py reset 2 [--stage 3] restore skeletons (your files are backed up first)
    python3 tools/workbook.py watch 2        re-grade the stage you save, on every save
    python3 tools/workbook.py drill [2]      a timed interview drill on a blank stage
    python3 tools/workbook.py plot 2         the chapter's `make bench` ladder as PNG and SVG

Standard library only (plot needs matplotlib). It never writes outside build/ except where a
command says so: reset writes exercises/ (after a backup), drill writes drill/.
The learner's commands live in tools/wbtools/; `make help` lists the make targets that call them.
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from wbtools import core, drill, hints, plot, progress, reset, watch  # noqa: E402
from wbtools import state as progress_state  # noqa: E402
from wbtools.core import (BENCH_RE, BUILD, RESULT_RE, ROOT, STATUS_TEXT, UserError, chapter_dirs,  # noqa: E402,F401
                          chapter_list, failure_details, format_number, grader_path, load_chapter, run_stage,
                          stage_ids)


# ---- check-chapter ------------------------------------------------------------------------------

def print_table(meta: dict, results: dict[int, dict]) -> None:
    metric_is_flops = meta.get("metric") == "TFLOP/s"
    rate = "TFLOP/s" if metric_is_flops else "GB/s"
    pct_key, pct_header = ("pct_cublas", "% cuBLAS") if metric_is_flops else ("pct_copy", "% copy")
    header = f"{'stage':<5} {'':<46} {'result':<22} {'speed-up':>9} {'needed':>7} {rate:>8} {pct_header:>8}"
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
        pct = format_number(r.get(pct_key), "{:.0f}%")
        title = stage["title"][:46]
        print(f"{stage['id']:<5} {title:<46} {status:<22} {speed:>9} {needed:>7} {rate_text:>8} {pct:>8}")


def save_results(meta: dict, results: dict[int, dict]) -> None:
    """Keeps the latest result of every stage in build/progress.json (read by `make progress`)."""
    progress_state.record_results(meta["chapter"], results)


def sanitize_passed_stages(meta: dict, grader, results: dict[int, dict], timeout: float, shown_failure: bool) -> bool:
    """Runs the stages that gave right results (passed or too slow) once more under compute-sanitizer,
    all in one run of each tool, and turns a finding into a wrong result. Returns whether a failure
    has been shown in full."""
    stages = [s for s, r in results.items() if r.get("status") in ("passed", "too-slow")]
    if not stages:
        return shown_failure
    command = [str(grader), "--workbook-sanitize", str(meta["chapter"]), ",".join(map(str, stages))]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=max(timeout, 600))
    except subprocess.TimeoutExpired:
        print("  not sanitizer-checked: compute-sanitizer took too long")
        return shown_failure
    records = core.parse_results(proc.stdout, "WORKBOOK-SANITIZER")
    if not records:
        print("  not sanitizer-checked: the sanitizer pass gave no result")
        return shown_failure
    if records[0].get("status") == "not-checked":
        print(f"  not sanitizer-checked: {records[0].get('details', '')}")
        return shown_failure
    checked = ", ".join(str(r["stage"]) for r in records if r.get("status") == "clean")
    if checked:
        print(f"  compute-sanitizer (memcheck, racecheck, synccheck) found nothing in stages {checked} "
              f"({records[0].get('seconds', 0):.1f} s)")
    for record in records:
        if record.get("status") != "wrong":
            continue
        stage = record["stage"]
        details = record.get("details", "")
        results[stage] = dict(results[stage], status="wrong", summary=details.split("\n")[0], details=details)
        print(f"  -- stage {stage}: {STATUS_TEXT.get('wrong', 'wrong')} (compute-sanitizer)")
        if not shown_failure:
            print("\n" + details + "\n")
            shown_failure = True
    return shown_failure


def command_check(args) -> int:
    meta = load_chapter(args.chapter)
    grader = grader_path(meta, "solutions" if args.solutions else "exercises")
    if not grader.exists():
        raise UserError(f"The grader {core.shown(grader)} is not built: run `make check-chapter {meta['chapter']}`.")
    stages = stage_ids(meta, args.stage)
    extra_env = {"WORKBOOK_CORRECTNESS_ONLY": "1"} if args.correctness_only else {}
    # The compute-sanitizer pass runs once for the whole chapter after grading (sanitize_passed_stages),
    # not once per stage: the tools' start-up is the larger part of its cost.
    batch_sanitizer = os.environ.get("WORKBOOK_SANITIZE") != "0"
    if batch_sanitizer:
        extra_env["WORKBOOK_SANITIZE"] = "0"
    print(f"Chapter {meta['chapter']}: {meta['title']}  ({'reference solutions' if args.solutions else 'your exercises'})")
    results: dict[int, dict] = {}
    shown_failure = False
    emulated = False   # the build runs kernels on the CPU emulator (make BACKEND=cpu)
    for stage in stages:
        result, output = run_stage(grader, stage, args.timeout, extra_env)
        results[stage] = result
        status = result.get("status")
        if status == "skipped":
            print(f"\nYour code compiles. Grading needs an NVIDIA GPU: {result.get('summary', '')}.")
            for other in stages:
                results[other] = {"stage": other, "status": "skipped"}
            break
        if result.get("emulated") and not emulated:
            emulated = True
            print("  (emulated on the CPU: correctness only, speed needs a GPU)")
        mark = "ok " if status == "passed" else "-- "
        print(f"  {mark}stage {stage}: {STATUS_TEXT.get(status, status)}{' (correctness)' if emulated and status == 'passed' else ''}")
        if status != "passed" and not shown_failure and (status != "not-implemented" or args.verbose):
            print("\n" + failure_details(output) + "\n")
            shown_failure = True
        elif args.verbose:
            print(failure_details(output))
    if batch_sanitizer and not emulated:
        shown_failure = sanitize_passed_stages(meta, grader, results, args.timeout, shown_failure)
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
        print(f"\nEvery stage of chapter {meta['chapter']} passes." if not emulated else
              f"\nEvery stage of chapter {meta['chapter']} is correct on the CPU emulator; speed needs a GPU.")
    if emulated:
        print("Emulated on the CPU: correctness only, speed needs a GPU (see docs/emulation.md).")
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
    rows.extend(torch_baseline_rows(sorted({r["chapter"] for r in rows}), args.timeout))
    rows.sort(key=lambda r: r["chapter"])   # stable: each chapter's PyTorch rows follow its own rows
    out_dir = BUILD / "bench"
    out_dir.mkdir(parents=True, exist_ok=True)
    meta = {"gpu": rows[0].get("gpu"), "date": time.strftime("%Y-%m-%d"), "copy_gbps": rows[0].get("copy_gbps")}
    (out_dir / "results.json").write_text(json.dumps({"meta": meta, "rows": rows}, indent=1))
    table = markdown_table(meta, rows)
    (out_dir / "results.md").write_text(table)
    print(table)
    print(f"written: {core.shown(out_dir / 'results.json')}, {core.shown(out_dir / 'results.md')}")
    return 0


def torch_baseline_rows(chapters: list[int], timeout: float) -> list[dict]:
    """PyTorch timed on the same shapes in this run (tools/torch_baseline.py), when this Python has it."""
    probe = subprocess.run([sys.executable, "-c", "import torch"], capture_output=True, text=True)
    if probe.returncode != 0:
        print("PyTorch is not installed for this Python: the PyTorch column is left out.")
        return []
    print("PyTorch baseline: timing ...", flush=True)
    proc = subprocess.run([sys.executable, str(ROOT / "tools" / "torch_baseline.py"), *map(str, chapters)],
                          capture_output=True, text=True, timeout=timeout)
    output = proc.stdout + proc.stderr
    found = [json.loads(m.group(1)) for m in map(BENCH_RE.match, output.splitlines()) if m]
    if proc.returncode != 0:
        print(output[-2000:])
        print("The PyTorch baseline failed (output above): the PyTorch column is left out.")
        return []
    if not found:
        print(output.strip())
    return found


def markdown_table(meta: dict, rows: list[dict]) -> str:
    # PyTorch rows (library "pytorch") give every other row of the same op, shape and dtype a ratio.
    torch_ms = {(r["chapter"], r["op"], r["shape"], r.get("dtype")): r["ms"] for r in rows if r.get("library") == "pytorch"}
    with_torch = bool(torch_ms)
    lines = [f"Measured on {meta['gpu']}, {meta['date']}; device copy bandwidth {meta['copy_gbps']:.0f} GB/s "
             "(bytes read + written)." + (" vs PyTorch: PyTorch's time over this row's time, same run." if with_torch else ""),
             "",
             "| chapter | op | variant | shape | dtype | ms | GB/s | % copy | TFLOP/s | vs previous row |"
             + (" vs PyTorch |" if with_torch else ""),
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if with_torch else "")]
    previous = {}
    for r in rows:
        key = (r["chapter"], r["op"], r["shape"], r.get("dtype"))
        before = previous.get(key)
        ratio = f"x{before / r['ms']:.2f}" if before and r.get("stage", 0) > 0 else ""
        line = (f"| {r['chapter']} | {r['op']} | {r['variant']} | {r['shape']} | {r.get('dtype', '')} | "
                f"{r['ms']:.4f} | {format_number(r.get('gbps'), '{:.0f}')} | "
                f"{format_number(r.get('pct_copy'), '{:.1f}%')} | {format_number(r.get('tflops'), '{:.2f}')} | {ratio} |")
        if with_torch:
            versus = torch_ms.get(key) if r.get("library") != "pytorch" else None
            line += f" {'x{:.2f}'.format(versus / r['ms']) if versus else ''} |"
        lines.append(line)
        if r.get("stage", 0) > 0:
            previous[key] = r["ms"]
    return "\n".join(lines) + "\n"


# ---- chapters -------------------------------------------------------------------------------------

def command_chapters(args) -> int:
    for meta in core.all_chapters():
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
    add_learner_commands(sub)
    args = parser.parse_args(argv)
    try:
        return args.func(args)
    except UserError as error:
        print(error, file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130


def add_learner_commands(sub) -> None:
    """The learner's tools (tools/wbtools/): progress, hint, reset, watch, drill, plot."""
    timeout = float(os.environ.get("WORKBOOK_STAGE_TIMEOUT", 300))
    command = sub.add_parser("progress", help="chapters x stages: passed, too slow, failing, not started")
    command.add_argument("chapter", nargs="?", help="show this chapter's details only")
    command.set_defaults(func=progress.command_progress)

    command = sub.add_parser("hint", help="the next unseen hint of a stage")
    command.add_argument("chapter", nargs="?", help="default: the first chapter with a stage that has not passed")
    command.add_argument("--stage", help="default: the chapter's first stage that has not passed")
    command.add_argument("--all", action="store_true", help="show every hint of the stage at once")
    command.add_argument("--reset", action="store_true", help="hide the stage's hints again")
    command.set_defaults(func=hints.command_hint)

    command = sub.add_parser("reset", help="restore a chapter's (or one stage's) skeletons, backing up your files")
    command.add_argument("chapter")
    command.add_argument("--stage")
    command.set_defaults(func=reset.command_reset)

    command = sub.add_parser("watch", help="grade the stage you edit on every save")
    command.add_argument("chapter")
    command.add_argument("--stage", help="the stage to grade first (default: the first that has not passed)")
    command.add_argument("--poll", action="store_true", help="look at modification times even if inotifywait exists")
    command.add_argument("--rounds", type=int, help=argparse.SUPPRESS)   # stop after N gradings (tests)
    command.add_argument("--timeout", type=float, default=timeout)
    command.set_defaults(func=watch.command_watch)

    command = sub.add_parser("drill", help="a timed drill: a blank stage with only its contract")
    command.add_argument("chapter", nargs="?", help="default: any chapter")
    command.add_argument("--stage", help="default: a stage you have not mastered")
    command.add_argument("--grade", action="store_true", help="grade the running drill once")
    command.add_argument("--stop", action="store_true", help="give up the running drill (its file is kept)")
    command.add_argument("--no-wait", action="store_true", help="start or resume, then return at once")
    command.add_argument("--seed", type=int, help=argparse.SUPPRESS)     # reproducible choice (tests)
    command.add_argument("--timeout", type=float, default=timeout)
    command.set_defaults(func=drill.command_drill)

    command = sub.add_parser("plot", help="bar chart of a chapter's `make bench` results (PNG and SVG)")
    command.add_argument("chapter")
    command.add_argument("--results", help="default: build/bench/results.json")
    command.add_argument("--out", help="default: build/plots/")
    command.set_defaults(func=plot.command_plot)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
