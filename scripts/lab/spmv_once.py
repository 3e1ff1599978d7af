"""One csr_spmv and one torch CSR matvec (cuSPARSE) on the benchmark's power-law and uniform
matrices, inside an NVTX range "measure": what to run under ncu (--nvtx --nvtx-include
"measure/") to see what limits both on random columns (lab round 14).
Usage: python spmv_once.py PROJECT_DIR PACKAGE"""

import importlib
import sys

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402

ops = importlib.import_module(sys.argv[2])
for case, a in (
    ("power-law", bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
    ("uniform", bench_csr.uniform(2**20, 32, torch.int32, "cuda")),
):
    x = torch.randn(a.shape[1], device="cuda")
    ops.csr_spmv(a, x)
    a @ x
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    ops.csr_spmv(a, x)
    a @ x
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print("ran", case, flush=True)
