#!/usr/bin/env bash
# Lab round 45 (the eighth session of 2026-12-07; not yet run): the block size of SpMM's rows
# kernel at k > 32. A block of 256 threads there is 16 groups of 16 lanes, 16 rows in turn
# each: 256 consecutive rows, so a stencil row's neighbours one grid row away (+-256) are
# another block's, on another SM, and miss L1. b512 / b768 / b1024: 512 / 768 / 1024
# threads a block at k > 32, so the group 256 rows on is in the same block at the same turn
# for 1/2, 2/3 and 3/4 of the rows. At 40 registers (int32; compiled here, nvcc 13.0, sm_90)
# an SM holds 48 warps of 256, 512 or 768 threads a block, but 32 of 1024;
# __launch_bounds__(1024, 2) made ptxas spill 68 bytes, so that variant is left out. Sed
# edits of the template (no patches, so no round45/ folder); the CUDA tests and sanitizers,
# SpMM against cuSPARSE at k = 32, 64 and 128 in both orders, and ncu of the rows kernel at
# k = 64 for tpl and b768: L1 hit rate, global-load sectors asked of L1 and sectors L1 read
# from L2 (lab 41 could not tell whether X hits in L1 at all). spmm_l1_model.py models the
# hits on a CPU.
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
    KS=64 timeout 120 ncu --nvtx --nvtx-include "measure/" -k regex:spmm_rows_kernel --section SpeedOfLight --section MemoryWorkloadAnalysis \
        --metrics lts__t_sectors_op_read.sum,l1tex__t_sector_hit_rate.pct,l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum,l1tex__m_xbar2l1tex_read_sectors.sum \
        python3 "$LAB/spmm_once.py" "$WORK/tpl" "$name" > "$OUT/logs/ncu_$name.txt" 2>&1 || echo "ncu $name: FAILED (rc $?)"
    echo "$name:"; grep -E "^  [a-zA-Z_].*\(|Duration|L2 Cache Throughput|lts__t_sectors_op_read|l1tex__t_sector_hit_rate|l1tex__t_sectors_pipe|l1tex__m_xbar2l1tex" "$OUT/logs/ncu_$name.txt" | sed -E 's/\(const.*//' | head -16
done
