"""`make tune-chapter N`: the autotuner of a chapter that has one (chapter 7: the tile shape of stage 9).

chapters/<dir>/tune/candidates.json lists the shapes to try. CMake builds one program per shape
(cmake/WorkbookTuning.cmake: targets chNN_tune_<name>, all of them chNN_tune), each the stage's
reference solution compiled with that shape. A program checks its shape against the library on odd
shapes, then times it interleaved with the library at the sizes of candidates.json, and prints
"WORKBOOK-TUNE {json}" lines.

Ranking: a shape's score is the geometric mean, over the sizes, of its speed relative to the library.
The library is timed interleaved with every candidate, and the median of those runs is the yardstick
(see score()). The shipped shape stays unless another beats its score by margin_pct: a smaller
difference is within the noise of two runs.

The result goes to chapters/<dir>/tune/results/<GPU>.json (the GPU's name as a C identifier, as CMake
writes it), and a Markdown table to build/tune/. CMake is then configured again, and the next build
compiles the stage with the winning shape on this GPU (generated/tuned/<dir>_tuned.hpp).
"""
from __future__ import annotations

import json
import math
import os
import re
import shutil
import statistics
import subprocess
import time

from . import core

TUNE_RE = re.compile(r"^WORKBOOK-TUNE (\{.*\})\s*$")


def load_spec(meta: dict) -> dict:
    """The chapter's tune/candidates.json; UserError when the chapter has no autotuner."""
    path = core.ROOT / "chapters" / meta["dir"] / "tune" / "candidates.json"
    if not path.exists():
        tuned = [m["chapter"] for m in core.all_chapters()
                 if (core.ROOT / "chapters" / m["dir"] / "tune" / "candidates.json").exists()]
        which = ", ".join(str(c) for c in tuned) or "none"
        raise core.UserError(f"Chapter {meta['chapter']} has no autotuner; the chapters that have one: {which}.")
    spec = json.loads(path.read_text())
    names = [c["name"] for c in spec["candidates"]]
    if spec["shipped"] not in names:
        raise core.UserError(f"{core.shown(path)}: the shipped shape '{spec['shipped']}' is not among its candidates.")
    return spec


def gpu_file_name(gpu: str) -> str:
    """The GPU's name as CMake's string(MAKE_C_IDENTIFIER) writes it: the name of its result file."""
    name = re.sub(r"[^A-Za-z0-9_]", "_", gpu)
    return "_" + name if name[:1].isdigit() else name


def gpu_listed() -> bool:
    """False when nvidia-smi is missing or lists no GPU: nothing to tune on, so nothing is built."""
    if shutil.which("nvidia-smi") is None:
        return False
    proc = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True)
    return proc.returncode == 0 and "GPU" in proc.stdout


def parse_lines(output: str) -> list[dict]:
    return [json.loads(m.group(1)) for m in map(TUNE_RE.match, output.splitlines()) if m]


def measure(lines: list[dict], sizes: list[int]) -> dict:
    """One candidate's rows -> {"gpu", "tflops", "library_tflops"} (by size), or {"error"}."""
    errors = [row["error"] for row in lines if "error" in row]
    if errors:
        return {"error": errors[0]}
    timed = {row["n"]: row for row in lines if "ms" in row}
    missing = [n for n in sizes if n not in timed]
    if missing:
        return {"error": f"no time at n = {missing[0]}"}
    tflops = {n: 2.0 * n ** 3 / (timed[n]["ms"] * 1e-3) / 1e12 for n in sizes}
    library = {n: 2.0 * n ** 3 / (timed[n]["cublas_ms"] * 1e-3) / 1e12 for n in sizes}
    return {"gpu": lines[0]["gpu"], "tflops": tflops, "library_tflops": library}


