"""Design lab for the H200: times kernel variants (elementwise.cu, gemm.cu, spmv.cu, built
here with nvcc) against the PyTorch baseline in the same process. Prints one table per
family; ratio = baseline time / variant time (> 1 is faster). Run: python3 lab.py [family...]
"""

import ctypes
import os
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import torch
import torch.nn.functional as F

HERE = Path(__file__).resolve().parent
BUILD = Path(os.environ.get("LAB_BUILD", "/tmp/lab"))


def build(name: str) -> ctypes.CDLL:
    BUILD.mkdir(exist_ok=True)
    lib = BUILD / f"{name}.so"
    prebuilt = os.environ.get("LAB_PREBUILT") == "1"  # built on another machine and carried here
    if lib.exists() and (prebuilt or lib.stat().st_mtime > (HERE / f"{name}.cu").stat().st_mtime):
        return lib
    cmd = ["nvcc", "-O3", "-arch=sm_90", "-lineinfo", "-shared", "-Xcompiler", "-fPIC", "-Xptxas", "-v",
           "-o", str(lib), str(HERE / f"{name}.cu")]
    r = subprocess.run(cmd, capture_output=True, text=True)
    (BUILD / f"{name}.ptxas.log").write_text(r.stderr)
    if r.returncode:
        sys.exit(r.stderr[-3000:])
    return lib


