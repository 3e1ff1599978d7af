#!/usr/bin/env bash
# Lab round 6 on the H200: the TMA-fed WMMA GEMM (gemm4.cu: tensor-map tile copies into swizzled
# shared memory, mbarrier stages, optional A multicast across a cluster pair) against the
# template's tiling, then new SpMV schemes (lab run 6 list in lab.py), then ncu on two GEMMs.
# The .so files are built here and carried in .lab/.
set -uo pipefail
cd "$(dirname "$0")"
export LAB_BUILD=$PWD/../../.lab LAB_PREBUILT=1
timeout 180 python3 lab.py gemm4 > "$OUT/lab6.txt" 2>&1 || { echo "lab: FAILED (rc $?)"; tail -30 "$OUT/lab6.txt"; }
sed -n '/## gemm4/,$p' "$OUT/lab6.txt"
SPMV_SCHEMES=0,9,15,16,17,18,19,20,21 timeout 170 python3 lab.py spmv > "$OUT/lab6_spmv.txt" 2>&1 || echo "spmv: FAILED (rc $?)"
sed -n '/## spmv/,$p' "$OUT/lab6_spmv.txt"
LAB_CFGS=${NCU_CFGS:-0,1} timeout 150 ncu --kernel-name regex:gemm_tma --launch-count 2 --section SpeedOfLight --section WarpStateStats \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum \
    python3 lab.py gemm4_once > "$OUT/ncu_gemm4.txt" 2>&1
grep -E "void gemm|Duration|Throughput|hmma_cycles|lts__|bank_conflicts|Warp Cycles Per Issued" "$OUT/ncu_gemm4.txt" | cut -c1-150