def score(results: dict[str, dict], sizes: list[int]) -> dict[int, float]:
    """Adds "ratio" (by size) and "score" to every measured candidate; returns the yardstick.

    The yardstick at each size is the median of the library's speeds measured beside all the
    candidates: one program's own library measurement varies by several per cent at 1024^3 (a
    70-microsecond product), the median of ten or more hardly. A candidate's ratio is its speed over
    the yardstick, its score the geometric mean of its ratios."""
    measured = [r for r in results.values() if "tflops" in r]
    if not measured:
        return {}
    yardstick = {n: statistics.median(r["library_tflops"][n] for r in measured) for n in sizes}
    for r in measured:
        r["ratio"] = {n: r["tflops"][n] / yardstick[n] for n in sizes}
        r["score"] = math.exp(sum(math.log(v) for v in r["ratio"].values()) / len(sizes))
    return yardstick


def choose(spec: dict, results: dict[str, dict]) -> str:
    """The winner: the best score, unless the shipped shape is within margin_pct of it."""
    scored = {name: r["score"] for name, r in results.items() if "score" in r}
    if not scored:
        raise core.UserError("No candidate could be measured (the reasons are above).")
    best = max(scored, key=scored.get)
    shipped = spec["shipped"]
    if shipped in scored and scored[best] <= scored[shipped] * (1.0 + spec["margin_pct"] / 100.0):
        return shipped
    return best


def markdown_table(spec: dict, results: dict[str, dict], yardstick: dict[int, float], winner: str, gpu: str,
                   date: str) -> str:
    sizes = spec["sizes"]
    lines = [f"Stage {spec['stage']} tile shapes on {gpu}, {date}: TFLOP/s, and the geometric mean of the speed "
             "relative to cuBLAS (timed interleaved with each candidate; the median of those runs)", "",
             "| candidate | tile | " + " | ".join(f"{n}^3" for n in sizes) + " | vs cuBLAS | |",
             "|---|---|" + "---:|" * len(sizes) + "---:|---|"]
    ranked = sorted(results.items(), key=lambda item: -item[1].get("score", 0.0))
    for name, r in ranked:
        tile = next(c["tile"] for c in spec["candidates"] if c["name"] == name)
        tile_text = ",".join(str(v) for v in tile)
        note = ("**chosen**" if name == winner else "") + (" (shipped)" if name == spec["shipped"] else "")
        if "error" in r:
            lines.append(f"| {name} | {tile_text} | " + " | ".join("" for _ in sizes) + f" | | {r['error']} |")
            continue
        cells = " | ".join(f"{r['tflops'][n]:.2f}" for n in sizes)
        lines.append(f"| {name} | {tile_text} | {cells} | {r['score']:.3f}x | {note.strip()} |")
    lines.append("| cuBLAS (median) | | " + " | ".join(f"{yardstick[n]:.2f}" for n in sizes) + " | 1.000x | |")
    return "\n".join(lines) + "\n"


def format_record(record: dict) -> str:
    """The result file: one line per field and per candidate, speeds to 0.01 TFLOP/s."""
    def rounded(value):
        if isinstance(value, float):
            return round(value, 4 if value < 10 else 2)
        if isinstance(value, dict):
            return {k: rounded(v) for k, v in value.items() if k != "gpu"}
        return value
    lines = [f" {json.dumps(key)}: {json.dumps(value)}" for key, value in record.items() if key != "candidates"]
    candidates = [f"  {json.dumps(name)}: {json.dumps(rounded(r))}" for name, r in record["candidates"].items()]
    return "{\n" + ",\n".join(lines) + ',\n "candidates": {\n' + ",\n".join(candidates) + "\n }\n}\n"


def build_programs(meta: dict, spec: dict, names: list[str]) -> list[str]:
    """Builds the candidates' programs; returns the names that built (the others are reported)."""
    prefix = f"ch{meta['chapter']:02d}"
    print(f"building {len(names)} candidate programs (each compiles stage {spec['stage']} once) ...", flush=True)
    ok, output = core.build_target(f"{prefix}_tune")
    if ok:
        return names
    built = []
    for name in names:   # find which ones fail, and keep the others
        ok, output = core.build_target(f"{prefix}_tune_{name}")
        if ok:
            built.append(name)
        else:
            print(f"{name}: does not compile, left out:\n{core.compile_errors(output, limit=8)}")
    if not built:
        raise core.UserError("No candidate program compiled (the compiler's messages are above).")
    return built