def time_ms(fn, reps=20, warmup=3):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    times = []
    for _ in range(reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        s.record(); fn(); e.record(); e.synchronize()
        times.append(s.elapsed_time(e))
    times.sort()
    return times[len(times) // 2]


def row(*cells):
    print(" | ".join(str(c) for c in cells), flush=True)


def elementwise(lib):
    f = lib.lab_elementwise
    f.argtypes = [ctypes.c_int] * 3 + [ctypes.c_void_p] * 3 + [ctypes.c_int64]
    n = 1 << 28
    row("op", "dtype", "scheme", "ms", "torch ms", "ratio", "TB/s")
    for dt_i, dt in enumerate([torch.float32, torch.float16, torch.bfloat16]):
        a = torch.randn(n, device="cuda", dtype=dt); b = torch.randn(n, device="cuda", dtype=dt)
        c = torch.empty_like(a)
        cases = [
            ("add", 0, lambda: torch.add(a, b, out=c), 3),
            ("silu", 1, lambda: F.silu(a), 2),
            ("silu_fast", 2, lambda: F.silu(a), 2),
            ("silu_bwd", 3, lambda: torch.ops.aten.silu_backward(a, b), 3),
        ]
        for name, op, base, tensors in cases:
            want = base()
            t_base = time_ms(base)
            for scheme in range(7):
                go = lambda: f(op, dt_i, scheme, a.data_ptr(), b.data_ptr(), c.data_ptr(), n)
                assert go() == 0
                torch.cuda.synchronize()
                ok = torch.allclose(c.float(), want.float(), rtol=1e-2, atol=1e-2)
                t = time_ms(go)
                row(name, str(dt).split(".")[1], scheme, f"{t:.4f}", f"{t_base:.4f}", f"{t_base / t:.3f}",
                    f"{tensors * n * a.element_size() / t / 1e9:.2f}" + ("" if ok else " WRONG"))
        t_copy = time_ms(lambda: c.copy_(a))
        row("copy", str(dt).split(".")[1], "-", f"{t_copy:.4f}", "", "", f"{2 * n * a.element_size() / t_copy / 1e9:.2f}")


GEMM_CFGS = ["128x128x32 w64x32 s3 (now)", "128x128x64 w64x64 s3", "128x128x64 w64x64 s3 loader",
             "128x128x32 w64x64 s4 loader", "128x128x64 w64x64 s3 loader db", "128x256x64 w64x64 s3 loader"]


def gemm(lib):
    f = lib.lab_gemm
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    row("dtype", "M N K", "cfg", "ms", "cuBLAS ms", "ratio", "TFLOP/s", "max err")
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        for (m, n, k) in [(8192, 8192, 8192), (4096, 4096, 4096), (4095, 4097, 1000)]:
            if k % 8 or n % 8:
                m, n, k = m, n - n % 8, k - k % 8  # the lab kernel is the 16-byte path only
            a = torch.randn(m, k, device="cuda", dtype=dt); b = torch.randn(k, n, device="cuda", dtype=dt)
            c = torch.empty(m, n, device="cuda", dtype=dt)
            want = a @ b
            t_base = time_ms(lambda: torch.matmul(a, b), reps=10)
            for cfg in range(len(GEMM_CFGS)):
                go = lambda: f(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k)
                assert go() == 0, cfg
                torch.cuda.synchronize()
                err = ((c.float() - want.float()).abs().max() / want.float().abs().max()).item()
                t = time_ms(go, reps=10)
                row(str(dt).split(".")[1], f"{m} {n} {k}", GEMM_CFGS[cfg], f"{t:.3f}", f"{t_base:.3f}",
                    f"{t_base / t:.3f}", f"{2 * m * n * k / t / 1e9:.0f}", f"{err:.1e}")


GEMM2_CFGS = ["128x128x32 s4 (template)", "+ldsm", "+ldsm g8", "128x128x64 s3 ldsm g8",
              "128x256x32 s4 ldsm", "128x256x32 s4 ldsm g8", "256x128x32 s4 ldsm g8",
              "128x256x64 s3 ldsm g8", "128x256x32 s4 ldsm g8 db", "128x128x32 s4 ldsm g8 db"]


def gemm2(lib):
    check = (ctypes.c_int * 4)()
    assert lib.lab_check_fragments(check) == 0
    print("bf16 fragment check (mismatching words; A order 0/1, B order 0/1):", list(check), flush=True)
    f = lib.lab_gemm2
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    cfgs = [int(c) for c in os.environ.get("LAB_CFGS", ",".join(map(str, range(len(GEMM2_CFGS))))).split(",")]
    row("dtype", "M N K", "cfg", "ms", "cuBLAS ms", "ratio", "TFLOP/s", "rel err")
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        for (m, n, k) in [(8192, 8192, 8192), (4096, 4096, 4096), (4096, 4096, 1000)]:
            a = torch.randn(m, k, device="cuda", dtype=dt); b = torch.randn(k, n, device="cuda", dtype=dt)
            c = torch.empty(m, n, device="cuda", dtype=dt)
            want = (a.double() @ b.double()) if m * n * k <= 4096 ** 3 else (a.float() @ b.float()).double()
            t_base = time_ms(lambda: torch.matmul(a, b), reps=10)
            for cfg in cfgs:
                go = lambda: f(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k)
                c.fill_(float("nan"))
                assert go() == 0, cfg
                torch.cuda.synchronize()
                err = ((c.double() - want).norm() / want.norm()).item()
                t = time_ms(go, reps=10)
                row(str(dt).split(".")[1], f"{m} {n} {k}", GEMM2_CFGS[cfg], f"{t:.3f}", f"{t_base:.3f}",
                    f"{t_base / t:.3f}", f"{2 * m * n * k / t / 1e9:.0f}", f"{err:.1e}")


def gemm_variants_table(variants):
    """Each (label, lab function, cfg) against torch.matmul on the same inputs, fp16 then bf16."""
    row("dtype", "M N K", "variant", "ms", "cuBLAS ms", "ratio", "TFLOP/s", "rel err")
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        for (m, n, k) in [(8192, 8192, 8192), (4096, 4096, 4096), (4096, 4096, 1024)]:
            a = torch.randn(m, k, device="cuda", dtype=dt); b = torch.randn(k, n, device="cuda", dtype=dt)
            c = torch.empty(m, n, device="cuda", dtype=dt)
            want = (a.float() @ b.float()).double()
            t_base = time_ms(lambda: torch.matmul(a, b), reps=10)
            for label, fn, cfg in variants:
                go = lambda: fn(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k)
                c.fill_(float("nan"))
                rc = go()
                torch.cuda.synchronize()
                if rc != 0:
                    row(str(dt).split(".")[1], f"{m} {n} {k}", label, f"FAILED rc {rc}")
                    continue
                err = ((c.double() - want).norm() / want.norm()).item()
                t = time_ms(go, reps=10)
                row(str(dt).split(".")[1], f"{m} {n} {k}", label, f"{t:.3f}", f"{t_base:.3f}",
                    f"{t_base / t:.3f}", f"{2 * m * n * k / t / 1e9:.0f}", f"{err:.1e}")


def gemm3(lib):
    """The cluster-multicast kernel (gemm3.cu) beside the template's best tiling (gemm2 cfg 9)."""
    f3 = lib.lab_gemm3
    f3.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    f2 = ctypes.CDLL(str(BUILD / "gemm2.so")).lab_gemm2
    f2.argtypes = f3.argtypes
    gemm_variants_table([("template (gemm2 cfg 9)", f2, 9), ("multicast A, g8", f3, 0), ("multicast A, g0", f3, 1)])

def gemm3_once(lib):
    """One launch of the multicast kernel at 8192^3, fp16 then bf16: the thing to run under ncu."""
    f = lib.lab_gemm3
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        a = torch.randn(8192, 8192, device="cuda", dtype=dt); b = torch.randn(8192, 8192, device="cuda", dtype=dt)
        c = torch.empty(8192, 8192, device="cuda", dtype=dt)
        f(dt_i, 0, a.data_ptr(), b.data_ptr(), c.data_ptr(), 8192, 8192, 8192)
    torch.cuda.synchronize()


def gemm2_once(lib):
    """One launch of each LAB_CFGS config at 8192^3, fp16 then bf16: the thing to run under ncu."""
    f = lib.lab_gemm2
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    cfgs = [int(c) for c in os.environ.get("LAB_CFGS", "0").split(",")]
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        a = torch.randn(8192, 8192, device="cuda", dtype=dt); b = torch.randn(8192, 8192, device="cuda", dtype=dt)
        c = torch.empty(8192, 8192, device="cuda", dtype=dt)
        for cfg in cfgs:
            f(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), 8192, 8192, 8192)
    torch.cuda.synchronize()


def swizzled(offset, swizzle_bytes):
    """Where TMA puts the byte at `offset` of a box (base 1024-aligned): CUTLASS's Swizzle<B, 4, 3>."""
    bits = {64: 3, 128: 7}[swizzle_bytes]
    return offset ^ (((offset >> 7) & bits) << 4)


def tma_probe(lib):
    """Checks the swizzle formula the TMA kernels assume against what the copy engine does."""
    f = lib.lab_tma_probe
    f.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
    for swizzle, rows, cols in [(2, 128, 32), (3, 32, 64), (3, 128, 64)]:
        src = torch.arange(rows * cols, device="cuda", dtype=torch.int32).to(torch.int16).view(rows, cols)
        out = torch.zeros(rows * cols, device="cuda", dtype=torch.int16)
        rc = f(swizzle, src.data_ptr(), out.data_ptr(), rows, cols)
        got = out.cpu().tolist()
        want = [0] * (rows * cols)
        for r in range(rows):
            for c in range(cols):
                want[swizzled((r * cols + c) * 2, 64 if swizzle == 2 else 128) // 2] = r * cols + c
        bad = sum(g != w for g, w in zip(got, want))
        print(f"tma probe swizzle={swizzle} box {rows}x{cols}: rc {rc}, {bad} elements differ from the formula",
              flush=True)
        if bad:
            print("  first rows as landed:", [got[i * cols:(i + 1) * cols][:16] for i in range(4)], flush=True)


GEMM4_CFGS = ["tma bk32 s4", "tma bk32 s4 pair", "tma bk64 s3", "tma bk64 s3 pair", "tma bk32 s6",
              "tma bk32 s6 pair"]


def gemm4(lib):
    """The TMA-fed kernels (gemm4.cu) beside the template's tiling (gemm2 cfg 9), same run."""
    tma_probe(lib)
    f4 = lib.lab_gemm4
    f4.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    f2 = ctypes.CDLL(str(BUILD / "gemm2.so")).lab_gemm2
    f2.argtypes = f4.argtypes
    gemm_variants_table([("template (gemm2 cfg 9)", f2, 9)] + [(label, f4, i) for i, label in enumerate(GEMM4_CFGS)])

def gemm4_check(lib):
    """Element-wise check of the TMA kernels at 8192^3, several launches each: the template run
    13 found 2640 bad elements in one bf16 product, which a norm-relative error hides."""
    f4 = lib.lab_gemm4
    f4.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    f2 = ctypes.CDLL(str(BUILD / "gemm2.so")).lab_gemm2
    f2.argtypes = f4.argtypes
    variants = [("cp.async template (gemm2 cfg 9)", f2, 9), ("tma bk64 s3", f4, 2),
                ("+ own epilogue scratch", f4, 6), ("+ proxy fence before release", f4, 7), ("+ both", f4, 8)]
    m = n = k = 8192
    row("dtype", "variant", "bad elements per launch (5 launches)", "ms", "cuBLAS ms", "ratio")
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        a = torch.randn(m, k, device="cuda", dtype=dt)
        b = torch.randn(k, n, device="cuda", dtype=dt)
        c = torch.empty(m, n, device="cuda", dtype=dt)
        want = a.float() @ b.float()
        t_base = time_ms(lambda: torch.matmul(a, b), reps=10)
        for label, fn, cfg in variants:
            bad = []
            for _ in range(5):
                c.fill_(float("nan"))
                rc = fn(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k)
                torch.cuda.synchronize()
                assert rc == 0, (label, rc)
                err = (c.float() - want).abs()
                bad.append(int(((err > 2.0 + 0.01 * want.abs()) | err.isnan()).sum()))
            t = time_ms(lambda: fn(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k), reps=10)
            row(str(dt).split(".")[1], label, bad, f"{t:.3f}", f"{t_base:.3f}", f"{t_base / t:.3f}")


def gemm4_check32(lib):
    """Round 9: the float32-output launches, where run 14's soak still found bad elements."""
    f4 = lib.lab_gemm4
    f4.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    variants = [("fp32 out, own scratch (template)", 9), ("fp32 out, + proxy fence", 10),
                ("fp32 out, release after MMAs", 11), ("fp32 out, scratch in stage 0", 12)]
    m = n = k = 8192
    launches = int(os.environ.get("LAB_LAUNCHES", "40"))
    row("dtype", "variant", f"launches with bad elements (of {launches})", "bad elements", "ms")
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        a = torch.randn(m, k, device="cuda", dtype=dt)
        b = torch.randn(k, n, device="cuda", dtype=dt)
        c = torch.empty(m, n, device="cuda", dtype=torch.float32)
        want = a.float() @ b.float()
        for label, cfg in variants:
            bad = []
            for _ in range(launches):
                c.fill_(float("nan"))
                assert f4(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k) == 0
                err = (c - want).abs()
                bad.append(int(((err > 2.0 + 0.01 * want.abs()) | err.isnan()).sum()))
            t = time_ms(lambda: f4(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), m, n, k), reps=10)
            row(str(dt).split(".")[1], label, sum(x > 0 for x in bad), [x for x in bad if x], f"{t:.3f}")


def gemm4_once(lib):
    """One launch of each LAB_CFGS config at 8192^3, fp16 then bf16: the thing to run under ncu."""
    f = lib.lab_gemm4
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    cfgs = [int(c) for c in os.environ.get("LAB_CFGS", "0,1").split(",")]
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        a = torch.randn(8192, 8192, device="cuda", dtype=dt); b = torch.randn(8192, 8192, device="cuda", dtype=dt)
        c = torch.empty(8192, 8192, device="cuda", dtype=dt)
        for cfg in cfgs:
            f(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), 8192, 8192, 8192)
    torch.cuda.synchronize()


