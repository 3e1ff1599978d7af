"""Timing helpers shared by the benchmarks.

Times are medians over many runs after a warm-up, taken with CUDA events on the GPU (device
work is asynchronous) and a monotonic clock on the CPU. Each benchmark measures its PyTorch
baseline in the same run, on the same inputs, and reports the ratio: absolute times move
between runs and machines, ratios much less.
"""

import argparse
import statistics
import time
from collections.abc import Callable, Sequence

import torch


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, few repetitions (smoke test)")
    parser.add_argument("--reps", type=int, default=None, help="timed repetitions per measurement")
    args = parser.parse_args()
    if args.reps is None:
        args.reps = 3 if args.quick else 50
    return args


def median_ms(fn: Callable[[], object], device: str, reps: int, warmup: int = 5) -> float:
    """Median wall time of fn() in milliseconds."""
    for _ in range(warmup):
        fn()
    times = []
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)
        for _ in range(reps):
            start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
            start.record()
            fn()
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end))
    else:
        for _ in range(reps):
            t0 = time.perf_counter()
            fn()
            times.append((time.perf_counter() - t0) * 1e3)
    return statistics.median(times)


def copy_bandwidth_gbs(device: str, nbytes: int, reps: int) -> float:
    """This machine's practical memory bandwidth: a device-to-device copy (read + write)."""
    src = torch.empty(nbytes // 4, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src), device, reps)
    return 2 * src.numel() * 4 / (ms * 1e-3) / 1e9


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> None:
    """A plain aligned table (the last lines a benchmark prints)."""
    cells = [[str(h) for h in headers]] + [[_fmt(c) for c in row] for row in rows]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    for row in cells:
        print("  ".join(cell.rjust(width) for cell, width in zip(row, widths)))


def _fmt(value: object) -> str:
    if isinstance(value, float):
        return f"{value:.3f}" if abs(value) < 100 else f"{value:.0f}"
    return str(value)
