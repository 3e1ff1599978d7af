#!/usr/bin/env bash
# Lab round 44 (written in the seventh session of 2026-12-07; not yet run): two reads of
# crow that SpMV's chunk kernel need not make, on the matrices where it trails cuSPARSE by
# L2 sectors (run 25's ncu: uniform rows ~2M more than cuSPARSE's ~46M). pre: a thread
# preloads its first row's bounds only if that row can belong to the chunk (at most the next
# chunk's first row); on 32-nonzero rows a chunk holds 64 rows, so 192 of 256 threads load
# bounds they never use. lrb: a row left to a warp (over 8 nonzeros in the chunk) goes to
# the long-row list with its first nonzero and its end in the chunk, which the warp now
# reads from shared memory instead of loading crow[r] and crow[r + 1] again (+3 KB of shared
# memory a block). both: pre and lrb. round44/*.patch, against the sparse template of
# commit f8a9c06. Compiled here (nvcc 13.0, sm_90): 32 registers at int32 in every variant
# (8 blocks per SM), 39-40 at int64 (6). Wrong calls, the CUDA tests and the sanitizers for
# both, then SpMV against cuSPARSE in both orders, and ncu's L2 sectors on the random
# matrices for tpl and both.
WORK=${WORK:-$PWD/.lab/r44}
. "$(dirname "$0")/variants.sh"
start_round round44
variant tpl
variant pre pre.patch
variant lrb lrb.patch
variant both both.patch
MAX_JOBS=4 build_variants tpl pre lrb both
check_wrong_calls tpl both
test_and_sanitize both both
time_spmv_both_orders tpl tpl pre lrb both
echo "## ncu: L2 sectors on power-law and uniform rows, tpl then both"
for name in tpl both; do
    timeout 150 ncu --nvtx --nvtx-include "measure/" --section SpeedOfLight --metrics lts__t_sectors_op_read.sum \
        python3 "$LAB/spmv_once.py" "$WORK/tpl" "$name" random > "$OUT/logs/ncu_$name.txt" 2>&1 || echo "ncu $name: FAILED (rc $?)"
    echo "$name:"; grep -E "^  [a-zA-Z_].*\(|Duration|lts__t_sectors_op_read" "$OUT/logs/ncu_$name.txt" | sed -E 's/\(const.*//' | head -24
done
