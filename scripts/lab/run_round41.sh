#!/usr/bin/env bash
# Lab round 41 (written in the sixth session of 2026-12-07, run in the seventh): ncu on the
# template's SpMM (panels of 64 columns above k = 64, lab round 39) and cuSPARSE's at k = 64
# and 128 on the stencil and power-law matrices, to test the model in PERFORMANCE.md: how
# many of a stencil row's gathers of X hit L1 (rows in turn), how many L2 sectors are left,
# and how often DRAM reads X now that a panel's z neighbours are 16 MB back.
WORK=${WORK:-$PWD/.lab/r41}
. "$(dirname "$0")/variants.sh"
start_round round39
variant tpl
MAX_JOBS=16 build_variants tpl
echo "## ncu: SpMM at k = 64 and 128, ours and cuSPARSE"
KS="64 128" timeout 420 ncu --nvtx --nvtx-include "measure/" --section SpeedOfLight \
    --metrics lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,dram__bytes_write.sum \
    python3 "$LAB/spmm_once.py" "$WORK/tpl" tpl > "$OUT/ncu_spmm.txt" 2>&1 || echo "ncu: FAILED (rc $?)"
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|lts__|l1tex__|dram__bytes|ran " \
    "$OUT/ncu_spmm.txt" | head -120