def run_candidates(meta: dict, spec: dict, names: list[str], timeout: float) -> dict[str, dict]:
    """Runs each candidate's program: name -> measure()'s record, or {"error"}."""
    env = dict(os.environ, WORKBOOK_TUNE_SIZES=",".join(str(n) for n in spec["sizes"]))
    results: dict[str, dict] = {}
    for name in names:
        program = core.BUILD / "bin" / "tune" / f"ch{meta['chapter']:02d}_tune_{name}"
        try:
            proc = subprocess.run([str(program), "[tune]"], capture_output=True, text=True, env=env, timeout=timeout)
            output = proc.stdout + proc.stderr
        except subprocess.TimeoutExpired:
            output = ""
            results[name] = {"error": f"did not finish in {timeout:.0f} s"}
        if "WORKBOOK-SKIP" in output:
            raise core.UserError("`make tune-chapter` needs an NVIDIA GPU; none is usable here.")
        if name not in results:
            lines = parse_lines(output)
            results[name] = measure(lines, spec["sizes"]) if lines else {
                "error": "did not run: " + (core.failure_details(output) or output).strip()[-300:].replace("\n", " ")}
        r = results[name]
        print(f"{name}: " + (r["error"] if "error" in r else
                             " ".join(f"{r['tflops'][n]:.2f}" for n in spec["sizes"]) + " TFLOP/s"), flush=True)
    return results


def command_tune(args) -> int:
    meta = core.load_chapter(args.chapter)
    spec = load_spec(meta)
    core.require_configured_build(meta)
    cache = (core.BUILD / "CMakeCache.txt").read_text()
    if re.search(r"^WORKBOOK_BACKEND:\w+=cpu$", cache, re.M):
        raise core.UserError("Tuning times kernels on an NVIDIA GPU; this build runs them on the CPU emulator.")
    if not gpu_listed():
        raise core.UserError("`make tune-chapter` needs an NVIDIA GPU; nvidia-smi lists none here.")
    names = [c["name"] for c in spec["candidates"]]
    if args.only:
        wanted = [n.strip() for n in args.only.split(",") if n.strip()]
        unknown = [n for n in wanted if n not in names]
        if unknown:
            raise core.UserError(f"There is no candidate '{unknown[0]}': the candidates are {', '.join(names)}.")
        names = [n for n in names if n in wanted or n == spec["shipped"]]   # the shipped one is the yardstick
    names = build_programs(meta, spec, names)
    results = run_candidates(meta, spec, names, args.timeout)

    yardstick = score(results, spec["sizes"])
    winner = choose(spec, results)
    gpu = next(r["gpu"] for r in results.values() if "gpu" in r)
    date = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    table = markdown_table(spec, results, yardstick, winner, gpu, date)
    print()
    print(table)
    tile = next(c["tile"] for c in spec["candidates"] if c["name"] == winner)
    record = {"gpu": gpu, "date": date, "chapter": meta["chapter"], "stage": spec["stage"], "sizes": spec["sizes"],
              "best": winner, "tile": tile, "shipped": spec["shipped"], "margin_pct": spec["margin_pct"],
              "library_tflops": yardstick, "candidates": results}
    result_path = core.ROOT / "chapters" / meta["dir"] / "tune" / "results" / f"{gpu_file_name(gpu)}.json"
    result_path.parent.mkdir(parents=True, exist_ok=True)
    result_path.write_text(format_record(record))
    table_path = core.BUILD / "tune" / f"ch{meta['chapter']:02d}.md"
    table_path.parent.mkdir(parents=True, exist_ok=True)
    table_path.write_text(table)
    # Configure again: the build reads the result and writes the header the stage includes.
    subprocess.run(["cmake", "-S", str(core.ROOT), "-B", str(core.BUILD)], capture_output=True, text=True)
    if winner == spec["shipped"]:
        print(f"On this GPU the shipped shape stays ({winner}): no candidate beat it by more than "
              f"{spec['margin_pct']:g}%.")
    else:
        print(f"On this GPU stage {spec['stage']} is now built with {winner} (tile {tile}); `make bench` times it.")
    print(f"Written: {core.shown(result_path)} and {core.shown(table_path)}")
    return 0
