"""`make check-chapter N`: grade a chapter's stages one process each, print a table, record the results
in build/progress.json; then one compute-sanitizer pass over the stages that gave right results.
Also `workbook.py results`: one line per WORKBOOK-RESULT record of a log read from standard input.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys

from . import core, i18n, profile, state


def print_table(meta: dict, results: dict[int, dict]) -> None:
    metric_is_flops = meta.get("metric") == "TFLOP/s"
    rate = "TFLOP/s" if metric_is_flops else "GB/s"
    pct_key, pct_header = ("pct_cublas", "% cuBLAS") if metric_is_flops else ("pct_copy", "% copy")
    header = (f"{i18n.ljust(i18n.tr('stage'), 5)} {'':<46} {i18n.ljust(i18n.tr('result'), 22)} "
              f"{i18n.rjust(i18n.tr('speed-up'), 9)} {i18n.rjust(i18n.tr('needed'), 7)} {rate:>8} "
              f"{i18n.rjust(i18n.tr(pct_header), 8)}")
    print(header)
    print("-" * i18n.width(header))
    for stage in meta["stages"]:
        r = results.get(stage["id"])
        if r is None:
            continue
        status = i18n.status(core.STATUS_TEXT.get(r.get("status"), r.get("status", "?")))
        if r.get("needs_cc"):
            status = i18n.status("skipped") + f" (needs {r['needs_cc']})"
        speed = core.format_number(r.get("speedup"), "x{:.2f}")
        needed = core.format_number(r.get("required"), "x{:.2f}")
        value = r.get("tflops") if metric_is_flops else r.get("gbps")
        rate_text = core.format_number(value, "{:.1f}" if metric_is_flops else "{:.0f}")
        pct = core.format_number(r.get(pct_key), "{:.0f}%")
        title = i18n.ljust(i18n.clip(stage["title"], 46), 46)
        print(f"{stage['id']:<5} {title} {i18n.ljust(status, 22)} {speed:>9} {needed:>7} {rate_text:>8} {pct:>8}")


def save_results(meta: dict, results: dict[int, dict]) -> None:
    """Keeps the latest result of every stage in build/progress.json (read by `make progress`)."""
    state.record_results(meta["chapter"], results)


def sanitize_passed_stages(meta: dict, grader, results: dict[int, dict], timeout: float, shown_failure: bool) -> bool:
    """Runs the stages that gave right results (passed or too slow) once more under compute-sanitizer,
    all in one run of each tool, and turns a finding into a wrong result. Returns whether a failure
    has been shown in full."""
    stages = [s for s, r in results.items() if r.get("status") in ("passed", "too-slow")]
    if not stages:
        return shown_failure
    command = [str(grader), "--workbook-sanitize", str(meta["chapter"]), ",".join(map(str, stages))]
    # How many calls of each stage the tools run: the grader's run chose them (harness/sanitizer_plan.hpp).
    calls = ",".join(f"{s}:{int(results[s]['sanitizer_calls'])}" for s in stages if results[s].get("sanitizer_calls"))
    env = dict(os.environ, WORKBOOK_SANITIZER_CALLS=calls) if calls else None
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=max(timeout, 600), env=env)
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
    for stage in stages:
        if results[stage].get("sanitizer_unreached"):
            print(f"  stage {stage}: not reached by the tools: {results[stage]['sanitizer_unreached']} "
                  "(launched only by cases too large for them)")
    for record in records:
        if record.get("status") != "wrong":
            continue
        stage = record["stage"]
        details = record.get("details", "")
        results[stage] = dict(results[stage], status="wrong", summary=details.split("\n")[0], details=details)
        print(f"  -- stage {stage}: {core.STATUS_TEXT.get('wrong', 'wrong')} (compute-sanitizer)")
        if not shown_failure:
            print("\n" + details + "\n")
            shown_failure = True
    return shown_failure


def command_check(args) -> int:
    meta = core.load_chapter(args.chapter)
    grader = core.grader_path(meta, "solutions" if args.solutions else "exercises")
    if not grader.exists():
        raise core.UserError(f"The grader {core.shown(grader)} is not built: "
                             f"run `make check-chapter {meta['chapter']}`.")
    stages = core.stage_ids(meta, args.stage)
    extra_env = {"WORKBOOK_CORRECTNESS_ONLY": "1"} if args.correctness_only else {}
    # The compute-sanitizer pass runs once for the whole chapter after grading (sanitize_passed_stages),
    # not once per stage: the tools' start-up is the larger part of its cost.
    batch_sanitizer = os.environ.get("WORKBOOK_SANITIZE") != "0"
    if batch_sanitizer:
        extra_env["WORKBOOK_SANITIZE"] = "0"
    graded = i18n.tr("reference solutions" if args.solutions else "your exercises")
    print(i18n.tr("Chapter {chapter}: {title}  ({graded})", chapter=meta["chapter"], title=meta["title"],
                  graded=graded))
    if i18n.chinese():
        print(i18n.tr("(the grader's explanations below are in English)"))
    results: dict[int, dict] = {}
    shown_failure = False
    emulated = False   # the build runs kernels on the CPU emulator (make BACKEND=cpu)
    for stage in stages:
        result, output = core.run_stage(grader, stage, args.timeout, extra_env)
        results[stage] = result
        status = result.get("status")
        if status == "skipped" and result.get("needs_cc"):
            # This stage alone needs a newer GPU (stages.json's "min_cc"): the others are graded.
            print(f"  -- stage {stage}: skipped: {result.get('summary', '')}.")
            continue
        if status == "skipped":
            print(i18n.tr("\nYour code compiles. Grading needs an NVIDIA GPU: {summary}.",
                          summary=result.get("summary", "")))
            for other in stages:
                results[other] = {"stage": other, "status": "skipped"}
            break
        if result.get("emulated") and not emulated:
            emulated = True
            print(i18n.tr("  (emulated on the CPU: correctness only, speed needs a GPU)"))
        mark = "ok " if status == "passed" else "-- "
        note = i18n.tr(" (correctness)") if emulated and status == "passed" else ""
        print(i18n.tr("  {mark}stage {stage}: {status}{note}", mark=mark, stage=stage,
                      status=i18n.status(core.STATUS_TEXT.get(status, status)), note=note))
        if status != "passed" and not shown_failure and (status != "not-implemented" or args.verbose):
            print("\n" + core.failure_details(output) + "\n")
            shown_failure = True
        elif args.verbose:
            print(core.failure_details(output))
    if batch_sanitizer and not emulated:
        shown_failure = sanitize_passed_stages(meta, grader, results, args.timeout, shown_failure)
    if not emulated:
        profile.after_check(meta, grader, results, args.timeout)   # a "too slow" stage, under Nsight Compute
    print()
    print_table(meta, results)
    if not args.solutions:
        save_results(meta, results)
    pending = [s for s in stages if results[s].get("status") not in ("passed", "skipped")]
    if pending:
        stage = next(s for s in meta["stages"] if s["id"] == pending[0])
        print(i18n.tr("\nNext: stage {stage}, {title}: {file}  (hints: make hint CH={chapter} STAGE={stage})",
                      stage=stage["id"], title=stage["title"], file=f"exercises/{meta['dir']}/{stage['file']}.cu",
                      chapter=meta["chapter"]))
    elif all(results[s].get("status") == "passed" for s in stages):
        print(i18n.tr("\nEvery stage of chapter {chapter} passes." if not emulated else
                      "\nEvery stage of chapter {chapter} is correct on the CPU emulator; speed needs a GPU.",
                      chapter=meta["chapter"]))
    if emulated:
        print(i18n.tr("Emulated on the CPU: correctness only, speed needs a GPU (see docs/emulation.md)."))
    return 0


def command_results(args) -> int:
    """Prints one line per WORKBOOK-RESULT found in a log read from standard input."""
    for line in sys.stdin:
        match = core.RESULT_RE.match(line.split(": ", 1)[-1].strip()) or core.RESULT_RE.match(line.strip())
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
