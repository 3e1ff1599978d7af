#!/usr/bin/env bash
# Lab round 29c: nocarry2, the chunk kernel of run 29's nocarry with its atomics moved out of
# the row loop. Run 29b showed nocarry's chunk kernel slower than carries' (stencil int32
# 431.6 against 384.7 us, power-law int64 549 against 353 us); nocarry2 keeps the two
# launches but stores the shares of the (at most two) rows that span a chunk in shared
# memory and adds them with two atomics after the loop. Variants: `nocarry2` (the template),
# `nocarry2st` (its stable ABI), `carries` and `nocarry` (round29c/ patches them back).
#   bash run_round29c.sh build-check   # build, wrong calls, tests, sanitizers, timing A
#   bash run_round29c.sh time-ncu      # same $WORK: timing in the other order, ncu
# WORK defaults to .lab/r29c (ignored by git) so a warm machine keeps the builds. round29c/
# patches are against the sparse template of commit 6ad305a (nocarry2); the template went back
# to carries after this run, so rerun it from a checkout of 6ad305a.
WORK=${WORK:-$PWD/.lab/r29c}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round29c
compare() {
    timeout "$1" python3 "$LAB/spmv_compare.py" "$WORK/nocarry2" "${@:2}" 2>> "$OUT/logs/spmv_compare.err" | tee -a "$OUT/spmv_compare.txt"
    grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -3
}
if [ "$1" = build-check ]; then
    rm -rf "$WORK" && mkdir -p "$WORK"
    variant nocarry2
    variant carries carries.patch
    patch_file carries csrc/cuda/csr.cu ../round29/carries_cu.patch  # csr.cu is as in round 29
    variant nocarry nocarry.patch
    python3 -m kernelgen new "$WORK/nocarry2st" --no-input --arch 9.0 -k sparse --abi stable > /dev/null
    MAX_JOBS=4 build_variants nocarry2 carries nocarry nocarry2st
    CALLS=${CALLS:-30} check_wrong_calls nocarry2 nocarry2st
    test_and_sanitize nocarry2 nocarry2 nocarry2st
    echo "## SpMV timing: carries nocarry2 nocarry"
    compare 200 carries nocarry2 nocarry
else
    echo "## SpMV timing: nocarry2 carries"
    compare 150 nocarry2 carries
    echo "## ncu: the SpMV kernels of nocarry2 and carries, then cuSPARSE's"
    for name in nocarry2 carries; do
        for matrices in stencil random64; do
            timeout 60 ncu --nvtx --nvtx-include "measure/" --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,sm__warps_active.avg.pct_of_peak_sustained_active \
                python3 "$LAB/spmv_once.py" "$WORK/nocarry2" "$name" "$matrices" > "$OUT/logs/ncu_${name}_$matrices.log" 2>&1
            echo "# $name $matrices"
            grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__throughput|warps_active|ran " "$OUT/logs/ncu_${name}_$matrices.log" \
                | sed -E 's/\(int, int, int\)|\(const [^)]*\)//' | cut -c1-110
        done
    done
fi
