#!/usr/bin/env bash
# Lab round 24 on the H200 (tenth session), against the template (sp), on lab 23's leads:
# - gl: lab 23's SpMV (x gathered in the row sums); glv: gl staging values and columns into
#   shared memory with 16-byte loads, and ncu on glv's chunk kernel (stencil) beside lab 20's.
# - rk: SpMM with each group's rows in turn chosen per k (1 at k <= 8, 2 at k <= 32, 8 at
#   k <= 64, 2 above: lab 23's best); rk16: 16 at k <= 64 and 8 above.
. "$(dirname "$0")/variants.sh"
variant sp
variant gl gl.patch
variant glv glv.patch
variant rk rk.patch
variant rk16 rk16.patch
names=(sp gl glv rk rk16)
build_variants "${names[@]}"
echo "## SpMV per kernel"
timeout 150 python3 "$LAB/spmv_kernels.py" "$WORK/sp" sp gl glv 2>&1 | grep -v Warning | tee "$OUT/spmv_kernels.txt"
echo "## SpMM: sp rk rk16"
KS="8 32 64 128" timeout 150 python3 "$LAB/spmm_compare.py" "$WORK/sp" sp rk rk16 2> "$OUT/logs/compare.err" | tee "$OUT/spmm_compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## ncu: glv's chunk kernel, stencil"
timeout 150 ncu --nvtx --nvtx-include "measure/" --kernel-name regex:chunk --section SpeedOfLight \
    --metrics dram__bytes_read.sum,lts__t_sectors_op_read.sum,lts__t_requests_op_read.sum,l1tex__t_sector_hit_rate.pct,smsp__inst_executed.sum \
    python3 "$LAB/spmv_once.py" "$WORK/glv" glv stencil > "$OUT/ncu_glv.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|lts__|l1tex__|dram__bytes|smsp__inst" "$OUT/ncu_glv.txt" | cut -c1-160 | head -40 || true
