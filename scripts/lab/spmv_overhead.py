"""Where the per-call time of csr_spmv goes beyond its kernels (lab round 26): for the
benchmark's int32 stencil and power-law matrices, the wall time of one call as the
benchmark takes it (CUDA events around the call), the host time the call takes to return
(launches included, no sync), and the same two for the registered op called directly on
ready-made components (no Python wrapper), and for torch's CSR matvec.
Usage: python spmv_overhead.py PROJECT_DIR PACKAGE"""

import importlib
import statistics
import sys
import time
import warnings

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402
from common import median_ms  # noqa: E402

package = sys.argv[2]
ops = importlib.import_module(package)
registered = getattr(torch.ops, package)
warnings.filterwarnings("ignore")


def host_us(fn, reps=200):
    times = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1e6)
    torch.cuda.synchronize()
    return statistics.median(times)


for case, a in (
    ("stencil int32", bench_csr.stencil(256, torch.int32, "cuda")),
    ("power-law", bench_csr.power_law(2**22, 8, torch.int32, "cuda")),
    ("tiny 1000x1000", bench_csr.power_law(1000, 8, torch.int32, "cuda")),
):
    x = torch.randn(a.shape[1], device="cuda")
    parts = (a.crow_indices(), a.col_indices(), a.values())
    calls = {
        "ours (Python API)": lambda a=a, x=x: ops.csr_spmv(a, x),
        "ours (registered op, components)": lambda p=parts, x=x: registered.csr_spmv.default(*p, x),
        "cuSPARSE (a @ x)": lambda a=a, x=x: a @ x,
    }
    for name, call in calls.items():
        wall = median_ms(call, "cuda", 50) * 1e3
        print(f"{case} | {name} | wall {wall:.1f} us | host {host_us(call):.1f} us", flush=True)
