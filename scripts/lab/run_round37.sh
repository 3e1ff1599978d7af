#!/usr/bin/env bash
# Lab round 37 (written in the session of 2026-12-07, the third; not yet run): lab 36's ysc
# without what cost the int32 stencil 1.5% there. ysn stages the warp-summed rows' y as ysc
# does, but keeps the short rows' code as the template has it: no marker for the carried row
# (the store loop skips a row that began before the chunk, re-reading its crow entry, which
# its warp just read) and no early return; the barrier and the store loop run only in blocks
# with long rows. Compiled here (nvcc 13.0, sm_90): 32 registers at int32, 19460 bytes of
# shared memory, the template's residency. round37/ysn.patch, against the sparse template of
# commit dd575fd.
WORK=${WORK:-$PWD/.lab/r37}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round37
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
variant ysn ysn.patch
MAX_JOBS=8 build_variants tpl ysn
check_wrong_calls tpl ysn
test_and_sanitize ysn ysn
time_spmv_both_orders tpl tpl ysn
