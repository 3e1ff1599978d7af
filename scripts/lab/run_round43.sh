#!/usr/bin/env bash
# Lab round 43 (the seventh session of 2026-12-07), after round 42: there, the rows kernel
# listing long rows' chunks itself won 3-6% on power-law rows but cost the stencil 3-5% at
# k >= 32 (its rows kernel's code changed, its registers did not). scan keeps the rows kernel
# of the template byte for byte (it only flags a long row) and lists the chunks in a kernel
# of its own, a thread per row of A, which returns at once when nothing was flagged; the
# long-row kernel walks the list as in round 42. tpl: the template; scan: round43/scan.patch
# and scan_cu.patch (against the sparse template of commit f2e8af9); scans: its
# stable-ABI build (scan_stable_cu.patch). The CUDA tests of scan and scans, the three
# sanitizers over scan's ops, SpMM timed against cuSPARSE in both orders, and ncu of scan's
# list and long-row kernels.
WORK=${WORK:-$PWD/.lab/r43}
. "$(dirname "$0")/variants.sh"
start_round round43
spmm_long_rows_round scan
