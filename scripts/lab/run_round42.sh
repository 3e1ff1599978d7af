#!/usr/bin/env bash
# Lab round 42 (the seventh session of 2026-12-07), after round 41's ncu put SpMM's long-row
# kernel at 14-16% of the power-law matrix's time and 57-65% of DRAM's peak: the template now
# has the rows kernel list long rows' chunks (row, first nonzero) for the long-row kernel,
# which walks that list in a grid-stride loop instead of giving a warp to every 256 nonzeros
# of A and searching for its rows. old: the template before (round42/old.patch and
# old_cu.patch, against the sparse template of this round's commit); tpl: the template;
# tpls: its stable-ABI build. The CUDA tests of tpl and tpls, the three sanitizers over tpl's
# ops, SpMM timed against cuSPARSE in both orders, and ncu of tpl's long-row kernel.
WORK=${WORK:-$PWD/.lab/r42}
. "$(dirname "$0")/variants.sh"
start_round round42
variant tpl
variant old old.patch
patch_file old csrc/cuda/csr.cu old_cu.patch
python3 -m kernelgen new "$WORK/tpls" --no-input --arch 9.0 --abi stable -k sparse > /dev/null
MAX_JOBS=5 build_variants tpl old tpls
test_and_sanitize tpl tpl tpls
KS="8 32 64 128" time_both_orders spmm tpl old tpl
echo "## ncu: tpl's long-row kernel at k = 64, stencil then power-law rows (old's: lab 41)"
KS=64 timeout 120 ncu --nvtx --nvtx-include "measure/" -k regex:long_rows --section SpeedOfLight \
    python3 "$LAB/spmm_once.py" "$WORK/tpl" tpl > "$OUT/logs/ncu_tpl.txt" 2>&1 || echo "ncu: FAILED (rc $?)"
grep -E "Duration|DRAM Throughput|L2 Cache Throughput" "$OUT/logs/ncu_tpl.txt" | head -12
