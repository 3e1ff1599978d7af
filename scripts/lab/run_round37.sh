#!/usr/bin/env bash
# Lab round 37 (written in the session of 2026-12-07, the third; not yet run): lab 36's ysc
# without what cost the int32 stencil 1.5% there. ysn stages the warp-summed rows' y as ysc
# does, but keeps the short rows' code as the template has it: no marker for the carried row
# (the store loop skips a row that began before the chunk, re-reading its crow entry, which
# its warp just read) and no early return; the barrier and the store loop run only in blocks
# with long rows. ysn32 is ysn for 4-byte indices only: compiled here (nvcc 13.0, sm_90) ysn
# needs 32 registers at int32 and at int64, where the template needs 39 (6 blocks per SM, not
# 8: lab 31 measured 8 at int64 to cost power-law rows 30%); ysn32's int64 SASS is the
# template's, instruction for instruction. round37/*.patch, against the sparse template of
# commit dd575fd.
WORK=${WORK:-$PWD/.lab/r37}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round37
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
variant ysn ysn.patch
variant ysn32 ysn32.patch
MAX_JOBS=5 build_variants tpl ysn ysn32
check_wrong_calls tpl ysn ysn32
test_and_sanitize ysn32 ysn32
time_spmv_both_orders tpl tpl ysn32 ysn
