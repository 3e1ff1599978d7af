#!/usr/bin/env bash
# Lab round 34 (session of 2026-12-07, the second): SpMV's chunk kernel stores a warp-summed
# row's y from that warp's lane 0, a 4-byte write per row; on the uniform matrix (32
# nonzeros a row, every row a warp's) that is 1M single-value writes where 32 rows per store
# instruction would take ~1/8 the L2 sectors, about the 0.8M sectors ours reads more than
# cuSPARSE under ncu (run 25). `ys` keeps the warps' sums in shared memory and stores them
# after a barrier, 32 rows per instruction (round34/ys.patch, against the sparse template of
# commit 0115e11). That costs int32 8 registers (40: 6 blocks per SM instead of 8); `ysb` is ys
# held to 8 blocks per SM at int32 by __launch_bounds__ (32 registers, no spills; int64 at 6,
# as now). Checks: wrong calls on fresh random matrices, the CUDA cases of its
# tests/test_csr.py, memcheck / racecheck / initcheck over ysb's ops; then the timing.
WORK=${WORK:-$PWD/.lab/r34}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round34
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
variant ys ys.patch
variant ysb ysb.patch
MAX_JOBS=8 build_variants tpl ys ysb
check_wrong_calls tpl ys ysb
test_and_sanitize ysb ys ysb
time_spmv_both_orders tpl tpl ys ysb
