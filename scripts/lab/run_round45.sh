#!/usr/bin/env bash
# Lab round 45 (the eighth session of 2026-12-07; not yet run): the block size of SpMM's rows
# kernel at k > 32. A block of 256 threads there is 16 groups of 16 lanes, 16 rows in turn
# each: 256 consecutive rows, so a stencil row's neighbours one grid row away (+-256) are
# another block's, on another SM, and miss L1 (lab 41: 42.7% L1 hits, which is what the +-1
# neighbours alone give). b512 / b768 / b1024: 512 / 768 / 1024 threads a block at k > 32, so
# the group 256 rows on is in the same block at the same turn for 1/2, 2/3 and 3/4 of the
# rows. At 40 registers (int32; compiled here, nvcc 13.0, sm_90) an SM holds 48 warps of
# 256, 512 or 768 threads a block, but 32 of 1024; __launch_bounds__(1024, 2) made ptxas
# spill 68 bytes, so that variant is left out. Sed edits of the template (no patches); the
# CUDA tests and sanitizers, SpMM against cuSPARSE at k = 32, 64 and 128 in both orders, and
# ncu's L1 hit rate and L2 sectors of the rows kernel at k = 64 for tpl and b768.
WORK=${WORK:-$PWD/.lab/r45}
. "$(dirname "$0")/variants.sh"
start_round round45
rows_threads() {  # BLOCK: the rows kernel's block at k > 32
    echo "s|  const int64_t warps_per_block = kThreads / kWarp;|  constexpr int kRowThreads = kColLanes == 16 ? $1 : kThreads;\n  const int64_t warps_per_block = kThreads / kWarp;|;s|ceil_div(rows, warps_per_block \* (kWarp|ceil_div(rows, kRowThreads / kWarp * (kWarp|;s|<<<grid, kThreads, 0, stream>>>|<<<grid, kRowThreads, 0, stream>>>|"
}
variant tpl
variant b512 "" "$(rows_threads 512)"
variant b768 "" "$(rows_threads 768)"
variant b1024 "" "$(rows_threads 1024)"
MAX_JOBS=4 build_variants tpl b512 b768 b1024
test_and_sanitize b768 b512 b768 b1024
KS="32 64 128" time_both_orders spmm tpl tpl b512 b768 b1024
echo "## ncu: the rows kernel at k = 64, stencil then power-law rows, tpl then b768"
for name in tpl b768; do
    KS=64 timeout 120 ncu --nvtx --nvtx-include "measure/" -k regex:rows_kernel --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --metrics lts__t_sectors_op_read.sum,l1tex__t_sector_hit_rate.pct \
        python3 "$LAB/spmm_once.py" "$WORK/tpl" "$name" > "$OUT/logs/ncu_$name.txt" 2>&1 || echo "ncu $name: FAILED (rc $?)"
    echo "$name:"; grep -E "^  [a-zA-Z_].*\(|Duration|L2 Cache Throughput|lts__t_sectors_op_read|l1tex__t_sector_hit_rate" "$OUT/logs/ncu_$name.txt" | sed -E 's/\(const.*//' | head -12
done
