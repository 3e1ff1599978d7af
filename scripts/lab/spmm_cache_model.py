"""A CPU model of lab round 27's cached SpMM rows kernel (round27/cache.patch): one warp's
walk over its run of rows, its batches of 4 nonzeros (every read of a batch before any
write), its slots of X rows with the least recently used out and hits moved to the front.
Prints, for small versions of the benchmark's stencil and power-law matrices, the fraction of
nonzeros whose row of X comes from the cache, and checks the model's sums against float64.
Runs without a GPU and without building the project.
Usage: python spmm_cache_model.py PROJECT_DIR PACKAGE (a generated sparse project)"""

import sys
import types

import numpy as np
import torch

# bench_csr imports the package's ops only to time them; the model needs its matrices.
sys.modules[sys.argv[2]] = types.SimpleNamespace(csr_spmm=None, csr_spmv=None)
sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
import bench_csr  # noqa: E402

SLOTS = 8
BATCH = 4


def cached_spmm(a: torch.Tensor, dense: np.ndarray, run_rows: int) -> tuple[np.ndarray, float]:
    """The kernel's Y = A X, and the fraction of nonzeros that hit the cache."""
    crow, col, val = (t.numpy() for t in (a.crow_indices(), a.col_indices(), a.values()))
    rows = len(crow) - 1
    out = np.zeros((rows, dense.shape[1]), np.float32)
    hits = 0
    for first in range(0, rows, run_rows):  # one warp
        tags = [-1] * SLOTS
        data: list[np.ndarray | None] = [None] * SLOTS
        next_slot = 0
        for row in range(first, min(first + run_rows, rows)):
            total = np.zeros(dense.shape[1], np.float32)
            for i0 in range(crow[row], crow[row + 1], BATCH):
                batch = range(i0, min(i0 + BATCH, crow[row + 1]))
                cols = [int(col[i]) for i in batch]
                slots = [tags.index(c) if c in tags else -1 for c in cols]
                x = [data[s] if s >= 0 else dense[c] for s, c in zip(slots, cols)]
                hits += sum(s >= 0 for s in slots)
                for s in slots:
                    if s >= 0:
                        tags[s] = -1
                for e, i in enumerate(batch):
                    total += val[i] * x[e]
                    data[next_slot], tags[next_slot] = x[e], cols[e]
                    next_slot = (next_slot + 1) % SLOTS
            out[row] = total
    return out, hits / max(len(col), 1)


for case, a in (
    ("stencil 24^3", bench_csr.stencil(24, torch.int32, "cpu")),
    ("power-law 20000", bench_csr.power_law(20000, 8, torch.int32, "cpu")),
):
    dense = np.random.default_rng(0).standard_normal((a.shape[1], 4)).astype(np.float32)
    expected = (a.to(torch.float64) @ torch.from_numpy(dense).double()).numpy()
    for run_rows in (2, 8, 16):
        out, hit_rate = cached_spmm(a, dense, run_rows)
        np.testing.assert_allclose(out, expected, rtol=1e-4, atol=1e-4)
        print(f"{case} | runs of {run_rows} | hit rate {hit_rate:.3f} | sums match float64")
