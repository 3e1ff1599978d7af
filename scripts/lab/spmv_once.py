"""One csr_spmv and one torch CSR matvec (cuSPARSE) per matrix, inside an NVTX range
"measure": what to run under ncu (--nvtx --nvtx-include "measure/") to see what limits both.
`random` (lab round 14): the benchmark's power-law and uniform matrices, int32 indices;
`stencil` (lab round 20): its 256^3 stencil with int32 and int64 indices; `random64` (lab
round 29b): the power-law and uniform matrices with int64 indices.
Usage: python spmv_once.py PROJECT_DIR PACKAGE [random|random64|stencil]"""

import importlib
import sys

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402
from nvtx_measure import measure_once  # noqa: E402

ops = importlib.import_module(sys.argv[2])
matrices = {
    "random": (
        ("power-law", lambda: bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
        ("uniform", lambda: bench_csr.uniform(2**20, 32, torch.int32, "cuda")),
    ),
    "random64": (
        ("power-law int64", lambda: bench_csr.power_law(2**22, 8, torch.int64, "cuda")),
        ("uniform int64", lambda: bench_csr.uniform(2**20, 32, torch.int64, "cuda")),
    ),
    "stencil": (
        ("stencil int32", lambda: bench_csr.stencil(256, torch.int32, "cuda")),
        ("stencil int64", lambda: bench_csr.stencil(256, torch.int64, "cuda")),
    ),
}[sys.argv[3] if len(sys.argv) > 3 else "random"]
for case, make in matrices:
    a = make()
    x = torch.randn(a.shape[1], device="cuda")
    measure_once(lambda: ops.csr_spmv(a, x), lambda: a @ x)
    print("ran", case, flush=True)
    del a, x
