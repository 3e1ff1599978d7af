#!/usr/bin/env bash
# Lab round 38 (session of 2026-12-07, the fifth): SpMM in panels of 64 columns with the rows
# of X near a block's own rows staged in shared memory (round38/win*.patch, against the
# sparse template of commit 39bb7f3). win: the patch as written (kernels header, the .cu
# passing X's row count, and banded tests); pan: win without the staging (panels alone);
# win2 / win8: 2 / 8 rows in turn per group at 16 lanes (32 / 128 rows per block) instead of 4.
WORK=${WORK:-$PWD/.lab/r38}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round38
rm -rf "$WORK" && mkdir -p "$WORK"
variant tpl
staged_variant() {
    variant "$@"
    patch_file "$1" csrc/cuda/csr.cu win_cu.patch
    patch -s "$WORK/$1/tests/test_csr.py" < "$PATCHES/win_tests.patch" || { echo "$1: tests patch failed"; exit 1; }
}
staged_variant win win.patch
staged_variant pan win.patch 's/constexpr bool kStages = kVec == 4 \&\& kColLanes >= 8;/constexpr bool kStages = false;/'
staged_variant win2 win.patch 's/launch_spmm_for<index_t, 16, 4, 4>/launch_spmm_for<index_t, 16, 4, 2>/'
staged_variant win8 win.patch 's/launch_spmm_for<index_t, 16, 4, 4>/launch_spmm_for<index_t, 16, 4, 8>/'
MAX_JOBS=3 build_variants tpl win pan win2 win8
test_and_sanitize win win pan win2 win8
echo "## SpMM: tpl win pan win2 win8, then reversed"
export KS="8 32 64 128"
timeout 200 python3 "$LAB/spmm_compare.py" "$WORK/tpl" tpl win pan win2 win8 2> "$OUT/logs/compare.err" | tee "$OUT/spmm_compare.txt"
timeout 200 python3 "$LAB/spmm_compare.py" "$WORK/tpl" win8 win2 pan win tpl 2>> "$OUT/logs/compare.err" | tee -a "$OUT/spmm_compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
