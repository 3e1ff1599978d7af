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
mkdir -p "$WORK/checks"  # not in $WORK: its project folders would shadow the packages
cp "$LAB/spmv_repeat.py" "$WORK/checks/"
echo "## wrong calls on fresh random matrices"
for name in nocarry nocarryst carries; do
    timeout 60 python3 "$WORK/checks/spmv_repeat.py" "$WORK/nocarry" "${CALLS:-50}" "$name" 2> "$OUT/logs/repeat_$name.err" \
        | tee -a "$OUT/repeat.txt" | grep -v "^package"
    grep -q Error "$OUT/logs/repeat_$name.err" && echo "$name: $(grep -m1 Error "$OUT/logs/repeat_$name.err")"
done
echo "## tests (CUDA cases of tests/test_csr.py) and sanitizers over nocarry's ops"
for name in nocarry nocarryst; do
    (cd "$WORK/$name" && timeout 120 python3 -m pytest -q -k cuda tests/test_csr.py > "$OUT/logs/test_$name.log" 2>&1
     echo "$name tests: $(tail -1 "$OUT/logs/test_$name.log")") &
done
for tool in memcheck racecheck initcheck; do
    (timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 python3 "$LAB/../exercise_ops.py" nocarry \
        > "$OUT/logs/$tool.log" 2>&1
     echo "$tool: rc $? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/logs/$tool.log" | tr '\n' ' ')"
     grep -m3 -E "Invalid|Race|hazard|Uninitialized" "$OUT/logs/$tool.log") &
done
wait
echo "## SpMV timing: carries nocarry"
timeout 150 python3 "$LAB/spmv_compare.py" "$WORK/nocarry" carries nocarry 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## per-call wall and host time: carries nocarry"
for name in carries nocarry; do
    timeout 60 python3 "$LAB/spmv_overhead.py" "$WORK/nocarry" "$name" 2>> "$OUT/logs/overhead.err" | sed "s/^/$name | /" | tee -a "$OUT/overhead.txt"
done
