#!/usr/bin/env bash
# Lab round 39 (written in the session of 2026-12-07, the fifth; not yet run), after round
# 38: SpMM in panels of 64 columns, all of one panel's blocks before the next's, with 16 rows
# in turn per group as k = 64 has (round 38's pan took 4 and lost 20% there), and no staging
# in shared memory (round 38's win lost 14-28%). old: the template; pan: round39/pan.patch
# (against the sparse template of commit 39bb7f3); hyb: pan up to k = 64, the template's
# warp-wide layout in one pass above (pan.patch, then hyb.patch); pan8: pan with 8 rows in
# turn at k > 32 instead of 16; pan32 (added in the sixth session): pan with k = 32's layout
# above k = 32 too, so panels of 32 columns (8 MB of X between a stencil row and its z
# neighbours at any k). Then pan's CUDA tests (tests/test_csr.py) and memcheck,
# racecheck and initcheck over its ops.
WORK=${WORK:-$PWD/.lab/r39}
. "$(dirname "$0")/variants.sh"
start_round round39
variant old
variant pan pan.patch
variant hyb pan.patch
patch -s "$WORK/hyb/hyb/csrc/cuda/csr_kernels.cuh" < "$PATCHES/hyb.patch" || { echo "hyb: patch failed"; exit 1; }
variant pan8 pan.patch 's/launch_spmm_for<index_t, 16, 4, 16>/launch_spmm_for<index_t, 16, 4, 8>/'
variant pan32 pan.patch 's/launch_spmm_for<index_t, 16, 4, 16>/launch_spmm_for<index_t, 8, 4, 2>/'
MAX_JOBS=3 build_variants old pan hyb pan8 pan32
test_and_sanitize pan pan
KS="8 32 64 128" time_both_orders spmm old old pan hyb pan8 pan32
