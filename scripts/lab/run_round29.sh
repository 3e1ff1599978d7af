#!/usr/bin/env bash
# Lab round 29 (thirteenth session): SpMV without the carries kernel. The template now has
# the partition kernel store a zero to y of every row that spans chunks, and the chunk
# kernel add each chunk's share of such a row with an atomic: two launches instead of
# three, one scratch tensor instead of two. `carries` is the template with round29/'s
# patches (the carries kernel back: carries.patch, carries_cu.patch), `nocarry` the template
# itself, `nocarryst` the template on the stable ABI. Checks: wrong calls on fresh random
# matrices, the CUDA cases of each new project's tests/test_csr.py, memcheck / racecheck /
# initcheck over nocarry's ops (scripts/exercise_ops.py, as h200_check.sh runs them); then
# the timing and the per-call wall and host time.
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round29
variant nocarry
variant carries carries.patch
patch_file carries csrc/cuda/csr.cu carries_cu.patch
python3 -m kernelgen new "$WORK/nocarryst" --no-input --arch 9.0 -k sparse --abi stable > /dev/null
MAX_JOBS=4 build_variants nocarry carries nocarryst
check_wrong_calls nocarry nocarryst carries
test_and_sanitize nocarry nocarry nocarryst
echo "## SpMV timing: carries nocarry"
timeout 150 python3 "$LAB/spmv_compare.py" "$WORK/nocarry" carries nocarry 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## per-call wall and host time: carries nocarry"
for name in carries nocarry; do
    timeout 60 python3 "$LAB/spmv_overhead.py" "$WORK/nocarry" "$name" 2>> "$OUT/logs/overhead.err" | sed "s/^/$name | /" | tee -a "$OUT/overhead.txt"
done
