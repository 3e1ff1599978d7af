#!/usr/bin/env bash
# Lab round 33 (session of 2026-12-07, the second): the sparse template now allocates SpMV's
# scratch once, after launching the partition kernel (lab round 32's `lean`), and its Python
# API hands a torch.sparse_csr_tensor to C++ overloads (.csr) that unpack it, instead of
# taking its three component views in Python (~4.4 us a call on the device machine's CPU, lab
# run 32). `tpl` is the template; `lean` is it with the Python API taking the views again
# (python_components.patch); `sp` is the template of commit ea9834c (old_*.patch on top of
# that). Checks: wrong calls on fresh random matrices, the CUDA cases of tpl's
# tests/test_csr.py, memcheck / racecheck / initcheck over tpl's ops; then the timing, and the
# per-call wall and host time.
WORK=${WORK:-$PWD/.lab/r33}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round33
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
variant lean
patch_file lean ops/csr.py python_components.patch
variant sp old_kernels.patch
patch_file sp csrc/cuda/csr.cu old_cu.patch
patch_file sp ops/csr.py python_components.patch
MAX_JOBS=5 build_variants sp lean tpl
check_wrong_calls sp lean tpl
test_and_sanitize tpl tpl
time_spmv_both_orders sp sp lean tpl
echo "## per-call wall and host time: sp lean tpl, then tpl lean sp"
for name in sp lean tpl tpl lean sp; do
    timeout 60 python3 "$LAB/spmv_overhead.py" "$WORK/sp" "$name" 2>> "$OUT/logs/overhead.err" | sed "s/^/$name | /" | tee -a "$OUT/overhead.txt"
done
