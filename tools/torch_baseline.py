#!/usr/bin/env python3
"""PyTorch on the benchmark shapes of the chapters that have a PyTorch equivalent, for `make bench`.

    python3 tools/torch_baseline.py [chapters...]      e.g. python3 tools/torch_baseline.py 3 4

Prints one WORKBOOK-BENCH line per (op, shape, dtype), in the format of wb::print_bench_row
(harness/stage.cpp), so that `tools/workbook.py bench` can show PyTorch beside the
workbook's kernels, measured in the same run on the same GPU. PyTorch is never a build dependency:
without it (or without a GPU) this script says so and exits with status 0, printing no rows.

Timing follows the harness (harness/timing.hpp): CUDA events recorded around each call on
the current stream, warm-up calls first, the median of 30 timed calls. Event timing of one call
includes the launch overhead between the events, for PyTorch as for the workbook's kernels; for
the small shapes the rows also carry "ms_graph", the time per call of the same calls replayed from
a CUDA graph (no CPU overhead at all), so that a reader can see how much of the time is overhead.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys

WARMUP = 5
REPETITIONS = 30
GRAPH_CALLS = 5                 # calls captured in one CUDA graph for "ms_graph"
GRAPH_MAX_ELEMENTS = 1 << 24    # only small shapes, where launch overhead matters, get "ms_graph"

# The shapes of the OneFlow softmax article: (49152, N), and rows * N = 49152 * 8192 beyond 8192.
ROW_SHAPES = [(49152, 32), (49152, 128), (49152, 512), (49152, 1024), (49152, 2048), (49152, 4096),
              (49152, 8192), (24576, 16384), (12288, 32768)]


def time_ms(torch, fn) -> float:
    """Median milliseconds of one call of fn, CUDA events around each call."""
    start = torch.cuda.Event(enable_timing=True)
    stop = torch.cuda.Event(enable_timing=True)
    for _ in range(WARMUP):
        fn()
    torch.cuda.synchronize()
    samples = []
    for _ in range(REPETITIONS):
        start.record()
        fn()
        stop.record()
        stop.synchronize()
        samples.append(start.elapsed_time(stop))
    return statistics.median(samples)


def graph_ms(torch, fn) -> float | None:
    """Median milliseconds per call of GRAPH_CALLS calls replayed from one CUDA graph."""
    try:
        side = torch.cuda.Stream()
        side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(side):
            for _ in range(3):
                fn()
        torch.cuda.current_stream().wait_stream(side)
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            for _ in range(GRAPH_CALLS):
                fn()
        replay_ms = time_ms(torch, graph.replay)
        del graph
        return replay_ms / GRAPH_CALLS
    except Exception:   # capture is an extra; never let it cost the main number
        return None


def copy_bandwidth_gbps(torch) -> float:
    """Device-to-device copy of 2^28 floats, bytes read + written per second."""
    n = 1 << 28
    a = torch.empty(n, dtype=torch.float32, device="cuda").uniform_(-1, 1)
    b = torch.empty_like(a)
    ms = time_ms(torch, lambda: b.copy_(a))
    a = b = None   # free the memory (a `del` would leave the lambda's names undefined to the lint)
    torch.cuda.empty_cache()
    return 2 * 4 * n / (ms * 1e-3) / 1e9


class Printer:
    def __init__(self, torch, gpu: str, copy_gbps: float):
        self.torch, self.gpu, self.copy_gbps = torch, gpu, copy_gbps

    def row(self, chapter: int, op: str, variant: str, shape: tuple, dtype: str, fn, nbytes: float) -> None:
        ms = time_ms(self.torch, fn)
        gbps = nbytes / (ms * 1e-3) / 1e9
        record = {"chapter": chapter, "op": op, "variant": variant, "stage": 0,
                  "shape": "[" + ", ".join(str(s) for s in shape) + "]", "dtype": dtype, "ms": round(ms, 6),
                  "gbps": round(gbps, 3), "pct_copy": round(100 * gbps / self.copy_gbps, 3),
                  "gpu": self.gpu, "copy_gbps": round(self.copy_gbps, 3), "library": "pytorch"}
        if shape[0] * shape[-1] <= GRAPH_MAX_ELEMENTS:
            replayed = graph_ms(self.torch, fn)
            if replayed is not None:
                record["ms_graph"] = round(replayed, 6)
        print("WORKBOOK-BENCH " + json.dumps(record), flush=True)


def bench_softmax(p: Printer) -> None:
    torch = p.torch
    for rows, cols in ROW_SHAPES:
        for dtype in ("float32", "float16"):
            x = torch.empty(rows, cols, dtype=getattr(torch, dtype), device="cuda").uniform_(-8, 8)
            nbytes = 2 * x.numel() * x.element_size()
            p.row(3, "softmax", "PyTorch torch.softmax", (rows, cols), dtype, lambda: torch.softmax(x, dim=-1), nbytes)
            if dtype == "float32":
                p.row(3, "log_softmax", "PyTorch torch.log_softmax", (rows, cols), dtype,
                      lambda: torch.log_softmax(x, dim=-1), nbytes)
            x = None
        torch.cuda.empty_cache()


def bench_layernorm(p: Printer) -> None:
    torch = p.torch
    layer_norm = torch.nn.functional.layer_norm
    for rows, cols in ROW_SHAPES:
        for dtype in ("float32", "float16", "bfloat16"):
            t = getattr(torch, dtype)
            x = torch.empty(rows, cols, dtype=t, device="cuda").uniform_(-4, 4)
            weight = torch.empty(cols, dtype=t, device="cuda").uniform_(-2, 2)
            bias = torch.empty(cols, dtype=t, device="cuda").uniform_(-1, 1)
            nbytes = 2 * x.numel() * x.element_size()
            p.row(4, "layernorm", "PyTorch torch.nn.functional.layer_norm", (rows, cols), dtype,
                  lambda: layer_norm(x, (cols,), weight, bias, 1e-5), nbytes)
            x = weight = bias = None
        torch.cuda.empty_cache()


# Chapter number -> what PyTorch offers for it. Chapters without an entry are skipped quietly.
BENCHES = {3: bench_softmax, 4: bench_layernorm}


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("chapters", nargs="*", type=int, help="chapters to time (default: every one PyTorch covers)")
    args = parser.parse_args(argv)
    chapters = [c for c in (args.chapters or sorted(BENCHES)) if c in BENCHES]
    if not chapters:
        return 0
    try:
        import torch
    except ImportError:
        print("PyTorch is not installed for this Python: no PyTorch baseline (the column is left out).")
        return 0
    if not torch.cuda.is_available():
        print("PyTorch sees no CUDA GPU: no PyTorch baseline (the column is left out).")
        return 0
    torch.backends.cuda.matmul.allow_tf32 = False
    printer = Printer(torch, torch.cuda.get_device_name(), copy_bandwidth_gbps(torch))
    print(f"PyTorch {torch.__version__} on {printer.gpu}", flush=True)
    for chapter in chapters:
        BENCHES[chapter](printer)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
