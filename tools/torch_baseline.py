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

    def row(self, chapter: int, op: str, variant: str, shape: tuple, dtype: str, fn, nbytes: float,
            flops: float = 0.0, graph: bool = True) -> None:
        ms = time_ms(self.torch, fn)
        record = {"chapter": chapter, "op": op, "variant": variant, "stage": 0,
                  "shape": "[" + ", ".join(str(s) for s in shape) + "]", "dtype": dtype, "ms": round(ms, 6)}
        if nbytes > 0:
            gbps = nbytes / (ms * 1e-3) / 1e9
            record.update({"gbps": round(gbps, 3), "pct_copy": round(100 * gbps / self.copy_gbps, 3)})
        if flops > 0:
            record["tflops"] = round(flops / (ms * 1e-3) / 1e12, 3)
        record.update({"gpu": self.gpu, "copy_gbps": round(self.copy_gbps, 3), "library": "pytorch"})
        if graph and shape[0] * shape[-1] <= GRAPH_MAX_ELEMENTS:
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


# Chapter 9's shapes (B, H, q_len, kv_len, D, causal), as in its grader's bench; fp16 as the stages are timed.
ATTENTION_SHAPES = [(16, 16, 1024, 1024, 64, False), (8, 16, 4096, 4096, 64, False), (4, 16, 4096, 4096, 128, False),
                    (4, 16, 4096, 4096, 128, True), (1, 16, 16384, 16384, 128, True), (8, 32, 1, 8192, 128, False),
                    (1, 32, 1, 16384, 128, False)]
MATH_MAX_SCORES = 1 << 32   # the math backend materialises the scores: skipped beyond 2^32 of them


def bench_attention(p: Printer) -> None:
    """scaled_dot_product_attention with each backend forced in turn (those this PyTorch and GPU support).
    Causal shapes have q_len == kv_len, where PyTorch's top-left mask equals the chapter's bottom-right one."""
    torch = p.torch
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
    except ImportError:
        print("This PyTorch has no torch.nn.attention.sdpa_kernel (PyTorch 2.3 or newer): no attention baseline.")
        return
    sdpa = torch.nn.functional.scaled_dot_product_attention
    backends = [(label, getattr(SDPBackend, name)) for label, name in
                (("math", "MATH"), ("efficient", "EFFICIENT_ATTENTION"), ("flash", "FLASH_ATTENTION"),
                 ("cuDNN", "CUDNN_ATTENTION")) if hasattr(SDPBackend, name)]
    for batch, heads, q_len, kv_len, dim, causal in ATTENTION_SHAPES:
        q = torch.randn(batch, heads, q_len, dim, dtype=torch.float16, device="cuda")
        k = torch.randn(batch, heads, kv_len, dim, dtype=torch.float16, device="cuda")
        v = torch.randn(batch, heads, kv_len, dim, dtype=torch.float16, device="cuda")
        decode = q_len == 1
        op = "attention_decode" if decode else ("attention_causal" if causal else "attention")
        flops = 4.0 * batch * heads * q_len * kv_len * dim * (0.5 if causal else 1.0)
        nbytes = 2.0 * k.numel() * k.element_size() if decode else 0.0
        for label, backend in backends:
            if label == "math" and batch * heads * q_len * kv_len > MATH_MAX_SCORES:
                continue

            def call(backend=backend):
                with sdpa_kernel(backend):
                    return sdpa(q, k, v, is_causal=causal)
            try:
                call()
            except RuntimeError as error:   # a backend this GPU, dtype or shape does not support
                print(f"PyTorch SDPA {label} backend unavailable for {op} {(batch, heads, q_len, kv_len, dim)}: "
                      f"{str(error).splitlines()[0]}")
                continue
            p.row(9, op, f"PyTorch scaled_dot_product_attention ({label})", (batch, heads, q_len, kv_len, dim),
                  "float16", call, nbytes, flops, graph=False)
        q = k = v = None
        torch.cuda.empty_cache()


# Chapter number -> what PyTorch offers for it. Chapters without an entry are skipped quietly.
BENCHES = {3: bench_softmax, 4: bench_layernorm, 9: bench_attention}


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
