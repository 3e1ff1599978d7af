#!/usr/bin/env bash
# Lab round 32 (session of 2026-12-07, the second): the int32 stencil's SpMV misses 1.3x by
# ~4.5 us a call, and ~20 us of each call is host time before the first launch. `lean` is the
# template with one scratch allocation instead of two and y allocated after the partition
# kernel is launched (round32/lean.patch, lean_cu.patch; against the sparse template of
# commit ea9834c). Checks: wrong calls on fresh random matrices, the CUDA cases of its
# tests/test_csr.py, memcheck / racecheck / initcheck over its ops; then the timing, the
# per-call wall and host time, and where the Python wrapper's time goes.
WORK=${WORK:-$PWD/.lab/r32}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round32
rm -rf "$WORK" && mkdir -p "$WORK"
variant sp
variant lean lean.patch
patch_file lean csrc/cuda/csr.cu lean_cu.patch
MAX_JOBS=8 build_variants sp lean
check_wrong_calls sp lean
test_and_sanitize lean lean
time_spmv_both_orders sp sp lean
echo "## per-call wall and host time: sp lean"
for name in sp lean; do
    timeout 60 python3 "$LAB/spmv_overhead.py" "$WORK/sp" "$name" 2>> "$OUT/logs/overhead.err" | sed "s/^/$name | /" | tee -a "$OUT/overhead.txt"
done
echo "## the Python wrapper's steps"
timeout 60 python3 "$LAB/spmv_wrapper_profile.py" "$WORK/sp" sp 2>> "$OUT/logs/overhead.err" | tee "$OUT/wrapper_profile.txt"
