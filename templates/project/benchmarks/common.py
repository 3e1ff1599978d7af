"""What the benchmarks share: arguments, timing, the ceilings, and the result rows.

Times are medians over many runs after a warm-up, taken with CUDA events on the GPU (device
work is asynchronous) and a monotonic clock on the CPU. Each benchmark measures its PyTorch
baseline in the same run, on the same inputs, alternating call by call with ours, and
reports the ratio: absolute times move between runs and machines, ratios much less. Each
bench_*.py file defines `run(args) -> Iterator[Row]`; `python -m benchmarks` runs them all,
and each file also runs alone (`python benchmarks/bench_NAME.py`).
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass

import torch


@dataclass
class Row:
    """One measurement: our op and its baseline on the same inputs."""

    op: str
    dtype: str
    case: str
    ours_ms: float
    baseline: str
    baseline_ms: float
    work: float  # bytes moved (unit TB/s) or floating-point operations (unit TFLOP/s)
    unit: str
    ceiling: float | None = None  # the machine's rate in `unit`, measured in the same run

    @property
    def ratio(self) -> float:
        """Baseline time over ours: above 1, ours is faster."""
        return self.baseline_ms / self.ours_ms

    @property
    def achieved(self) -> float:
        """Our rate in `unit`."""
        return self.work / (self.ours_ms * 1e-3) / 1e12

    def as_dict(self) -> dict[str, object]:
        return {**asdict(self), "ratio": self.ratio, "achieved": self.achieved}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", default="cuda" if torch.cuda.is_available() else "cpu")
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, few repetitions (smoke test)"
    )
    parser.add_argument("--reps", type=int, default=None, help="timed repetitions per measurement")


def finish_arguments(args: argparse.Namespace) -> argparse.Namespace:
    """Without a GPU, the sizes and repetitions of --quick: CPU timings of GPU-sized work
    would take minutes and say nothing about the GPU."""
    if not args.device.startswith("cuda"):
        if not args.quick:
            found = "" if torch.cuda.is_available() else " (no CUDA device found)"
            print(
                f"CPU timing{found}: small sizes only; these numbers say nothing about GPU speed",
                file=sys.stderr,
            )
        args.quick = True
    if args.reps is None:
        args.reps = 3 if args.quick else 50
    return args


def time_once_ms(fn: Callable[[], object], device: str) -> float:
    """Wall time of one fn() in milliseconds: CUDA events on the GPU, where the launch's host
    time counts too (it is what a small tensor's caller waits for)."""
    if device.startswith("cuda"):
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        fn()
        end.record()
        end.synchronize()
        return start.elapsed_time(end)
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1e3


def warm_up(fns: Sequence[Callable[[], object]], device: str, times: int) -> None:
    """Call each fn `times` times (first-call compilation, caches, clocks), then wait for the
    device, so that no timed call waits for untimed work."""
    for _ in range(times):
        for fn in fns:
            fn()
    if device.startswith("cuda"):
        torch.cuda.synchronize(device)


def median_ms(fn: Callable[[], object], device: str, reps: int, warmup: int = 5) -> float:
    """Median wall time of fn() in milliseconds."""
    warm_up([fn], device, warmup)
    return statistics.median(time_once_ms(fn, device) for _ in range(reps))


def median_ms_pair(
    ours: Callable[[], object],
    baseline: Callable[[], object],
    device: str,
    reps: int,
    warmup: int = 5,
) -> tuple[float, float]:
    """Median wall times of ours() and baseline() in milliseconds, timed in alternation (and
    in alternating order), so that a drift of the machine while they run (clocks, the host's
    scheduling, another tenant) reaches both alike instead of only whichever ran second."""
    warm_up([ours, baseline], device, warmup)
    ours_ms: list[float] = []
    baseline_ms: list[float] = []
    for rep in range(reps):
        if rep % 2 == 0:
            ours_ms.append(time_once_ms(ours, device))
            baseline_ms.append(time_once_ms(baseline, device))
        else:
            baseline_ms.append(time_once_ms(baseline, device))
            ours_ms.append(time_once_ms(ours, device))
    return statistics.median(ours_ms), statistics.median(baseline_ms)


def copy_bandwidth_tbs(device: str, reps: int) -> float:
    """This machine's practical memory bandwidth: a device-to-device copy (read + write)."""
    src = torch.empty(2**28, dtype=torch.float32, device=device).uniform_()
    dst = torch.empty_like(src)
    ms = median_ms(lambda: dst.copy_(src), device, reps)
    return 2 * src.numel() * 4 / (ms * 1e-3) / 1e12


def matmul_tflops(device: str, reps: int) -> float:
    """This machine's practical tensor-core rate: torch.matmul (cuBLAS), float16, 8192^3."""
    a = torch.randn(8192, 8192, dtype=torch.float16, device=device)
    b = torch.randn(8192, 8192, dtype=torch.float16, device=device)
    ms = median_ms(lambda: torch.matmul(a, b), device, reps)
    return 2 * 8192**3 / (ms * 1e-3) / 1e12


def measure_ceilings(rows: Iterable[Row], device: str, reps: int) -> None:
    """Fill in each row's ceiling, measured once per unit; none on the CPU, where these
    GPU-sized measurements would mean little."""
    if not device.startswith("cuda"):
        return
    measured: dict[str, float] = {}
    for row in rows:
        if row.unit not in measured:
            measured[row.unit] = (
                copy_bandwidth_tbs(device, reps)
                if row.unit == "TB/s"
                else matmul_tflops(device, reps)
            )
        row.ceiling = measured[row.unit]


HEADERS = [
    "op",
    "dtype",
    "case",
    "ours ms",
    "baseline",
    "baseline ms",
    "ratio",
    "achieved",
    "of ceiling",
]


def table_cells(row: Row) -> list[str]:
    of_ceiling = "-" if row.ceiling is None else f"{100 * row.achieved / row.ceiling:.0f}%"
    return [
        row.op,
        row.dtype,
        row.case,
        f"{row.ours_ms:.4f}",
        row.baseline,
        f"{row.baseline_ms:.4f}",
        f"{row.ratio:.2f}x",
        f"{row.achieved:.3g} {row.unit}",
        of_ceiling,
    ]


def print_table(rows: Sequence[Row]) -> None:
    """One aligned table: ratio = baseline time / ours (above 1, ours is faster)."""
    cells = [HEADERS] + [table_cells(row) for row in rows]
    widths = [max(len(line[i]) for line in cells) for i in range(len(HEADERS))]
    for line in cells:
        print("  ".join(cell.rjust(width) for cell, width in zip(line, widths)))


def with_progress(rows: Iterator[Row], label: str) -> Iterator[Row]:
    """Pass rows through, printing each one to stderr as it is measured."""
    for count, row in enumerate(rows, start=1):
        print(
            f"  {label} [{count}] {row.op} {row.dtype} {row.case}: {row.ratio:.2f}x",
            file=sys.stderr,
            flush=True,
        )
        yield row


def main_for(run: Callable[[argparse.Namespace], Iterator[Row]], description: str) -> None:
    """What `python benchmarks/bench_NAME.py` does: run one benchmark, print its table."""
    parser = argparse.ArgumentParser(description=description)
    add_arguments(parser)
    args = finish_arguments(parser.parse_args())
    rows = list(with_progress(run(args), description.split()[1]))
    measure_ceilings(rows, args.device, args.reps)
    print(f"on {args.device}; ratio = baseline time / ours")
    print_table(rows)
