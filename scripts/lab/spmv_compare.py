"""SpMV variants side by side (lab round 27): each package's csr_spmv against torch's CSR
matvec (cuSPARSE), timed in alternation as the benchmark runner does (median_ms_pair), on the
benchmark's full-size matrices; each variant is measured twice, in the order A B A B, so the
spread between a variant's two ratios shows the noise.
Usage: python spmv_compare.py PROJECT_DIR PACKAGE [PACKAGE ...] (the first project's
benchmarks/ provides the matrices and the timing; every package must be installed)"""

import importlib
import sys
import warnings

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402
from common import median_ms_pair  # noqa: E402

warnings.filterwarnings("ignore")
packages = {name: importlib.import_module(name) for name in sys.argv[2:]}
print("case | " + " | ".join(f"{name} ratio (ms)" for name in packages for _ in range(2)))
for case, a in bench_csr.matrices(False, "cuda"):
    x = torch.randn(a.shape[1], device="cuda")
    expected = (a.to(torch.float64) @ x.double()).float()
    cells = {name: [] for name in packages}
    for _ in range(2):
        for name, ops in packages.items():
            bench_csr.check(ops.csr_spmv(a, x), expected)
            ours, base = median_ms_pair(lambda: ops.csr_spmv(a, x), lambda: a @ x, "cuda", 100)
            cells[name].append(f"{base / ours:.3f}x ({ours:.4f})")
    print(f"{case} | " + " | ".join(c for name in packages for c in cells[name]), flush=True)
    del a, x, expected
