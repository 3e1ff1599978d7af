"""Where SpMV's time goes, warm (lab round 21): torch.profiler's mean time of every kernel
that each package's csr_spmv and torch's CSR matvec (cuSPARSE) launch, over 50 calls each,
on the benchmark's stencil (int32 and int64), power-law and uniform matrices.
Usage: python spmv_kernels.py PROJECT_DIR PACKAGE [PACKAGE ...] (the first project's
benchmarks/ provides the matrices; every package must be installed)"""

import importlib
import sys
import warnings
from collections import defaultdict

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402

packages = {name: importlib.import_module(name) for name in sys.argv[2:]}
warnings.filterwarnings("ignore", message="Sparse CSR tensor support is in beta")
CALLS = 50
cases = [
    ("stencil int32", bench_csr.stencil(256, torch.int32, "cuda")),
    ("stencil int64", bench_csr.stencil(256, torch.int64, "cuda")),
    ("power-law", bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
    ("uniform", bench_csr.uniform(2**20, 32, torch.int32, "cuda")),
]
for case, a in cases:
    x = torch.randn(a.shape[1], device="cuda")
    calls = {name: (lambda ops=ops: ops.csr_spmv(a, x)) for name, ops in packages.items()}
    calls["cuSPARSE"] = lambda: a @ x
    for name, call in calls.items():
        for _ in range(5):
            call()
        torch.cuda.synchronize()
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            for _ in range(CALLS):
                call()
            torch.cuda.synchronize()
        per_kernel = defaultdict(float)
        for event in prof.events():
            if event.device_type == torch.autograd.DeviceType.CUDA:
                per_kernel[event.name[:60]] += event.device_time / CALLS
        total = sum(per_kernel.values())
        print(f"{case} | {name} | {total:.1f} us in kernels | "
              + "; ".join(f"{k}: {v:.1f} us" for k, v in sorted(per_kernel.items(), key=lambda kv: -kv[1])))
