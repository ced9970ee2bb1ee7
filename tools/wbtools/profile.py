"""`make profile-chapter N [STAGE=k]`: hardware counters of a stage beside the reference stages, from
Nsight Compute (ncu), with the metric that differs most named and the README section that teaches it.

How it runs: the chapter's grader has a profile mode, `grader --workbook-profile <stage> <which>`, in
which only one launcher of the stage's speed case runs (which = learner: the stage graded; previous:
reference k-1 or the chapter's baseline; current: reference k), once to warm up and once between
cudaProfilerStart and cudaProfilerStop, on the stage's timed input, untimed and unchecked. ncu runs it
with --profile-from-start off (only that call's kernels are profiled) and exports a report; the report
is read back as CSV (`--csv --page raw`: a header row of metric names, a units row, one row per kernel).
One ncu run per launcher: three small runs are more robust than one run told apart by NVTX ranges.

Without ncu, or where the driver does not let this user read the counters (ERR_NVGPUCTRPERM), one
sentence says how to get them and the launch facts (grid, block, registers, occupancy) still print.
`make check-chapter` calls after_check() after a "too slow" verdict (WORKBOOK_PROFILE=0 turns it off).
"""
from __future__ import annotations

import csv
import io
import json
import math
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import core

# ---- the curated metrics ------------------------------------------------------------------------


@dataclass(frozen=True)
class Metric:
    """One row of the table. `value` is an ncu metric name; `per` (optional) a second one that it is
    divided by (sum over the kernels of each, then the ratio: e.g. sectors per request). Rates and
    percentages (`weighted`) are averaged over the kernels weighted by their duration; counts add up."""
    key: str
    label: str
    value: str
    per: str = ""
    weighted: bool = False
    scale: float = 1.0          # shown value = raw * scale (bytes -> MB)
    digits: int = 1
    lesson: tuple[str, ...] = ()   # words of the README heading that teaches it


DURATION = "gpu__time_duration.sum"

METRICS = {m.key: m for m in [
    Metric("time", "kernel time (us)", DURATION, scale=1e-3, digits=1),
    Metric("dram_pct", "DRAM throughput (% of peak)", "dram__throughput.avg.pct_of_peak_sustained_elapsed",
           weighted=True, lesson=("bandwidth", "two numbers", "memory")),
    Metric("dram_read", "DRAM read (MB)", "dram__bytes_read.sum", scale=1e-6, lesson=("pass", "read", "memory")),
    Metric("dram_write", "DRAM written (MB)", "dram__bytes_write.sum", scale=1e-6, lesson=("pass", "write", "memory")),
    Metric("ld_sectors", "global load sectors per request", "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum",
           per="l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", lesson=("coalesc", "sector")),
    Metric("st_sectors", "global store sectors per request", "l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum",
           per="l1tex__t_requests_pipe_lsu_mem_global_op_st.sum", lesson=("coalesc", "sector")),
    Metric("ld_conflicts", "shared load bank conflicts per request",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", per="smsp__inst_executed_op_shared_ld.sum",
           digits=2, lesson=("bank", "padded")),
    Metric("st_conflicts", "shared store bank conflicts per request",
           "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", per="smsp__inst_executed_op_shared_st.sum",
           digits=2, lesson=("bank", "padded")),
    Metric("occupancy", "achieved occupancy (%)", "sm__warps_active.avg.pct_of_peak_sustained_active", weighted=True,
           lesson=("occupancy", "grid", "block")),
    Metric("divergent", "divergent branches", "smsp__sass_branch_targets_threads_divergent.sum", digits=0,
           lesson=("diverg", "interleaved")),
    Metric("threads_per_inst", "active threads per instruction (of 32)",
           "smsp__average_thread_inst_executed_per_inst_executed.ratio", weighted=True,
           lesson=("diverg", "warp")),
    Metric("fma_pct", "FMA pipe busy (% of peak)", "sm__pipe_fma_cycles_active.avg.pct_of_peak_sustained_active",
           weighted=True, lesson=("register", "tile", "fma")),
    Metric("tensor_pct", "tensor pipe busy (% of peak)",
           "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active", weighted=True,
           lesson=("fragment", "tensor", "ladder")),
]}

