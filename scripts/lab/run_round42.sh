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
spmm_long_rows_round lst
