#!/usr/bin/env bash
# Lab round 38 (session of 2026-12-07, the fifth): SpMM in panels of 64 columns with the rows
# of X near a block's own rows staged in shared memory, now in the template (win). old: the
# template before it (round38/win.patch and win_cu.patch reversed: the kernels header and the
# .cu that passes X's row count); pan: win without the staging (panels alone); win2 / win8:
# 2 / 8 rows in turn per group at 16 lanes (32 / 128 rows per block) instead of 4. Tests and
# sanitizers for win are h200_check's, run after this in the same call. Ran once, from
# commit c30eaf0, whose template was win; run it again from that commit.
WORK=${WORK:-$PWD/.lab/r38}
. "$(dirname "$0")/variants.sh"
start_round round38
variant win
variant old
patch -R -s "$WORK/old/old/csrc/cuda/csr_kernels.cuh" < "$PATCHES/win.patch" || { echo "old: patch failed"; exit 1; }
patch -R -s "$WORK/old/old/csrc/cuda/csr.cu" < "$PATCHES/win_cu.patch" || { echo "old: patch of csr.cu failed"; exit 1; }
variant pan "" 's/constexpr bool kStages = kVec == 4 \&\& kColLanes >= 8;/constexpr bool kStages = false;/'
variant win2 "" 's/launch_spmm_for<index_t, 16, 4, 4>/launch_spmm_for<index_t, 16, 4, 2>/'
variant win8 "" 's/launch_spmm_for<index_t, 16, 4, 4>/launch_spmm_for<index_t, 16, 4, 8>/'
MAX_JOBS=3 build_variants old win pan win2 win8
KS="8 32 64 128" time_both_orders spmm old old win pan win2 win8