# Warp stall reasons (warp cycles per issued instruction): the three largest are shown as one row ("top stall
# reasons"), and each may be the metric that differs most.
STALLS = {
    "long_scoreboard": "waiting on global memory",
    "barrier": "waiting at __syncthreads",
    "mio_throttle": "shared-memory queue full",
    "lg_throttle": "global-memory queue full",
    "short_scoreboard": "waiting on shared memory / shuffle / SFU",
    "math_pipe_throttle": "math pipe busy",
    "not_selected": "ready, not selected",
    "wait": "fixed-latency wait",
    "membar": "memory fence",
    "branch_resolving": "branch resolving",
}


def stall_metric(reason: str) -> str:
    """The counter of one stall reason: warp cycles spent in it per issued instruction, the breakdown
    of Nsight Compute's "Warp State" section. (`smsp__average_warp_latency_issue_stalled_*` reads like
    it but sums a warp's stalled cycles over its whole life, so it grows with the work per warp: it
    cannot compare two stages.)"""
    return f"smsp__average_warps_issue_stalled_{reason}_per_issue_active.ratio"


STALL_LESSONS = {
    "long_scoreboard": ("bandwidth", "memory", "per thread"),
    "barrier": ("barrier", "sync", "per thread"),
    "mio_throttle": ("bank", "shared"),
    "short_scoreboard": ("bank", "shared"),
    "lg_throttle": ("vector", "float4", "per thread"),
    "math_pipe_throttle": ("register", "tile"),
}
STALL_METRICS = [Metric(f"stall_{reason}", f"stall: {text} (warp cycles per issued instruction)", stall_metric(reason),
                        weighted=True, lesson=STALL_LESSONS.get(reason, ()))
                 for reason, text in STALLS.items()]

COMMON = ("time", "dram_pct", "dram_read", "dram_write", "ld_sectors", "st_sectors", "occupancy")
CHAPTER_METRICS = {   # what each chapter's stages move
    1: COMMON + ("threads_per_inst",),
    2: COMMON + ("divergent", "threads_per_inst", "ld_conflicts", "st_conflicts"),
    3: COMMON + ("threads_per_inst",),
    4: COMMON + ("threads_per_inst",),
    5: COMMON + ("ld_conflicts", "st_conflicts"),
    6: COMMON + ("threads_per_inst",),
    7: COMMON + ("ld_conflicts", "st_conflicts", "fma_pct"),
    8: COMMON + ("ld_conflicts", "st_conflicts", "tensor_pct"),
}


# Floating-point work, for the roofline of `make plot-chapter` (wbtools/plot.py): not a row of the table.
# Thread-level instruction counts: an add or a multiply is one operation, a fused multiply-add two. A
# tensor-core mma.sync m16n8k16 (what WMMA and chapter 8 compile to on compute capability 8.0 and 9.0) is
# 2 * 16 * 8 * 16 = 4096 operations per warp-level instruction.
FLOP_METRICS = {
    "smsp__sass_thread_inst_executed_op_fadd_pred_on.sum": 1.0,
    "smsp__sass_thread_inst_executed_op_fmul_pred_on.sum": 1.0,
    "smsp__sass_thread_inst_executed_op_ffma_pred_on.sum": 2.0,
    "smsp__sass_thread_inst_executed_op_hadd_pred_on.sum": 1.0,
    "smsp__sass_thread_inst_executed_op_hmul_pred_on.sum": 1.0,
    "smsp__sass_thread_inst_executed_op_hfma_pred_on.sum": 2.0,
    "smsp__inst_executed_pipe_tensor_op_hmma.sum": 4096.0,
}
DRAM_BYTES = ("dram__bytes_read.sum", "dram__bytes_write.sum")


def work_values(kernels: list[dict]) -> dict[str, float | None]:
    """FLOPs and DRAM bytes over every kernel of a launcher (None where ncu gave none of the counters)."""
    out: dict[str, float | None] = {}
    flop_values = [(k.get(name), weight) for k in kernels for name, weight in FLOP_METRICS.items()]
    out["flops"] = (sum((v or 0.0) * w for v, w in flop_values)
                    if any(v is not None for v, _ in flop_values) else None)
    byte_values = [k.get(name) for k in kernels for name in DRAM_BYTES]
    out["dram_bytes"] = sum(v or 0.0 for v in byte_values) if any(v is not None for v in byte_values) else None
    durations = [k.get(DURATION) for k in kernels]
    out["time_ns"] = sum(d or 0.0 for d in durations) if any(d is not None for d in durations) else None
    return out