def stencil_csr(side, index_dtype):
    """7-point stencil on a side^3 grid, built on the GPU."""
    n = side ** 3
    idx = torch.arange(n, device="cuda")
    z, y, x = idx // (side * side), (idx // side) % side, idx % side
    cols, rows = [], []
    for dz, dy, dx in [(-1, 0, 0), (0, -1, 0), (0, 0, -1), (0, 0, 0), (0, 0, 1), (0, 1, 0), (1, 0, 0)]:
        ok = (z + dz >= 0) & (z + dz < side) & (y + dy >= 0) & (y + dy < side) & (x + dx >= 0) & (x + dx < side)
        rows.append(idx[ok]); cols.append((idx + dz * side * side + dy * side + dx)[ok])
    return coo_to_csr(torch.cat(rows), torch.cat(cols), n, index_dtype)


def coo_to_csr(r, c, n, index_dtype):
    order = torch.argsort(r * n + c)
    r, c = r[order], c[order]
    counts = torch.bincount(r, minlength=n)
    crow = torch.zeros(n + 1, dtype=torch.int64, device="cuda")
    crow[1:] = torch.cumsum(counts, 0)
    vals = torch.rand(r.numel(), device="cuda") - 0.5
    return torch.sparse_csr_tensor(crow.to(index_dtype), c.to(index_dtype), vals, (n, n))


