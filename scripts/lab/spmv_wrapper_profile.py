"""Where the Python wrapper's host time goes (lab round 32): each step csr_spmv's wrapper
takes on a CUDA sparse CSR tensor (the layout and shape checks, the three component views),
timed alone as a median of many calls, next to a plain Python call and a small CUDA
allocation for scale. No GPU work is launched.
Usage: python spmv_wrapper_profile.py PROJECT_DIR PACKAGE"""

import importlib
import statistics
import sys
import time
import warnings

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402

warnings.filterwarnings("ignore")
wrapper = importlib.import_module(f"{sys.argv[2]}.ops.csr")


def median_us(fn, calls=2000, rounds=7):
    """Median over `rounds` of the mean time of `calls` back-to-back calls, in microseconds."""
    fn()
    means = []
    for _ in range(rounds):
        t0 = time.perf_counter()
        for _ in range(calls):
            fn()
        means.append((time.perf_counter() - t0) / calls * 1e6)
    return statistics.median(means)


a = bench_csr.stencil(64, torch.int32, "cuda")
x = torch.randn(a.shape[1], device="cuda")
steps = {
    "an empty Python function": lambda: None,
    "a.layout": lambda: a.layout,
    "a.dim()": lambda: a.dim(),
    "a.dense_dim()": lambda: a.dense_dim(),
    "a.shape[1]": lambda: a.shape[1],
    "x.dim()": lambda: x.dim(),
    "x.shape[0]": lambda: x.shape[0],
    "a.crow_indices()": lambda: a.crow_indices(),
    "a.col_indices()": lambda: a.col_indices(),
    "a.values()": lambda: a.values(),
    "_components(a, x, 1, ...)": lambda: wrapper._components(a, x, 1, "csr_spmv"),
    "torch.empty(1000, device='cuda')": lambda: torch.empty(1000, device="cuda"),
}
for name, step in steps.items():
    print(f"{name} | {median_us(step):.2f} us", flush=True)