def chapter_metrics(chapter: int) -> list[Metric]:
    return [METRICS[key] for key in CHAPTER_METRICS.get(chapter, COMMON)]


def ncu_metric_names(chapter: int) -> list[str]:
    """Every ncu metric the chapter's table needs (the duration always: it weights the rates)."""
    names = [DURATION]
    for metric in chapter_metrics(chapter):
        names += [n for n in (metric.value, metric.per) if n and n not in names]
    names += [stall_metric(reason) for reason in STALLS]
    names += [n for n in list(FLOP_METRICS) + list(DRAM_BYTES) if n not in names]
    return names


# ---- reading ncu's CSV --------------------------------------------------------------------------

PERMISSION_ERROR = "ERR_NVGPUCTRPERM"
UNIT_SCALE = {"": 1.0, "K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
TIME_SCALE = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9}


class ProfileError(Exception):
    """Nsight Compute could not give counters; the message says why, in one sentence."""


def parse_number(text: str, unit: str = "") -> float | None:
    """"1,048,576" -> 1048576.0; "n/a" and "" -> None. Units with a prefix (Kbyte, usecond) are scaled
    to the base unit (byte, nsecond), should ncu print them so."""
    text = text.strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan", "-"):
        return None
    try:
        value = float(text)
    except ValueError:
        return None
    unit = unit.strip()
    if unit in TIME_SCALE:
        return value * TIME_SCALE[unit]
    match = re.fullmatch(r"([KMGT]?)(byte|sector|B)(/s(econd)?)?", unit)
    if match:
        return value * UNIT_SCALE[match.group(1)]
    return value


def parse_ncu_csv(text: str) -> list[dict]:
    """The kernels of an `ncu --csv --page raw` print: one dict per kernel, metric name -> number (and
    "Kernel Name" -> its name). Lines before the header (==PROF== notes, the program's own output) are
    skipped. Raises ProfileError on a permission error or when no kernel was profiled."""
    if PERMISSION_ERROR in text:
        raise ProfileError(permission_advice())
    lines = text.splitlines()
    start = next((i for i, line in enumerate(lines) if line.startswith('"ID"')), None)
    if start is None:
        reason = last_ncu_message(text) or "it printed no table"
        raise ProfileError(f"Nsight Compute profiled no kernel: {reason}.")
    rows = list(csv.reader(io.StringIO("\n".join(lines[start:]))))
    header, rest = rows[0], rows[1:]
    has_units = bool(rest) and not rest[0][0].strip()   # the units row has no ID
    units, data = (rest[0], rest[1:]) if has_units else ([], rest)
    kernels = []
    for row in data:
        if len(row) != len(header) or not row[0].strip().isdigit():
            continue   # a note after the table
        kernel = {"Kernel Name": row[header.index("Kernel Name")] if "Kernel Name" in header else "?"}
        for i, name in enumerate(header):
            if "__" in name:   # metric names have a unit__counter form; the other columns are identity
                kernel[name] = parse_number(row[i], units[i] if i < len(units) else "")
        kernels.append(kernel)
    if not kernels:
        raise ProfileError("Nsight Compute profiled no kernel in the profiled range.")
    return kernels


def last_ncu_message(text: str) -> str:
    for line in reversed(text.splitlines()):
        if line.startswith(("==ERROR==", "==WARNING==")):
            return line.split("==", 2)[-1].strip()
    return ""


def permission_advice() -> str:
    return ("Nsight Compute may not read this GPU's performance counters as this user (ERR_NVGPUCTRPERM): run "
            "as administrator (sudo), or let every user read them with the NVIDIA driver setting "
            "RmProfilingAdminOnly=0 (Linux: `options nvidia NVreg_RestrictProfilingToAdminUsers=0` in a file "
            "of /etc/modprobe.d, then reboot; Windows: NVIDIA Control Panel, Developer, Manage GPU "
            "Performance Counters).")


def no_ncu_advice() -> str:
    return ("Nsight Compute (ncu) was not found, so there are no hardware counters: it ships with the CUDA "
            "Toolkit (its bin/ folder) or as NVIDIA's nsight-compute package; put ncu on PATH.")


# ---- aggregating the kernels of one launcher ----------------------------------------------------

