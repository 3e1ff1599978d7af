"""Call every op of a generated project once on CUDA at awkward sizes, for compute-sanitizer.

    compute-sanitizer --tool memcheck python scripts/exercise_ops.py PACKAGE

Sizes are small (the sanitizer slows kernels down 10-100x) but hit every code path: vector
and scalar tails, unaligned inputs, short and long sparse rows, ragged GEMM edges, K = 1.
Ops a project does not have are skipped.
"""

import importlib
import sys

import torch


def main() -> None:
    ops = importlib.import_module(sys.argv[1])
    cuda = "cuda"
    if hasattr(ops, "vector_add"):
        for n in (1, 7, 4097):
            for dtype in (torch.float32, torch.float16, torch.bfloat16):
                a, b = (
                    torch.randn(n + 1, dtype=dtype, device=cuda),
                    torch.randn(n, dtype=dtype, device=cuda),
                )
                ops.vector_add(a[:n], b)
                ops.vector_add(a[1:], b)  # unaligned: scalar path
    if hasattr(ops, "silu"):
        for n in (1, 9, 5000):
            x = torch.randn(n, device=cuda, requires_grad=True)
            ops.silu(x).sum().backward()
            for dtype in (torch.float16, torch.bfloat16):
                ops.silu(torch.randn(n + 1, dtype=dtype, device=cuda))  # vector path
                ops.silu(torch.randn(n + 1, dtype=dtype, device=cuda)[1:])  # scalar path
    if hasattr(ops, "csr_spmv"):
        lengths = torch.tensor([0, 3, 2500, 1, 0, 4100, 7, 2048, 2049])
        cols = 5000
        crow = torch.zeros(len(lengths) + 1, dtype=torch.int64)
        crow[1:] = lengths.cumsum(0)
        col = torch.cat([torch.randperm(cols)[:n] for n in lengths.tolist()])
        for index_dtype in (torch.int32, torch.int64):
            a = torch.sparse_csr_tensor(
                crow.to(index_dtype),
                col.to(index_dtype),
                torch.randn(col.numel()),
                size=(len(lengths), cols),
            ).to(cuda)
            ops.csr_spmv(a, torch.randn(cols, device=cuda))
            # Many chunks of short and empty rows (partition, carries across chunk edges), then
            # the same with a 20-nonzero last row.
            for last_row in (None, 20):
                generator = torch.Generator().manual_seed(0)
                short = torch.randint(0, 4, (6000,), generator=generator) * torch.randint(0, 2, (6000,), generator=generator)
                if last_row is not None:
                    short[-1] = last_row
                short_crow = torch.zeros(6001, dtype=torch.int64)
                short_crow[1:] = short.cumsum(0)
                short_a = torch.sparse_csr_tensor(
                    short_crow.to(index_dtype),
                    torch.randint(0, cols, (int(short.sum()),), generator=generator).to(index_dtype),
                    torch.randn(int(short.sum())),
                    size=(6000, cols),
                ).to(cuda)
                ops.csr_spmv(short_a, torch.randn(cols, device=cuda))
            for k in (1, 3, 8, 16, 40, 100):
                ops.csr_spmm(a, torch.randn(cols, k, device=cuda))
            # Bands (a stencil's structure), square and with more rows than columns.
            for band_rows, band_cols in ((1000, 1000), (700, 501)):
                row_ids = torch.arange(band_rows).repeat_interleave(3)
                col_ids = row_ids + torch.tensor([-1, 0, 1]).repeat(band_rows)
                keep = (col_ids >= 0) & (col_ids < band_cols)
                band_crow = torch.zeros(band_rows + 1, dtype=torch.int64)
                band_crow[1:] = torch.bincount(row_ids[keep], minlength=band_rows).cumsum(0)
                band = torch.sparse_csr_tensor(
                    band_crow.to(index_dtype),
                    col_ids[keep].to(index_dtype),
                    torch.randn(int(keep.sum())),
                    size=(band_rows, band_cols),
                ).to(cuda)
                for k in (8, 32, 64, 100, 128):
                    ops.csr_spmm(band, torch.randn(band_cols, k, device=cuda))
    if hasattr(ops, "wmma_gemm"):
        for m, n, k in ((1, 1, 1), (17, 33, 1), (129, 130, 72), (64, 64, 64), (100, 70, 30), (1100, 300, 40), (200, 136, 520)):
            for dtype in (torch.float16, torch.bfloat16):
                a = torch.randn(m, k, dtype=dtype, device=cuda)
                b = torch.randn(k, n, dtype=dtype, device=cuda)
                ops.wmma_gemm(a, b)
                ops.wmma_gemm(a, b, out_dtype=torch.float32)
    torch.cuda.synchronize()
    print("exercised", sys.argv[1])


if __name__ == "__main__":
    main()
