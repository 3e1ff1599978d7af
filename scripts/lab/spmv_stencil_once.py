"""One csr_spmv and one torch CSR matvec (cuSPARSE) on the benchmark's 256^3 stencil, int32
and int64 indices, inside an NVTX range "measure": what to run under ncu (--nvtx
--nvtx-include "measure/") to see what limits both on the stencil (lab round 20).
Usage: python spmv_stencil_once.py PROJECT_DIR PACKAGE"""

import importlib
import sys

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402

ops = importlib.import_module(sys.argv[2])
for index_dtype in (torch.int32, torch.int64):
    a = bench_csr.stencil(256, index_dtype, "cuda")
    x = torch.randn(a.shape[1], device="cuda")
    ops.csr_spmv(a, x)
    a @ x
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("measure")
    ops.csr_spmv(a, x)
    a @ x
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    print("ran", index_dtype, flush=True)
    del a, x
