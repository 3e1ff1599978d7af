#!/usr/bin/env bash
# Lab round 42 (the seventh session of 2026-12-07), after round 41's ncu put SpMM's long-row
# kernel at 14-16% of the power-law matrix's time and 57-65% of DRAM's peak: lst has the
# rows kernel list long rows' chunks (row, first nonzero) for the long-row kernel, which
# walks that list in a grid-stride loop instead of giving a warp to every 256 nonzeros of A
# and searching for its rows. tpl: the template; lst: round42/lst.patch and lst_cu.patch
# (against the sparse template of commit f2e8af9); lsts: its stable-ABI build. As run, the
# working tree's template was lst and main's came from reverse patches, with the same code
# under the names tpl (lst) and old (main). The CUDA tests of lst and lsts, the three
# sanitizers over lst's ops, SpMM timed against cuSPARSE in both orders, and ncu of lst's
# long-row kernel.
WORK=${WORK:-$PWD/.lab/r42}
. "$(dirname "$0")/variants.sh"
start_round round42
variant tpl
variant lst lst.patch
patch_file lst csrc/cuda/csr.cu lst_cu.patch
python3 -m kernelgen new "$WORK/lsts" --no-input --arch 9.0 --abi stable -k sparse > /dev/null
patch_file lsts csrc/cuda/csr_kernels.cuh lst.patch
patch_file lsts csrc/cuda/csr.cu lst_stable_cu.patch
MAX_JOBS=5 build_variants tpl lst lsts
test_and_sanitize lst lst lsts
KS="8 32 64 128" time_both_orders spmm tpl tpl lst
echo "## ncu: lst's long-row kernel at k = 64, stencil then power-law rows (tpl's: lab 41)"
KS=64 timeout 120 ncu --nvtx --nvtx-include "measure/" -k regex:long_rows --section SpeedOfLight \
    python3 "$LAB/spmm_once.py" "$WORK/tpl" lst > "$OUT/logs/ncu_lst.txt" 2>&1 || echo "ncu: FAILED (rc $?)"
grep -E "Duration|DRAM Throughput|L2 Cache Throughput" "$OUT/logs/ncu_lst.txt" | head -12
