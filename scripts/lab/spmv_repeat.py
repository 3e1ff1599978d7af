"""Each SpMV package's csr_spmv on many fresh random matrices (lab round 28): the test
suite's shapes (rows of up to 16 nonzeros, one of 17 last, power-law rows) and the
benchmark's stencil and power-law matrices, int32 and int64 indices, each call checked
against a float64 reference. A race shows as a count of wrong calls; the first wrong call
of each package is described: how many rows are wrong, and whether they are rows whose
nonzeros start in an earlier chunk (carry rows), a chunk's first row, or neither.
Usage: python spmv_repeat.py PROJECT_DIR CALLS PACKAGE [PACKAGE ...]"""

import importlib
import sys
import warnings

import torch

sys.path.insert(0, f"{sys.argv[1]}/benchmarks")
sys.path.insert(0, f"{sys.argv[1]}/tests")
import bench_csr  # noqa: E402
import test_csr  # noqa: E402

warnings.filterwarnings("ignore")
CHUNK = 2048  # kChunk in the kernels header
calls = int(sys.argv[2])
packages = {name: importlib.import_module(name) for name in sys.argv[3:]}


def small(lengths_of, rows, cols):
    def make(index_dtype):
        return test_csr.random_csr(rows, cols, lengths_of(rows, cols), index_dtype, "cuda")

    return make


cases = {
    "short_rows_then_one_long": small(test_csr.short_rows_then_one_long, 5003, 64),
    "power_law": small(test_csr.power_law_lengths, 1001, 3001),
    "bench power-law 2^18": lambda index_dtype: bench_csr.power_law(2**18, 8, index_dtype, "cuda"),
    "bench stencil 64^3": lambda index_dtype: bench_csr.stencil(64, index_dtype, "cuda"),
}


def describe(a, out, expected):
    wrong = ((out - expected).abs() > 1e-3 * (1 + expected.abs())).nonzero().flatten()
    crow = a.crow_indices().long()
    starts = crow[wrong]
    ends = crow[wrong + 1]
    carried = (starts // CHUNK != (ends - 1).clamp(min=0) // CHUNK).sum().item()
    first = (starts % CHUNK == 0).sum().item()
    sample = ", ".join(
        f"row {r} ({crow[r].item()}..{crow[r + 1].item()}) {out[r].item():.4g} vs {expected[r].item():.4g}"
        for r in wrong[:3].tolist()
    )
    return f"{wrong.numel()} rows wrong, {carried} span chunks, {first} start a chunk; {sample}"


print("package | case | index | wrong calls / calls | first wrong call")
for name, ops in packages.items():
    for case, make in cases.items():
        for index_dtype in (torch.int32, torch.int64):
            n_calls = max(calls // 10, 2) if case.startswith("bench") else calls
            bad, first = 0, "-"
            for _ in range(n_calls):
                a = make(index_dtype)
                x = torch.randn(a.shape[1], device="cuda")
                expected = (a.to(torch.float64) @ x.double()).float()
                out = ops.csr_spmv(a, x)
                torch.cuda.synchronize()
                if not torch.allclose(out, expected, rtol=1e-3, atol=1e-3):
                    bad += 1
                    if first == "-":
                        first = describe(a, out, expected)
            print(
                f"{name} | {case} | {str(index_dtype)[6:]} | {bad} / {n_calls} | {first}",
                flush=True,
            )
