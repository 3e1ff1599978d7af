#!/usr/bin/env bash
# Lab round 35 (session of 2026-12-07, the second): lab 34's staged stores of warp-summed
# rows, without its costs. Commit 02609e2's template gives each warp a contiguous slice of
# the chunk's long rows and stores the slice's sums after a __syncwarp, 32 rows per
# instruction (lab 34's round34/ysw.patch): no second block barrier, no write to the long-row
# list (racecheck's warning against ys/ysb), and 32 registers at int32 without
# __launch_bounds__ (int64 40, 6 blocks per SM, as ys). `tpl` is that template; `prev` is it
# with the change reverted (round34/ysw_revert.patch). Lab 35 took the change back out of the
# template, so this script runs as it did only from a checkout of 02609e2. Checks: wrong calls
# on fresh random matrices, the CUDA cases of tpl's tests/test_csr.py, memcheck / racecheck /
# initcheck over tpl's ops; then the timing.
WORK=${WORK:-$PWD/.lab/r35}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round34
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
variant prev ysw_revert.patch
MAX_JOBS=8 build_variants tpl prev
check_wrong_calls tpl prev
test_and_sanitize tpl tpl
time_spmv_both_orders tpl prev tpl