def aggregate(kernels: list[dict], metrics: list[Metric]) -> dict[str, float | None]:
    """One value per metric over every kernel of a launcher: counts add up, ratios of counts are the
    ratio of the sums, rates and percentages are weighted by each kernel's duration."""
    durations = [k.get(DURATION) or 0.0 for k in kernels]
    out: dict[str, float | None] = {}
    for metric in metrics:
        values = [k.get(metric.value) for k in kernels]
        if all(v is None for v in values):
            out[metric.key] = None
        elif metric.per:
            below = sum(k.get(metric.per) or 0.0 for k in kernels)
            out[metric.key] = sum(v or 0.0 for v in values) / below if below > 0 else 0.0
        elif metric.weighted:
            total = sum(d for d, v in zip(durations, values) if v is not None)
            pairs = [(d, v) for d, v in zip(durations, values) if v is not None]
            out[metric.key] = (sum(d * v for d, v in pairs) / total if total > 0
                               else sum(v for _, v in pairs) / len(pairs))
        else:
            out[metric.key] = sum(v or 0.0 for v in values) * metric.scale
    out["stalls"] = top_stalls(kernels, durations)
    for reason, value in top_stalls(kernels, durations, count=len(STALLS)):
        out[f"stall_{reason}"] = value
    return out


def top_stalls(kernels: list[dict], durations: list[float], count: int = 3) -> list[tuple[str, float]]:
    """The largest stall reasons (duration-weighted warp cycles per issued instruction), largest first."""
    total = sum(durations) or 1.0
    weighted = []
    for reason in STALLS:
        name = stall_metric(reason)
        values = [(d, k.get(name)) for d, k in zip(durations, kernels) if k.get(name) is not None]
        if values:
            weighted.append((reason, sum(d * v for d, v in values) / total if sum(durations) else
                             sum(v for _, v in values) / len(values)))
    weighted.sort(key=lambda item: -item[1])
    return weighted[:count]


# ---- the table ------------------------------------------------------------------------------------

@dataclass
class Column:
    """One launcher profiled: its label ("your stage", "reference stage 3"), its values, its launch facts."""
    label: str
    values: dict = field(default_factory=dict)
    kernels: list = field(default_factory=list)   # the WORKBOOK-PROFILE launch facts
    note: str = ""                                # why there are no counters, if there are none


def format_value(metric: Metric, value) -> str:
    if value is None:
        return "-"
    return f"{value:,.{metric.digits}f}"


def most_different(metrics: list[Metric], columns: list[Column], mine: int, ref: int) -> Metric | None:
    """The metric whose values differ most (by ratio) between columns @p mine and @p ref, the kernel
    time left out (it is what the others explain)."""
    best, best_score = None, 0.0
    for metric in metrics + STALL_METRICS:
        if metric.key == "time":
            continue
        a, b = columns[mine].values.get(metric.key), columns[ref].values.get(metric.key)
        if a is None or b is None:
            continue
        score = abs(math.log((abs(a) + 0.05) / (abs(b) + 0.05)))   # + 0.05: zero conflicts against many
        if score > best_score + 1e-9:
            best, best_score = metric, score
    return best if best_score > math.log(1.2) else None


def stalls_text(stalls) -> str:
    return ", ".join(f"{STALLS[r]} {v:.1f}" for r, v in stalls) if stalls else "-"


def render_table(metrics: list[Metric], columns: list[Column], highlight: Metric | None, markdown: bool) -> str:
    labels = [m.label for m in metrics] + ["top stall reasons (warp cycles per issued instruction)"]
    cells = [[format_value(m, c.values.get(m.key)) if c.values else "-" for c in columns] for m in metrics]
    cells.append([stalls_text(c.values.get("stalls")) if c.values else "-" for c in columns])
    if markdown:
        out = ["| metric | " + " | ".join(c.label for c in columns) + " |",
               "|---|" + "---:|" * len(columns)]
        for metric, label, row in zip(metrics + [None], labels, cells):
            mark = "**" if highlight is not None and metric is highlight else ""
            out.append(f"| {mark}{label}{mark} | " + " | ".join(f"{mark}{v}{mark}" for v in row) + " |")
        if highlight is not None and highlight not in metrics:   # a stall reason: its own row
            out.append(f"| **{highlight.label}** | " + " | ".join(
                f"**{format_value(highlight, c.values.get(highlight.key))}**" for c in columns) + " |")
        return "\n".join(out)
    width = max(len(label) for label in labels) + 3
    col = max([len(c.label) for c in columns] + [12]) + 2
    out = ["  " + "metric".ljust(width) + "".join(c.label.rjust(col) for c in columns)]
    for metric, label, row in zip(metrics + [None], labels, cells):
        if metric is None:   # the stall reasons are long: one line each
            out.append("  " + label)
            out += [f"    {c.label}: {v}" for c, v in zip(columns, row)]
            continue
        mark = " <<" if highlight is not None and metric is highlight else ""
        out.append("  " + label.ljust(width) + "".join(v.rjust(col) for v in row) + mark)
    if highlight is not None and highlight not in metrics:   # a stall reason: its own row
        out.append("  " + highlight.label.ljust(width) +
                   "".join(format_value(highlight, c.values.get(highlight.key)).rjust(col) for c in columns) + " <<")
    return "\n".join(out)


