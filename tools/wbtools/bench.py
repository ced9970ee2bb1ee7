"""`make bench`: every built chapter's reference stages and library baselines timed by its grader
([bench]), PyTorch beside them when this Python has it; the rows go to build/bench/results.json and
a Markdown table to build/bench/results.md.
"""
from __future__ import annotations

import json
import subprocess
import sys
import time

from . import core


def command_bench(args) -> int:
    rows = []
    chapters = [core.load_chapter(c) for c in args.chapters] if args.chapters else core.all_chapters()
    for meta in chapters:
        grader = core.grader_path(meta, "solutions")
        if not grader.exists():
            print(f"chapter {meta['chapter']}: {grader.name} is not built, skipped")
            continue
        print(f"chapter {meta['chapter']}: benchmarking ...", flush=True)
        proc = subprocess.run([str(grader), "[bench]"], capture_output=True, text=True, timeout=args.timeout)
        output = proc.stdout + proc.stderr
        if "WORKBOOK-SKIP" in output:
            raise core.UserError("`make bench` needs an NVIDIA GPU; none is usable here.")
        found = [json.loads(m.group(1)) for m in map(core.BENCH_RE.match, output.splitlines()) if m]
        if proc.returncode != 0 or not found:
            print(output[-4000:])
            raise core.UserError(f"chapter {meta['chapter']}'s benchmark failed (output above).")
        rows.extend(found)
    if not rows:
        raise core.UserError("Nothing was benchmarked: build the chapters first (`make test` builds them all).")
    rows.extend(torch_baseline_rows(sorted({r["chapter"] for r in rows}), args.timeout))
    rows.sort(key=lambda r: r["chapter"])   # stable: each chapter's PyTorch rows follow its own rows
    out_dir = core.BUILD / "bench"
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
    proc = subprocess.run([sys.executable, str(core.ROOT / "tools" / "torch_baseline.py"), *map(str, chapters)],
                          capture_output=True, text=True, timeout=timeout)
    output = proc.stdout + proc.stderr
    found = [json.loads(m.group(1)) for m in map(core.BENCH_RE.match, output.splitlines()) if m]
    if proc.returncode != 0:
        print(output[-2000:])
        print("The PyTorch baseline failed (output above): the PyTorch column is left out.")
        return []
    if not found:
        print(output.strip())
    return found


def markdown_table(meta: dict, rows: list[dict]) -> str:
    # PyTorch rows (library "pytorch") give every other row of the same op, shape and dtype a ratio.
    torch_ms = {(r["chapter"], r["op"], r["shape"], r.get("dtype")): r["ms"]
                for r in rows if r.get("library") == "pytorch"}
    with_torch = bool(torch_ms)
    # Rows timed interleaved with a library baseline in the grader (chapter 8: cuBLAS) carry "vs_library".
    with_library = any(r.get("vs_library") for r in rows)
    # Chapter 8 times its rows and cuBLAS in steady state, and also launch by launch ("vs_library_alternated").
    with_alternated = any(r.get("vs_library_alternated") for r in rows)
    lines = [f"Measured on {meta['gpu']}, {meta['date']}; device copy bandwidth {meta['copy_gbps']:.0f} GB/s "
             "(bytes read + written)."
             + (" vs PyTorch: PyTorch's time over this row's time, same run." if with_torch else "")
             + (" vs library: the chapter's library baseline (cuBLAS) timed in turn with this row, its time "
                "over this row's." if with_library else "")
             + (" Where \"alternated\" is given, the two took turns launch by launch; otherwise each ran back to "
                "back for a second and its second half was kept (its own steady state: see harness/timing.hpp)."
                if with_alternated else ""),
             "",
             "| chapter | op | variant | shape | dtype | ms | GB/s | % copy | TFLOP/s | vs previous row |"
             + (" vs PyTorch |" if with_torch else "") + (" vs library |" if with_library else "")
             + (" vs library, alternated |" if with_alternated else ""),
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |" + (" --- |" if with_torch else "")
             + (" --- |" if with_library else "") + (" --- |" if with_alternated else "")]
    previous = {}
    for r in rows:
        key = (r["chapter"], r["op"], r["shape"], r.get("dtype"))
        before = previous.get(key)
        ratio = f"x{before / r['ms']:.2f}" if before and r.get("stage", 0) > 0 else ""
        line = (f"| {r['chapter']} | {r['op']} | {r['variant']} | {r['shape']} | {r.get('dtype', '')} | "
                f"{r['ms']:.4f} | {core.format_number(r.get('gbps'), '{:.0f}')} | "
                f"{core.format_number(r.get('pct_copy'), '{:.1f}%')} | "
                f"{core.format_number(r.get('tflops'), '{:.2f}')} | {ratio} |")
        if with_torch:
            versus = torch_ms.get(key) if r.get("library") != "pytorch" else None
            line += f" {'x{:.2f}'.format(versus / r['ms']) if versus else ''} |"
        if with_library:
            line += f" {core.format_number(r.get('vs_library'), 'x{:.2f}')} |"
        if with_alternated:
            line += f" {core.format_number(r.get('vs_library_alternated'), 'x{:.2f}')} |"
        lines.append(line)
        if r.get("stage", 0) > 0:
            previous[key] = r["ms"]
    return "\n".join(lines) + "\n"
