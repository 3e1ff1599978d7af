"""One csr_spmm and one torch CSR matmul (cuSPARSE) on the benchmark's stencil and power-law
matrices at k = 64, inside an NVTX range "measure": what to run under ncu (--nvtx
--nvtx-include "measure/") to see what limits both at wide k (lab round 15).
Usage: python spmm_once.py PROJECT_DIR PACKAGE"""

import importlib
import sys

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402

ops = importlib.import_module(sys.argv[2])
for case, a in (
    ("stencil", bench_csr.stencil(256, torch.int32, "cuda")),
    ("power-law", bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
):
    dense = torch.randn(a.shape[1], 64, device="cuda")
    ops.csr_spmm(a, dense)
    a @ dense
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    ops.csr_spmm(a, dense)
    a @ dense
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print("ran", case, flush=True)
    del a, dense