def power_law_csr(n, mean, index_dtype):
    g = torch.Generator(device="cuda").manual_seed(0)
    lengths = (torch.rand(n, device="cuda", generator=g).clamp_min(1e-6) ** (-1 / 1.5)).floor().long()
    lengths = (lengths * mean / lengths.float().mean()).long().clamp(0, n)
    r = torch.repeat_interleave(torch.arange(n, device="cuda"), lengths)
    c = torch.randint(0, n, (r.numel(),), device="cuda", generator=g)
    return coo_to_csr(r, c, n, index_dtype)


def uniform_csr(n, per_row, index_dtype):
    r = torch.arange(n, device="cuda").repeat_interleave(per_row)
    c = torch.randint(0, n, (r.numel(),), device="cuda")
    return coo_to_csr(r, c, n, index_dtype)


SPMV_SCHEMES = ["row/thread", "vector2", "vector4", "vector8", "split256x8", "split128x8", "split2 128x16",
                "split3 128x16 s8", "split3 128x8 s8", "split3 256x8 s8", "split3 128x16 s16", "split3 256x16 s8",
                "split3 256x4 s8", "split3 256x6 s8", "split3 512x4 s8", "row/thread unroll8", "split4 ldg",
                "split4 ldcg", "split4 no-L1", "direct ldg", "direct no-L1", "split3 256x8 (chunked)",
                "adaptive chunks (round 7)",
                "longest-row dispatch (round 11)"]


