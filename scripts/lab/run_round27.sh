#!/usr/bin/env bash
# Lab round 27 on the H200 (eleventh session), against the template (sp: the tenth session's
# kernels, SpMV's scratch in one allocation); round27/'s patches are against that template.
# - pdl: SpMV with programmatic dependent launch: the chunk kernel starts while the partition
#   kernel runs, copies its chunk with cp.async, and waits for first_row only then; the
#   carries kernel is launched the same way. pdls: pdl with the host's two scratch buffers
#   in one allocation (round27/scratch.patch, csr.cu): one allocation less before the first
#   launch, which a call's wall time waits for.
# - l1: SpMM's rows kernel with its shared memory carveout set to all L1 (it uses none), so a
#   run's next row may find its neighbours' rows of X in L1; l1r4 / l1r8: l1 with runs of 4 /
#   8 rows at k > 64 (2 in the template); l1p4: l1 with a persistent grid of 4 blocks per SM
#   (32 warps per SM, half of the footprint in L1); l1p4r8: l1p4 with runs of 8 at k > 64.
# - c8: SpMM at 64 < k <= 128 by a new rows kernel that keeps the last 8 rows of X each warp
#   loaded in shared memory (least recently used out) and reads hits from there; runs of 8
#   rows per warp; c16: runs of 16. spmm_cache_model.py models its cache on the CPU: on a
#   24^3 stencil 0.26 / 0.27 of the nonzeros hit for runs of 8 / 16; on power-law rows 0.001.
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round27
runs() { echo "s/launch_spmm_for<index_t, 32, 4, 2>/launch_spmm_for<index_t, 32, 4, $1>/"; }
variant sp
variant pdl pdl.patch
variant pdls pdl.patch
patch_file pdls csrc/cuda/csr.cu scratch.patch
variant l1 l1.patch
variant l1r4 l1.patch "$(runs 4)"
variant l1r8 l1.patch "$(runs 8)"
variant l1p4 l1p4.patch
variant l1p4r8 l1p4.patch "$(runs 8)"
variant c8 cache.patch
variant c16 cache.patch 's/kCachedRunRows = 8;/kCachedRunRows = 16;/'
names=(sp pdl pdls l1 l1r4 l1r8 l1p4 l1p4r8 c8 c16)
MAX_JOBS=2 build_variants "${names[@]}"
echo "## SpMM: sp l1 l1r4 l1r8 l1p4 l1p4r8 c8 c16"
KS="32 64 128" timeout 150 python3 "$LAB/spmm_compare.py" "$WORK/sp" sp l1 l1r4 l1r8 l1p4 l1p4r8 c8 c16 \
    2> "$OUT/logs/spmm_compare.err" | tee "$OUT/spmm_compare.txt"
grep -v Warning "$OUT/logs/spmm_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## SpMV: sp pdl pdls"
timeout 150 python3 "$LAB/spmv_compare.py" "$WORK/sp" sp pdl pdls 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## tests: pdls, l1p4r8 and c8 (CUDA cases of tests/test_csr.py)"
for name in pdls l1p4r8 c8; do  # at once: they only check results
    (cd "$WORK/$name" && timeout 100 python3 -m pytest -q -x -k cuda tests/test_csr.py > "$OUT/logs/test_$name.log" 2>&1
     echo "$name: $(tail -1 "$OUT/logs/test_$name.log")") &
done
wait
echo "## memcheck and racecheck: pdls's SpMV and c8's SpMM (k = 100), power-law and stencil"
# Not in $WORK itself: Python puts the script's folder first on sys.path, and $WORK's project
# folders (sp/, c8/, ...) would then import as empty namespace packages (lab run 27 met that).
mkdir -p "$WORK/checks"
cat > "$WORK/checks/once.py" <<'PY'
import sys, torch
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import bench_csr, c8, pdls
for a in (bench_csr.power_law(2**14, 8, torch.int32, "cuda"), bench_csr.stencil(20, torch.int64, "cuda")):
    x = torch.randn(a.shape[1], device="cuda")
    bench_csr.check(pdls.csr_spmv(a, x), (a.to(torch.float64) @ x.double()).float())
    dense = torch.randn(a.shape[1], 100, device="cuda")
    bench_csr.check(c8.csr_spmm(a, dense), (a.to(torch.float64) @ dense.double()).float())
print("pdls and c8 ok")
PY
for tool in memcheck racecheck; do
    (timeout 90 compute-sanitizer --tool $tool --error-exitcode 1 python3 "$WORK/checks/once.py" "$WORK/sp" > "$OUT/logs/$tool.log" 2>&1
     echo "$tool: $(grep -E "ERROR SUMMARY|c8 ok" "$OUT/logs/$tool.log" | tr '\n' ' ')") &
done
wait
