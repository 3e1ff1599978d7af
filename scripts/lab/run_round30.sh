#!/usr/bin/env bash
# Lab round 30 (fourteenth session): SpMV rows of 9-64 nonzeros in a chunk summed by groups
# of lanes instead of one warp each. In the template a warp takes such a row alone: on
# random columns (uniform rows of 32, 39% of power-law's nonzeros) each lane then has one
# gather in flight, row after row. `g8` (round30/groups.patch) gives each of these rows 8
# lanes, 4 rows per warp at once, up to 8 gathers per lane, and keeps every pending row's
# span in shared memory, so no lane reloads crow; rows over 64 nonzeros stay a warp's. `g4`
# is g8 with 4 lanes per row (rows up to 32), `g8u` g8 with its warp rows' loop unrolled by 4
# (rows over 64 nonzeros hold 24% of power-law's), `g8st` g8 on the stable ABI. Patches are
# against the sparse template of commit ccf4948. Checks as round 29c; then the timing.
WORK=${WORK:-$PWD/.lab/r30}
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round30
rm -rf "$WORK" && mkdir -p "$WORK"
variant sp
variant g8 groups.patch
variant g4 groups.patch 's/constexpr int kGroupLanes = 8;/constexpr int kGroupLanes = 4;/'
variant g8u groups.patch 's/^    for (int i = row.lo + lane; i < row.hi; i += kWarp) {/#pragma unroll 4\n&/'
python3 -m kernelgen new "$WORK/g8st" --no-input --arch 9.0 -k sparse --abi stable > /dev/null
patch -s "$WORK/g8st/g8st/csrc/cuda/csr_kernels.cuh" < "$PATCHES/groups.patch" || { echo "g8st: patch failed"; exit 1; }
NVCC_APPEND_FLAGS="-Xptxas -v" MAX_JOBS=3 build_variants sp g8 g4 g8u g8st
grep -h -A4 "Compiling entry.*spmv_chunk_kernel" "$OUT"/logs/build_*.log | grep -E "Used [0-9]+ registers" | head -8
CALLS=${CALLS:-30} check_wrong_calls g8 g4 g8u g8st
test_and_sanitize g8 g8 g4 g8u g8st
echo "## SpMV timing: sp g8 g4 g8u, then g8u g4 g8 sp"
timeout 170 python3 "$LAB/spmv_compare.py" "$WORK/sp" sp g8 g4 g8u 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
timeout 170 python3 "$LAB/spmv_compare.py" "$WORK/sp" g8u g4 g8 sp 2>> "$OUT/logs/spmv_compare.err" | tee -a "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
