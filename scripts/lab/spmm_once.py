"""One csr_spmm and one torch CSR matmul (cuSPARSE) on the benchmark's stencil and power-law
matrices at k = 64 (or each width in KS), inside an NVTX range "measure": what to run under
ncu (--nvtx --nvtx-include "measure/") to see what limits both at wide k (lab rounds 15, 41).
Usage: [KS="64 128"] python spmm_once.py PROJECT_DIR PACKAGE"""

import importlib
import os
import sys

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402
from nvtx_measure import measure_once  # noqa: E402

ops = importlib.import_module(sys.argv[2])
widths = [int(k) for k in os.environ.get("KS", "64").split()]
matrices = (
    ("stencil", lambda: bench_csr.stencil(256, torch.int32, "cuda")),
    ("power-law", lambda: bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
)
for case, make in matrices:
    a = make()
    for k in widths:
        dense = torch.randn(a.shape[1], k, device="cuda")
        measure_once(lambda: ops.csr_spmm(a, dense), lambda: a @ dense)
        print("ran", case, "k =", k, flush=True)
        del dense
    del a
