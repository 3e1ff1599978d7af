"""SpMM variants side by side (lab rounds 14-19): the same projects' csr_spmm, timed in one
process against torch's CSR matmul, on the benchmark's stencil and power-law matrices.
Usage: [KS="32 64"] python spmm_compare.py PROJECT_DIR PACKAGE [PACKAGE ...] (the first
project's benchmarks/ provides the matrices; every package must be installed; KS, the widths
of X, defaults to 8 32 64 128 256)."""

import importlib
import os
import sys

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402
from common import median_ms  # noqa: E402

packages = {name: importlib.import_module(name) for name in sys.argv[2:]}
cases = [
    ("stencil 256^3", bench_csr.stencil(256, torch.int32, "cuda")),
    ("power-law 4M", bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
]
print("case | k | torch ms | " + " | ".join(f"{name} ms (ratio)" for name in packages))
for case, a in cases:
    for k in map(int, os.environ.get("KS", "8 32 64 128 256").split()):
        dense = torch.randn(a.shape[1], k, device="cuda")
        expected = a @ dense
        base = median_ms(lambda: a @ dense, "cuda", 20)
        cells = []
        for name, ops in packages.items():
            bench_csr.check(ops.csr_spmm(a, dense), expected)
            ours = median_ms(lambda: ops.csr_spmm(a, dense), "cuda", 20)
            cells.append(f"{ours:.3f} ({base / ours:.2f}x)")
        print(f"{case} | {k} | {base:.3f} | " + " | ".join(cells), flush=True)
        del dense, expected
