"""Run every benchmark and print one table: python -m benchmarks [--json FILE] [--plot FILE.png]

Each benchmarks/bench_*.py file joins by defining `run(args)`; a kernel added later with
`kernelgen add-kernel` brings its own file and needs no edit here. Ratios are baseline time
over ours, measured in the same run (above 1, ours is faster); "of ceiling" compares the
achieved rate with this machine's copy bandwidth or cuBLAS float16 rate, measured in the
same run too.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))  # the bench files import `common` as a sibling module

from common import (  # noqa: E402
    Row,
    add_arguments,
    finish_arguments,
    measure_ceilings,
    print_table,
    with_progress,
)


def benchmark_files(only: list[str]) -> list[Path]:
    files = sorted(HERE.glob("bench_*.py"))
    if only:
        files = [f for f in files if f.stem.removeprefix("bench_") in only]
    return files


def load(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def write_plot(rows: list[Row], path: Path) -> None:
    """One horizontal bar per row: the ratio to its baseline, on a log axis around 1.0."""
    import matplotlib

    matplotlib.use("Agg")  # files only: no display needed
    import matplotlib.pyplot as plt

    labels = [f"{r.op} {r.dtype} {r.case} vs {r.baseline}" for r in rows]
    ratios = [r.ratio for r in rows]
    fig, ax = plt.subplots(figsize=(10, 0.22 * len(rows) + 1.2))
    colors = ["tab:green" if ratio >= 1 else "tab:red" for ratio in ratios]
    # Bars grow from 1.0: right (faster than the baseline) or left (slower).
    ax.barh(range(len(rows)), [ratio - 1 for ratio in ratios], left=1, color=colors)
    ax.axvline(1.0, color="black", linewidth=1)
    ax.set_xscale("log")  # 0.5x and 2x equally far from 1; a 200x row does not flatten the rest
    ax.set_yticks(range(len(rows)), labels, fontsize=7)
    ax.set_ylim(len(rows) - 0.5, -0.5)  # first row on top, no empty margin
    ax.set_xlabel("speed vs baseline (baseline time / ours; > 1 is faster; log scale)")
    for y, ratio in enumerate(ratios):
        ax.text(ratio, y, f" {ratio:.2f}x", va="center", fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=120)


def main() -> None:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks", description=__doc__.splitlines()[0]
    )
    add_arguments(parser)
    parser.add_argument(
        "--only", nargs="+", default=[], metavar="KERNEL", help="run only these kernels' benchmarks"
    )
    parser.add_argument("--json", type=Path, metavar="FILE", help="also write the rows as JSON")
    parser.add_argument(
        "--plot", type=Path, metavar="FILE.png", help="also draw the ratios (needs matplotlib)"
    )
    args = finish_arguments(parser.parse_args())
    if (
        args.plot and importlib.util.find_spec("matplotlib") is None
    ):  # fail before, not after, the run
        sys.exit(
            "--plot needs matplotlib: pip install matplotlib (or this project's [bench] extra)"
        )
    files = benchmark_files(args.only)
    if not files:
        sys.exit(f"no benchmarks match {args.only}")
    rows: list[Row] = []
    for number, path in enumerate(files, start=1):
        print(f"[{number}/{len(files)}] {path.name}", file=sys.stderr, flush=True)
        rows.extend(with_progress(load(path).run(args), path.stem.removeprefix("bench_")))
    measure_ceilings(rows, args.device, args.reps)
    print(f"on {args.device}; ratio = baseline time / ours")
    print_table(rows)
    if args.json:
        args.json.write_text(json.dumps([row.as_dict() for row in rows], indent=1) + "\n")
    if args.plot:
        write_plot(rows, args.plot)


if __name__ == "__main__":
    main()
