#!/usr/bin/env bash
# Lab round 31 (session of 2026-12-07): is residency what costs power-law int64 a quarter of
# its speed under g8 (and under nocarry/nocarry2 before it)? The template's int64 chunk kernel
# runs 6 blocks per SM (39 registers), g8's 7 (32 registers, 30.8 KB of shared memory).
# `spo` is the template with __launch_bounds__(kThreads, 8): 32 registers, no spills, 8 blocks
# per SM at int64 (int32 unchanged, already 8). `g8p` is g8 launched with 4 KB of unused
# dynamic shared memory: 6 blocks per SM at int64, int32 still 8. A diagnosis, not a
# candidate: every call's sum is checked against float64 (spmv_compare.py), no tests or
# sanitizers. Patches against the sparse template of commit 10068cd (main's as of this round).
WORK=${WORK:-$PWD/.lab/r31}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round30
rm -rf "$WORK" && mkdir -p "$WORK"
variant sp
variant spo "" 's/^__global__ void __launch_bounds__(kThreads)$/__global__ void __launch_bounds__(kThreads, 8)/'
variant g8 groups.patch
variant g8p groups.patch 's/chunk_kernel<index_t><<<static_cast<unsigned>(chunks), kThreads, 0, stream>>>(/chunk_kernel<index_t><<<static_cast<unsigned>(chunks), kThreads, 4096, stream>>>(/'
NVCC_APPEND_FLAGS="-Xptxas -v" MAX_JOBS=4 build_variants sp spo g8 g8p
echo "## SpMV timing: sp spo g8 g8p, then g8p g8 spo sp"
timeout 170 python3 "$LAB/spmv_compare.py" "$WORK/sp" sp spo g8 g8p 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
timeout 170 python3 "$LAB/spmv_compare.py" "$WORK/sp" g8p g8 spo sp 2>> "$OUT/logs/spmv_compare.err" | tee -a "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