def lesson_sentence(meta: dict, metric: Metric, columns: list[Column], mine: int, ref: int) -> str:
    """One sentence: the metric that differs most, by how much, and the README section that teaches it."""
    heading = lesson_heading(meta, metric)
    a, b = columns[mine].values.get(metric.key), columns[ref].values.get(metric.key)
    where = f'"{heading}" in {readme_path(meta)}' if heading else core.shown(readme_path(meta))
    return (f"The largest difference: {metric.label}, {format_value(metric, a)} for {columns[mine].label} "
            f"against {format_value(metric, b)} for {columns[ref].label}; {where} explains it.")


def readme_path(meta: dict) -> Path:
    return core.ROOT / "chapters" / meta["dir"] / "README.md"


def lesson_heading(meta: dict, metric: Metric) -> str:
    """The first README heading (## or ###) that names one of the metric's lesson words."""
    try:
        headings = [line.lstrip("#").strip() for line in readme_path(meta).read_text().splitlines()
                    if re.match(r"^#{2,3} ", line) and "Reading the profile" not in line]
    except OSError:
        return ""
    for word in metric.lesson:
        for heading in headings:
            if word.lower() in heading.lower():
                return re.sub(r"\s*\{#[^}]*\}$", "", heading)
    return ""


def launch_facts_text(columns: list[Column]) -> str:
    lines = ["  launch facts (largest kernel):"]
    for c in columns:
        if not c.kernels:
            lines.append(f"    {c.label}: -")
            continue
        k = max(c.kernels, key=lambda k: k.get("blocks", 0) * k.get("threads_per_block", 0))
        occupancy = k.get("occupancy")
        known = isinstance(occupancy, (int, float)) and occupancy >= 0
        occ = f", theoretical occupancy {100 * occupancy:.0f}%" if known else ""
        regs = f", {k['registers']} registers" if k.get("registers", -1) >= 0 else ""
        lines.append(f"    {c.label}: {len(c.kernels)} kernel(s); `{k.get('name')}` {k.get('blocks')} blocks x "
                     f"{k.get('threads_per_block')} threads{regs}, {k.get('shared_bytes')} B shared{occ}")
    return "\n".join(lines)


# ---- running ncu ----------------------------------------------------------------------------------

def find_ncu() -> str | None:
    """ncu on PATH, else next to nvcc, else in the CUDA Toolkit's usual place."""
    found = shutil.which("ncu")
    if found:
        return found
    nvcc = shutil.which("nvcc")
    candidates = [Path(nvcc).parent / "ncu"] if nvcc else []
    candidates.append(Path("/usr/local/cuda/bin/ncu"))
    return next((str(c) for c in candidates if c.is_file() and os.access(c, os.X_OK)), None)


def grader_env() -> dict:
    return dict(os.environ, WORKBOOK_SANITIZE="0", WORKBOOK_KERNEL_TIMEOUT="600")


