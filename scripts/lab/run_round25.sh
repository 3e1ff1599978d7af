#!/usr/bin/env bash
# Lab round 25 on the H200 (tenth session): SpMV on lab 23's gl (x gathered in the row sums),
# per-kernel warm times against the template (sp):
# - glp: gl loading each thread's first row's bounds from crow before the chunk's staging
#   completes (one round trip fewer before the gathers);
# - gl6 / glp6: 6 nonzeros per thread (kChunk 1536): a stencil chunk's rows then fit in one
#   pass of the block's threads; gl12: 12 per thread (kChunk 3072), fewer blocks.
. "$(dirname "$0")/variants.sh"
six='s/kChunk = kThreads \* 8;/kChunk = kThreads * 6;/'
twelve='s/kChunk = kThreads \* 8;/kChunk = kThreads * 12;/; s/int64_t long_rows\[kThreads\];/int64_t long_rows[kChunk \/ (kSerialRow + 1) + 1];/; s/static_assert(kChunk \/ (kSerialRow + 1) < kThreads,/static_assert(true,/'
variant sp
variant gl gl.patch
variant glp glp.patch
variant gl6 gl.patch "$six"
variant glp6 glp.patch "$six"
variant gl12 gl.patch "$twelve"
names=(sp gl glp gl6 glp6 gl12)
build_variants "${names[@]}"
echo "## SpMV per kernel"
timeout 200 python3 "$LAB/spmv_kernels.py" "$WORK/sp" "${names[@]}" 2>&1 | grep -v Warning | grep -v "^  " | tee "$OUT/spmv_kernels.txt"
echo "## checks"
cat > "$WORK/check.py" <<'PY'
import importlib, sys
import torch
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import bench_csr
for name in sys.argv[2:]:
    ops = importlib.import_module(name)
    for a in (bench_csr.stencil(64, torch.int32, "cuda"), bench_csr.power_law(2**16, 8, torch.int64, "cuda"),
              bench_csr.uniform(2**14, 32, torch.int32, "cuda")):
        x = torch.randn(a.shape[1], device="cuda", dtype=torch.float64)
        expected = (a.to(torch.float64) @ x).float()
        bench_csr.check(ops.csr_spmv(a, x.float()), expected)
    print(name, "matches float64")
PY
timeout 60 python3 "$WORK/check.py" "$WORK/sp" "${names[@]}" 2>&1 | grep -v Warning | grep -v "^  "
