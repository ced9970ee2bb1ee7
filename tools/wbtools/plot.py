"""`make plot-chapter N`: the stage ladder of `make bench` as a bar chart (PNG and SVG).

Reads build/bench/results.json (written by `make bench`), keeps the chapter's rows and draws one bar
per benchmark row: the reference stages in ladder colours, the baselines (library, unfused pair,
plain copy) in grey, with the device's copy bandwidth (GB/s chapters) or cuBLAS (TFLOP/s chapters)
as a dashed line. Chapters measured at several shapes get one panel per operation and data type,
with the shapes side by side. Output: build/plots/chapterNN_name.png, .svg and .caption (the
GPU and date, for the documentation, which embeds the latest plots: `make docs`).

Beside the ladder, where `make profile-chapter N` has written build/profile/chNN.json (Nsight Compute
on a GPU), a roofline: each reference stage as a point, its arithmetic intensity (floating-point
operations per DRAM byte) against its achieved GFLOP/s, both from the profile's counters and kernel
time, under the memory roof of the device's copy bandwidth and, for the GEMM chapters, cuBLAS (both
from `make bench`, where its results are there). A chapter whose stages do no arithmetic (a
transpose) gets the achieved DRAM bandwidth of each stage instead. Output:
build/plots/chapterNN_name_roofline.png and .svg.

matplotlib is the one dependency outside the standard library. When this Python has none, the
plot is drawn by /usr/bin/python3 if that one has it (Debian's python3-matplotlib); otherwise the
command says what to install and exits with status 2.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from . import core

MISSING = "make plot-chapter needs matplotlib: sudo apt-get install python3-matplotlib"
TOOLS = Path(__file__).resolve().parents[1]


def have_matplotlib() -> bool:
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        return False
    return True


def fallback_interpreters() -> list[str]:
    configured = os.environ.get("WORKBOOK_PLOT_PYTHON")
    if configured is not None:
        return [p for p in configured.split(os.pathsep) if p]
    return ["/usr/bin/python3"]


def other_python_with_matplotlib() -> str | None:
    if os.environ.get("WORKBOOK_PLOT_REEXEC") == "1":
        return None
    for python in fallback_interpreters():
        if not os.path.exists(python):
            continue
        if os.path.realpath(python) == os.path.realpath(sys.executable):
            continue
        probe = subprocess.run([python, "-c", "import matplotlib"], capture_output=True)
        if probe.returncode == 0:
            return python
    return None


def load_rows(results: Path, meta: dict) -> tuple[dict, list[dict]]:
    if not results.exists():
        raise core.UserError(f"There are no benchmark results yet ({core.shown(results)}): run `make bench` on a "
                             f"machine with an NVIDIA GPU, then `make plot-chapter {meta['chapter']}`.")
    try:
        data = json.loads(results.read_text())
        rows = data["rows"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise core.UserError(f"{core.shown(results)} is not a `make bench` result file ({error}): "
                             "run `make bench` again.")
    mine = [r for r in rows if isinstance(r, dict) and r.get("chapter") == meta["chapter"]]
    if not mine:
        raise core.UserError(f"{core.shown(results)} has no rows for chapter {meta['chapter']}: `make bench` measures "
                             "every chapter that is built (`make test` builds them all).")
    return data.get("meta") or {}, mine


def is_library(row: dict) -> bool:
    if row.get("library"):   # e.g. "pytorch": the rows tools/torch_baseline.py adds to make bench
        return True
    text = f"{row.get('variant', '')} {row.get('op', '')}".lower()
    return any(name in text for name in ("cublas", "cub ", "cub:", "cub)", "pytorch", "torch", "memcpy", "thrust"))


def reference_line(meta: dict, data_meta: dict, rows: list[dict]) -> tuple[float, str] | None:
    if meta.get("metric") == "TFLOP/s":
        cublas = [r["tflops"] for r in rows if "cublas" in str(r.get("variant", "")).lower()
                  and isinstance(r.get("tflops"), (int, float))]
        return (max(cublas), f"cuBLAS: {max(cublas):.1f} TFLOP/s") if cublas else None
    copy = data_meta.get("copy_gbps") or next((r.get("copy_gbps") for r in rows if r.get("copy_gbps")), None)
    return (copy, f"device copy bandwidth: {copy:.0f} GB/s") if isinstance(copy, (int, float)) else None


def stem(meta: dict) -> str:
    return f"chapter{meta['dir']}"


def bar_label(row: dict, several_ops: bool) -> str:
    label = "\n".join(textwrap.wrap(str(row.get("variant", "?")), 20))
    if several_ops:
        label += f"\n({row.get('op', '')}, {row.get('dtype', '')})"
    return label


def draw(meta: dict, data_meta: dict, rows: list[dict], out_dir: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"   # SVG text stays text: smaller, searchable, crisp
    import matplotlib.pyplot as plt

    flops = meta.get("metric") == "TFLOP/s"
    key = "tflops" if flops else "gbps"
    unit = "TFLOP/s" if flops else "GB/s"
    rows = [r for r in rows if isinstance(r.get(key), (int, float))]
    if not rows:
        raise core.UserError(f"The chapter {meta['chapter']} rows of the results have no {unit} figures to plot.")
    stages = sorted({r.get("stage", 0) for r in rows if r.get("stage", 0) > 0})
    ladder = plt.get_cmap("viridis")

    def color(row: dict):
        stage = row.get("stage", 0)
        if stage <= 0:
            return "#8c8c8c" if is_library(row) else "#c4c4c4"
        position = stages.index(stage) / max(1, len(stages) - 1)
        return ladder(0.15 + 0.7 * position)

    groups: dict[tuple, list[dict]] = {}
    for row in rows:
        groups.setdefault((row.get("op"), row.get("dtype")), []).append(row)
    single_shape = all(len({r.get("shape") for r in g}) == 1 for g in groups.values())
    line = reference_line(meta, data_meta, rows)
    gpu = data_meta.get("gpu") or rows[0].get("gpu") or "an NVIDIA GPU"
    date = data_meta.get("date") or ""
    caption = f"Measured on {gpu}{', ' + date if date else ''} with make bench."

    if single_shape:
        several_ops = len(groups) > 1
        fig, ax = plt.subplots(figsize=(max(8.0, 1.25 * len(rows) + 2), 6.0))
        axes = [ax]
        xs = range(len(rows))
        bars = ax.bar(xs, [r[key] for r in rows], color=[color(r) for r in rows], edgecolor="#333333", linewidth=0.6)
        for bar_, row in zip(bars, rows):
            text = f"{row[key]:.1f}" if flops else f"{row[key]:.0f}"
            if not flops and isinstance(row.get("pct_copy"), (int, float)):
                text += f"\n{row['pct_copy']:.0f}%"
            ax.annotate(text, (bar_.get_x() + bar_.get_width() / 2, bar_.get_height()), ha="center", va="bottom",
                        fontsize=8, xytext=(0, 2), textcoords="offset points")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([bar_label(r, several_ops) for r in rows], fontsize=8)
        shape = rows[0].get("shape", "")
        ax.set_xlabel(f"shape: {shape}" if shape else "")
    else:
        fig, axes = plt.subplots(len(groups), 1, figsize=(12.0, 4.2 * len(groups) + 0.8), squeeze=False)
        axes = [a[0] for a in axes]
        for ax, ((op, dtype), group) in zip(axes, groups.items()):
            shapes = list(dict.fromkeys(r.get("shape") for r in group))
            variants = list(dict.fromkeys(r.get("variant") for r in group))
            width = 0.8 / len(variants)
            for index, variant in enumerate(variants):
                series = {r.get("shape"): r for r in group if r.get("variant") == variant}
                xs = [i + (index - (len(variants) - 1) / 2) * width for i, s in enumerate(shapes) if s in series]
                ys = [series[s][key] for s in shapes if s in series]
                sample = next(iter(series.values()))
                ax.bar(xs, ys, width=width, color=color(sample), edgecolor="#333333", linewidth=0.4, label=variant)
            ax.set_xticks(range(len(shapes)))
            ax.set_xticklabels([str(s) for s in shapes], fontsize=8)
            ax.set_title(f"{op} ({dtype})", fontsize=10, loc="left")
            ax.set_xlabel("shape")

    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch
    for index, ax in enumerate(axes):
        handles = []
        if line:
            ax.axhline(line[0], color="#c0392b", linestyle="--", linewidth=1.2)
            handles.append(Line2D([], [], color="#c0392b", linestyle="--", linewidth=1.2, label=line[1]))
        if single_shape:
            handles.append(Patch(facecolor=ladder(0.5), edgecolor="#333333", label="reference stages (lighter: later)"))
            if any(r.get("stage", 0) <= 0 and is_library(r) for r in rows):
                handles.append(Patch(facecolor="#8c8c8c", edgecolor="#333333", label="library / copy baseline"))
            if any(r.get("stage", 0) <= 0 and not is_library(r) for r in rows):
                handles.append(Patch(facecolor="#c4c4c4", edgecolor="#333333", label="other baseline"))
            ax.legend(handles=handles, fontsize=8, loc="upper left", ncol=len(handles), framealpha=0.95)
        else:
            series = ax.get_legend_handles_labels()[0]
            ax.legend(handles=series + handles, fontsize=7, ncol=3, loc="upper left", framealpha=0.95)
        top = max([r[key] for r in rows] + ([line[0]] if line else []))
        ax.set_ylim(0, top * 1.3)
        ax.set_ylabel(unit)
        ax.grid(axis="y", alpha=0.3)
        ax.set_axisbelow(True)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    height = fig.get_figheight()   # title and caption sit at fixed distances (in inches) from the top
    fig.text(0.01, 1 - 0.12 / height, f"Chapter {meta['chapter']}: {meta['title']}: the stage ladder",
             fontsize=13, ha="left", va="top")
    fig.text(0.01, 1 - 0.42 / height, caption, fontsize=9, color="#555555", ha="left", va="top")
    fig.tight_layout(rect=(0, 0, 1, 1 - 0.65 / height))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix in ("png", "svg"):
        target = out_dir / f"{stem(meta)}.{suffix}"
        fig.savefig(target, dpi=130 if suffix == "png" else None)
        written.append(target)
    plt.close(fig)
    (out_dir / f"{stem(meta)}.caption").write_text(caption + "\n")
    return written


# ---- the roofline, from `make profile-chapter N` ----------------------------------------------------


def load_profile(path: Path, meta: dict) -> list[dict]:
    """The points of the roofline: one per profiled reference stage with counters, as dicts with
    label, stage, flops, bytes, seconds. [] when the profile has no counters (no ncu, no permission)."""
    try:
        record = json.loads(path.read_text())
        columns = record["columns"]
    except (OSError, ValueError, KeyError, TypeError) as error:
        raise core.UserError(f"{core.shown(path)} is not a `make profile-chapter` record ({error}): "
                             f"run `make profile-chapter {meta['chapter']}` again.")
    points = []
    for column in columns:
        values = column.get("values") or {}
        label = str(column.get("label", ""))
        seconds = values.get("time_ns")
        data = values.get("dram_bytes")
        if not isinstance(seconds, (int, float)) or seconds <= 0 or not isinstance(data, (int, float)) or data <= 0:
            continue
        stage = int(label.split()[-1]) if label.startswith("stage ") and label.split()[-1].isdigit() else 0
        flops = values.get("flops")
        points.append({"label": label, "stage": stage, "flops": flops if isinstance(flops, (int, float)) else 0.0,
                       "bytes": float(data), "seconds": float(seconds) * 1e-9})
    return points


def roofline_points(points: list[dict]) -> list[dict]:
    """Arithmetic intensity (FLOP per DRAM byte) and achieved GFLOP/s and GB/s of each point."""
    out = []
    for p in points:
        out.append(dict(p, intensity=p["flops"] / p["bytes"], gflops=p["flops"] / p["seconds"] / 1e9,
                        gbps=p["bytes"] / p["seconds"] / 1e9))
    return out


def draw_roofline(meta: dict, points: list[dict], data_meta: dict, rows: list[dict], out_dir: Path) -> list[Path]:
    import matplotlib
    matplotlib.use("Agg")
    matplotlib.rcParams["svg.fonttype"] = "none"
    import matplotlib.pyplot as plt

    points = roofline_points(points)
    copy = data_meta.get("copy_gbps") or next((r.get("copy_gbps") for r in rows if r.get("copy_gbps")), None)
    stages = sorted({p["stage"] for p in points})
    ladder = plt.get_cmap("viridis")

    def color(p: dict):
        return ladder(0.15 + 0.7 * stages.index(p["stage"]) / max(1, len(stages) - 1))

    fig, ax = plt.subplots(figsize=(9.0, 6.0))
    arithmetic = any(p["flops"] > 0 for p in points)
    if arithmetic:
        shown = [p for p in points if p["flops"] > 0]
        xs = [p["intensity"] for p in shown]
        low, high = min(xs) / 4, max(xs) * 4
        if isinstance(copy, (int, float)):
            ax.plot([low, high], [low * copy, high * copy], "--", color="#555555", linewidth=1,
                    label=f"memory roof: device copy bandwidth, {copy:.0f} GB/s")
        cublas = [r["tflops"] for r in rows if "cublas" in str(r.get("variant", "")).lower()
                  and isinstance(r.get("tflops"), (int, float))]
        if cublas:
            ax.axhline(max(cublas) * 1e3, linestyle=":", color="#8c8c8c", linewidth=1,
                       label=f"cuBLAS (make bench): {max(cublas):.1f} TFLOP/s")
        for p in shown:
            ax.scatter(p["intensity"], p["gflops"], s=60, color=color(p), edgecolor="#333333", zorder=3)
            ax.annotate(p["label"], (p["intensity"], p["gflops"]), xytext=(6, 4), textcoords="offset points",
                        fontsize=8)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.set_xlim(low, high)
        ax.set_xlabel("arithmetic intensity (FLOP per DRAM byte)")
        ax.set_ylabel("achieved GFLOP/s")
        title = "roofline of the reference stages"
    else:
        xs = range(len(points))
        bars = ax.bar(xs, [p["gbps"] for p in points], color=[color(p) for p in points], edgecolor="#333333",
                      linewidth=0.6)
        for bar_, p in zip(bars, points):
            ax.annotate(f"{p['gbps']:.0f}", (bar_.get_x() + bar_.get_width() / 2, bar_.get_height()), ha="center",
                        va="bottom", fontsize=8, xytext=(0, 2), textcoords="offset points")
        if isinstance(copy, (int, float)):
            ax.axhline(copy, linestyle="--", color="#555555", linewidth=1,
                       label=f"device copy bandwidth: {copy:.0f} GB/s")
        ax.set_xticks(list(xs))
        ax.set_xticklabels([p["label"] for p in points], fontsize=8)
        ax.set_ylabel("achieved DRAM bandwidth (GB/s)")
        title = "DRAM bandwidth of the reference stages (no floating-point work to place on a roofline)"
    if ax.get_legend_handles_labels()[0]:
        ax.legend(fontsize=8, loc="lower right" if arithmetic else "upper left")
    ax.grid(alpha=0.3, which="both")
    ax.set_axisbelow(True)
    fig.suptitle(f"Chapter {meta['chapter']}: {meta['title']}: {title}", fontsize=12, x=0.01, ha="left")
    fig.text(0.01, 0.92, "From make profile-chapter (Nsight Compute: FLOPs, DRAM bytes, kernel time).",
             fontsize=9, color="#555555", ha="left")
    fig.tight_layout(rect=(0, 0, 1, 0.9))
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for suffix in ("png", "svg"):
        target = out_dir / f"{stem(meta)}_roofline.{suffix}"
        fig.savefig(target, dpi=130 if suffix == "png" else None)
        written.append(target)
    plt.close(fig)
    return written


def command_plot(args) -> int:
    meta = core.load_chapter(args.chapter)
    results = Path(args.results).resolve() if getattr(args, "results", None) else core.BUILD / "bench" / "results.json"
    out_dir = Path(args.out).resolve() if getattr(args, "out", None) else core.BUILD / "plots"
    profile_json = (Path(args.profile).resolve() if getattr(args, "profile", None)
                    else core.BUILD / "profile" / f"ch{meta['chapter']:02d}.json")
    points = load_profile(profile_json, meta) if profile_json.exists() else []
    if profile_json.exists() and not points:
        print(f"{core.shown(profile_json)} has no counters (Nsight Compute could not read them), so there is no "
              "roofline: see `make profile-chapter` for how to allow it.", file=sys.stderr)
    data_meta, rows = {}, []
    try:
        data_meta, rows = load_rows(results, meta)
    except core.UserError:
        if not points:
            raise   # neither a ladder nor a roofline: the ladder's sentence says what to run

    if not have_matplotlib():
        python = other_python_with_matplotlib()
        if python is None:
            print(MISSING, file=sys.stderr)
            return 2
        env = dict(os.environ, WORKBOOK_PLOT_REEXEC="1", WORKBOOK_ROOT=str(core.ROOT), WORKBOOK_BUILD=str(core.BUILD))
        return subprocess.run([python, str(TOOLS / "workbook.py"), "plot", str(meta["chapter"]),
                               "--results", str(results), "--out", str(out_dir), "--profile", str(profile_json)],
                              env=env).returncode
    if rows:
        written = draw(meta, data_meta, rows, out_dir)
        print(f"Chapter {meta['chapter']}: {len(rows)} benchmark rows plotted: "
              + ", ".join(core.shown(p) for p in written))
    if points:
        written = draw_roofline(meta, points, data_meta, rows, out_dir)
        print(f"Chapter {meta['chapter']}: {len(points)} profiled stages on the roofline: "
              + ", ".join(core.shown(p) for p in written))
    elif not profile_json.exists():
        print(f"For a roofline beside the ladder, run `make profile-chapter {meta['chapter']}` on a GPU with "
              "Nsight Compute first.")
    if rows:
        print("`make docs` puts the latest plots on the documentation's \"Benchmark plots\" page.")
    return 0