def run_launcher(ncu: str | None, grader: Path, stage: int, which: str, metrics: list[str], timeout: float,
                 workdir: Path) -> tuple[dict | None, list[dict] | None, str]:
    """Profiles one launcher: (its WORKBOOK-PROFILE record or None, the kernels' counters or None, why
    not). Without @p ncu the grader runs alone, for the launch facts."""
    command = [str(grader), "--workbook-profile", str(stage), which]
    report = workdir / f"stage{stage}_{which}"
    if ncu:
        command = [ncu, "--profile-from-start", "off", "--metrics", ",".join(metrics), "--force-overwrite",
                   "--export", str(report)] + command
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout, env=grader_env())
    except subprocess.TimeoutExpired:
        return None, None, f"the profile run took longer than {timeout:.0f} s"
    output = proc.stdout + proc.stderr
    records = core.parse_results(proc.stdout, "WORKBOOK-PROFILE")
    record = records[-1] if records else None
    if record is None:
        return None, None, no_profile_reason(proc.stdout)
    if not ncu:
        return record, None, no_ncu_advice()
    if PERMISSION_ERROR in output:
        return record, None, permission_advice()
    exported = report.with_suffix(".ncu-rep")
    if not exported.exists():
        reason = last_ncu_message(output) or f"exit code {proc.returncode}"
        return record, None, f"Nsight Compute wrote no report: {reason}"
    imported = subprocess.run([ncu, "--import", str(exported), "--csv", "--page", "raw", "--print-units", "base"],
                              capture_output=True, text=True, timeout=timeout)
    try:
        return record, parse_ncu_csv(imported.stdout + imported.stderr), ""
    except ProfileError as error:
        return record, None, str(error)


def no_profile_reason(output: str) -> str:
    """Why the grader printed no WORKBOOK-PROFILE line: no GPU, an emulated build, or no timed case."""
    skip = re.search(r"^WORKBOOK-SKIP: (.*?)\.?$", output, re.M)
    if skip:
        return f"Profiling needs an NVIDIA GPU: {skip.group(1)}."
    results = core.parse_results(output)
    if any(r.get("emulated") for r in results):
        return ("This build runs the kernels on the CPU emulator: profiling needs a GPU build (make clean, then "
                "without BACKEND=cpu).")
    stopped = [r for r in results if r.get("status") not in ("passed", None)]
    if stopped:
        return f"The grader stopped before the stage's timed case: {stopped[-1].get('summary', '')}"
    return "The grader printed no profile record: this stage has no timed case to profile."


def profile_columns(meta: dict, grader: Path, runs: list[tuple[int, str]], timeout: float,
                    ncu: str | None) -> tuple[list[Column], str]:
    """One column per (stage, which); the first reason counters are missing, if any."""
    metrics = chapter_metrics(meta["chapter"])
    names = ncu_metric_names(meta["chapter"])
    columns, missing = [], ""
    with tempfile.TemporaryDirectory(prefix="workbook-profile-") as tmp:
        for stage, which in runs:
            record, kernels, why = run_launcher(ncu, grader, stage, which, names, timeout, Path(tmp))
            default = {"learner": "your stage", "previous": f"reference stage {stage - 1}",
                       "current": f"reference stage {stage}"}[which]
            label = (record or {}).get("label") or default
            column = Column(label, kernels=(record or {}).get("kernels", []), note=why)
            if record is not None and not record.get("label"):   # e.g. stage 1 has no previous stage
                column.label, column.note = f"({which}: none)", "this stage has no such launcher"
            if kernels:
                column.values = aggregate(kernels, metrics)
                column.values.update(work_values(kernels))
            columns.append(column)
            missing = missing or why
            if why in (no_ncu_advice(), permission_advice()):
                ncu = None   # the same answer for every launcher: the others run for their launch facts only
    for column in columns:
        if not column.values and column.note in (no_ncu_advice(), permission_advice()):
            column.note = missing
    return columns, missing


# ---- the commands ---------------------------------------------------------------------------------

def profile_stage(meta: dict, stage: int, timeout: float, ncu: str | None,
                  track: str = "exercises") -> tuple[str, dict]:
    """`make profile-chapter N STAGE=k`: the stage beside references k-1 and k. Returns (text, record)."""
    grader = core.grader_path(meta, track)
    if not grader.exists():
        raise core.UserError(f"The grader {core.shown(grader)} is not built: "
                             f"run `make check-chapter {meta['chapter']}`.")
    runs = [(stage, "learner"), (stage, "previous"), (stage, "current")]
    columns, missing = profile_columns(meta, grader, runs, timeout, ncu)
    metrics = chapter_metrics(meta["chapter"])
    highlight = most_different(metrics, columns, 0, 2) if all(c.values for c in (columns[0], columns[2])) else None
    title = f"Chapter {meta['chapter']}, stage {stage}: counters from Nsight Compute (one call, the timed input)"
    parts = [title, launch_facts_text(columns)]
    if any(c.values for c in columns):
        parts.append(render_table(metrics, columns, highlight, markdown=False))
    if highlight is not None:
        parts.append(lesson_sentence(meta, highlight, columns, 0, 2))
    elif columns[0].values and columns[2].values:
        parts.append(f"No counter differs by more than 20% between {columns[0].label} and {columns[2].label}: "
                     "compare the launch facts above (work per thread, grid, block size).")
    if missing:
        parts.append(missing)
    record = {"chapter": meta["chapter"], "stage": stage, "missing": missing,
              "highlight": highlight.key if highlight else None, "columns": columns_record(columns)}
    table = render_table(metrics, columns, highlight, markdown=True) if any(c.values for c in columns) else missing
    markdown = f"### {title}\n\n{table}\n"
    write_outputs(f"ch{meta['chapter']:02d}_stage{stage}", markdown, record)
    return "\n".join(parts), record


