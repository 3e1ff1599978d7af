#!/usr/bin/env bash
# Lab round 27 on the H200 (eleventh session), against the template (sp: the tenth session's
# kernels, SpMV's scratch in one allocation); round27/'s patches are against that template.
# - pdl: SpMV with programmatic dependent launch: the chunk kernel starts while the partition
#   kernel runs, copies its chunk with cp.async, and waits for first_row only then; the
#   carries kernel is launched the same way.
# - l1: SpMM's rows kernel with its shared memory carveout set to all L1 (it uses none), so a
#   run's next row may find its neighbours' rows of X in L1; l1r4 / l1r8: l1 with runs of 4 /
#   8 rows at k > 64 (2 in the template); l1p4: l1 with a persistent grid of 4 blocks per SM
#   (32 warps per SM, half of the footprint in L1); l1p4r8: l1p4 with runs of 8 at k > 64.
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round27
runs() { echo "s/launch_spmm_for<index_t, 32, 4, 2>/launch_spmm_for<index_t, 32, 4, $1>/"; }
variant sp
variant pdl pdl.patch
variant l1 l1.patch
variant l1r4 l1.patch "$(runs 4)"
variant l1r8 l1.patch "$(runs 8)"
variant l1p4 l1p4.patch
variant l1p4r8 l1p4.patch "$(runs 8)"
names=(sp pdl l1 l1r4 l1r8 l1p4 l1p4r8)
MAX_JOBS=2 build_variants "${names[@]}"
echo "## SpMM: sp l1 l1r4 l1r8 l1p4 l1p4r8"
KS="32 64 128" timeout 150 python3 "$LAB/spmm_compare.py" "$WORK/sp" sp l1 l1r4 l1r8 l1p4 l1p4r8 \
    2> "$OUT/logs/spmm_compare.err" | tee "$OUT/spmm_compare.txt"
grep -v Warning "$OUT/logs/spmm_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## SpMV: sp pdl"
timeout 120 python3 "$LAB/spmv_compare.py" "$WORK/sp" sp pdl 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## tests: pdl and l1p4r8 (CUDA cases of tests/test_csr.py)"
for name in pdl l1p4r8; do
    (cd "$WORK/$name" && timeout 100 python3 -m pytest -q -x -k cuda tests/test_csr.py 2>&1 | tail -2)
done
echo "## memcheck and racecheck: pdl on a power-law matrix"
cat > "$WORK/once.py" <<'PY'
import sys, torch
sys.path.insert(0, sys.argv[1] + "/benchmarks")
import bench_csr, pdl
for a in (bench_csr.power_law(2**14, 8, torch.int32, "cuda"), bench_csr.stencil(20, torch.int64, "cuda")):
    x = torch.randn(a.shape[1], device="cuda")
    bench_csr.check(pdl.csr_spmv(a, x), (a.to(torch.float64) @ x.double()).float())
print("pdl ok")
PY
for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool $tool --error-exitcode 1 python3 "$WORK/once.py" "$WORK/sp" 2>&1 | grep -E "ERROR SUMMARY|pdl ok|Error" | head -3
done
