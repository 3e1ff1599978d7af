#!/usr/bin/env bash
# Lab round 5 on the H200: the cluster-multicast WMMA GEMM (gemm3.cu) against the template's
# tiling, then ncu on it. The .so files are built on the GPU-less machine and carried in .lab/.
set -uo pipefail
cd "$(dirname "$0")"
export LAB_BUILD=$PWD/../../.lab LAB_PREBUILT=1
timeout 180 python3 lab.py gemm3 > "$OUT/lab5.txt" 2>&1 || { echo "lab: FAILED (rc $?)"; tail -30 "$OUT/lab5.txt"; exit 1; }
timeout 200 ncu --kernel-name regex:gemm_mc --launch-count 2 --section SpeedOfLight --section WarpStateStats --section Occupancy \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 lab.py gemm3_once > "$OUT/ncu_gemm3.txt" 2>&1
grep -E "void gemm|Duration|Throughput|hmma_cycles|lts__|Warp Cycles Per Issued|Achieved Active" "$OUT/ncu_gemm3.txt" | cut -c1-150
sed -n '/## gemm3/,$p' "$OUT/lab5.txt"