def profile_chapter(meta: dict, timeout: float, ncu: str | None) -> tuple[str, str, dict]:
    """`make profile-chapter N`: every reference stage, one column each. Returns (text, markdown, record)."""
    grader = core.grader_path(meta, "solutions")
    if not grader.exists():
        raise core.UserError(f"The grader {core.shown(grader)} is not built: "
                             f"run `make profile-chapter {meta['chapter']}` "
                             "(it builds it) or `make test`.")
    runs = [(s["id"], "current") for s in meta["stages"]]
    columns, missing = profile_columns(meta, grader, runs, timeout, ncu)
    for column, (stage, _) in zip(columns, runs):
        column.label = f"stage {stage}"
    metrics = chapter_metrics(meta["chapter"])
    markdown = render_table(metrics, columns, None, markdown=True) if any(c.values for c in columns) else ""
    text = "\n".join(p for p in [f"Chapter {meta['chapter']}: the reference stages' counters (Nsight Compute)",
                                 launch_facts_text(columns),
                                 render_table(metrics, columns, None, markdown=False) if markdown else "",
                                 missing] if p)
    record = {"chapter": meta["chapter"], "missing": missing, "columns": columns_record(columns)}
    write_outputs(f"ch{meta['chapter']:02d}", f"<!-- profile-table ch{meta['chapter']:02d} -->\n{markdown}\n", record)
    return text, markdown, record


def columns_record(columns: list[Column]) -> list[dict]:
    return [{"label": c.label, "values": c.values, "kernels": c.kernels, "note": c.note} for c in columns]


def write_outputs(stem: str, markdown: str, record: dict) -> None:
    folder = core.BUILD / "profile"
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"{stem}.md").write_text(markdown)
    (folder / f"{stem}.json").write_text(json.dumps(record, indent=2, default=list) + "\n")


def command_profile(args) -> int:
    meta = core.load_chapter(args.chapter)
    ncu = find_ncu()
    if args.stage is not None:
        stage = int(args.stage)
        text, _ = profile_stage(meta, stage, args.timeout, ncu, "solutions" if args.solutions else "exercises")
        written = core.BUILD / "profile" / f"ch{meta['chapter']:02d}_stage{stage}.md"
        print(text)
        print(f"\nWritten: {core.shown(written)} (and .json)")
        return 0
    text, markdown, _ = profile_chapter(meta, args.timeout, ncu)
    print(markdown if args.markdown else text)
    return 0


def after_check(meta: dict, grader: Path, results: dict[int, dict], timeout: float) -> None:
    """After `make check-chapter`: profiles the first stage that was too slow, where Nsight Compute is
    installed and WORKBOOK_PROFILE is not 0. Never for passing stages; never in CI. Prints, never fails."""
    slow = [stage for stage, result in sorted(results.items()) if result.get("status") == "too-slow"]
    if not slow or os.environ.get("WORKBOOK_PROFILE") == "0" or os.environ.get("CI"):
        return
    ncu = find_ncu()
    if ncu is None:
        print(f"\n  Why is stage {slow[0]} slow? {no_ncu_advice()} Then: make profile-chapter {meta['chapter']} "
              f"STAGE={slow[0]}.")
        return
    print(f"\nProfiling stage {slow[0]} with Nsight Compute (WORKBOOK_PROFILE=0 turns this off) ...")
    track = "solutions" if grader.name.endswith("_solutions") else "exercises"
    try:
        text, _ = profile_stage(meta, slow[0], timeout, ncu, track)
    except core.UserError as error:
        print(f"  {error}")
        return
    print(text)
