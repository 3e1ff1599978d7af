#!/usr/bin/env bash
# Lab round 36 (written in the session of 2026-12-07, the second; run in the third): lab 34's
# block-wide staging of warp-summed rows' y (ys: uniform rows +3.5% / +2%, power-law int32
# +2.3%), without what cost it: ys needed 40 registers at int32 (6 blocks per SM; the stencil
# -5%) and marked the carried row by writing into the long-row list that racecheck flagged.
# `ysc` marks it in a shared int instead, which also brings int32 back to 32 registers
# without __launch_bounds__ (int64 40, as ys; nvcc 13.0, sm_90). round34/ysc.patch, against
# the sparse template of commit 0115e11 (unchanged since). Checks: wrong calls on fresh random
# matrices, the CUDA cases of ysc's tests/test_csr.py, memcheck / racecheck / initcheck over
# ysc's ops; then the timing of tpl, ysc and lab 34's ys.
WORK=${WORK:-$PWD/.lab/r36}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round34
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
variant ysc ysc.patch
variant ys ys.patch
MAX_JOBS=5 build_variants tpl ysc ys
check_wrong_calls tpl ysc
test_and_sanitize ysc ysc
time_spmv_both_orders tpl tpl ysc ys