def spmv(lib):
    f = lib.lab_spmv
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 5 + [ctypes.c_int64] * 2 + [ctypes.c_void_p]
    row("matrix", "index", "scheme", "ms", "cuSPARSE ms", "ratio", "ok")
    mats = [("stencil256", lambda d: stencil_csr(256, d)), ("powerlaw4M", lambda d: power_law_csr(1 << 22, 8, d)),
            ("uniform1Mx32", lambda d: uniform_csr(1 << 20, 32, d))]
    for name, make in mats:
        for index_dtype in (torch.int32, torch.int64):
            A = make(index_dtype)
            rows, nnz = A.shape[0], A._nnz()
            x = torch.randn(A.shape[1], device="cuda"); y = torch.empty(rows, device="cuda")
            want = torch.mv(A, x)
            t_base = time_ms(lambda: torch.mv(A, x))
            crow, col, val = A.crow_indices(), A.col_indices(), A.values()
            scratch = torch.empty(20 * (nnz // 512 + 2) + 64, dtype=torch.uint8, device='cuda')
            schemes = os.environ.get("SPMV_SCHEMES")
            for s in [int(v) for v in schemes.split(",")] if schemes else range(len(SPMV_SCHEMES)):
                go = lambda: f(int(index_dtype == torch.int64), s, crow.data_ptr(), col.data_ptr(), val.data_ptr(),
                               x.data_ptr(), y.data_ptr(), rows, nnz, scratch.data_ptr())
                assert go() == 0
                torch.cuda.synchronize()
                y.fill_(float('nan')); go(); torch.cuda.synchronize()
                ok = torch.allclose(y, want, rtol=1e-3, atol=1e-3)
                t = time_ms(go)
                row(f"{name} ({nnz / 1e6:.0f}M nnz)", str(index_dtype).split(".")[1], SPMV_SCHEMES[s], f"{t:.4f}",
                    f"{t_base:.4f}", f"{t_base / t:.3f}", ok)
            del A


def gemm_once(lib):
    """One launch of each GEMM config at 4096^3, fp16 then bf16: the thing to run under ncu."""
    f = lib.lab_gemm
    f.argtypes = [ctypes.c_int, ctypes.c_int] + [ctypes.c_void_p] * 3 + [ctypes.c_int64] * 3
    cfgs = [int(c) for c in os.environ.get("LAB_CFGS", "1").split(",")]
    for dt_i, dt in enumerate([torch.float16, torch.bfloat16]):
        a = torch.randn(4096, 4096, device="cuda", dtype=dt); b = torch.randn(4096, 4096, device="cuda", dtype=dt)
        c = torch.empty(4096, 4096, device="cuda", dtype=dt)
        for cfg in cfgs:
            f(dt_i, cfg, a.data_ptr(), b.data_ptr(), c.data_ptr(), 4096, 4096, 4096)
    torch.cuda.synchronize()


FAMILIES = {"elementwise": elementwise, "gemm": gemm, "spmv": spmv, "gemm_once": gemm_once, "gemm2": gemm2,
            "gemm2_once": gemm2_once, "gemm3": gemm3, "gemm3_once": gemm3_once,
            "gemm4": gemm4, "gemm4_once": gemm4_once,
            "gemm4_check": gemm4_check, "gemm4_check32": gemm4_check32}

if __name__ == "__main__":
    names = sys.argv[1:] or list(FAMILIES)
    print(torch.cuda.get_device_name(), torch.__version__, flush=True)
    sources = {name: name.split("_")[0] for name in names}
    with ThreadPoolExecutor(len(names)) as pool:
        libs = dict(zip(names, pool.map(build, sources.values())))
    for name in names:
        print(f"\n## {name}", flush=True)
        FAMILIES[name](ctypes.CDLL(str(libs[name])))
