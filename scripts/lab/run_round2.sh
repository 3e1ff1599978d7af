#!/usr/bin/env bash
# Lab round 2 on the H200: GEMM and SpMV variants, then ncu and SASS counts for the GEMM.
set -uo pipefail
cd "$(dirname "$0")"
export LAB_BUILD=/tmp/lab
python3 lab.py gemm spmv > "$OUT/lab2.txt" 2>&1 || { tail -40 "$OUT/lab2.txt"; exit 1; }
CUOBJDUMP=$(command -v cuobjdump || echo /usr/local/cuda/bin/cuobjdump)
"$CUOBJDUMP" -sass /tmp/lab/gemm.so > "$OUT/gemm.sass" 2>&1
python3 - "$OUT/gemm.sass" <<'PY' > "$OUT/sass_counts.txt"
import re, sys
text = open(sys.argv[1]).read()
for block in re.split(r"\n\s*Function : ", text)[1:]:
    name = block.split("\n", 1)[0]
    counts = {op: len(re.findall(r"\b" + op + r"\b", block)) for op in ("HMMA.16816.F32", "HMMA.16816.F32.BF16", "LDSM.16.M88.4", "LDSM.16.MT88.4", "LDS.U.128", "LDS.128", "LDS", "LDGSTS.E.BYPASS.LTC128B.128")}
    print(name[:90], {k: v for k, v in counts.items() if v})
PY
LAB_CFGS=1,3 ncu --kernel-name regex:gemm --launch-count 4 --section SpeedOfLight --section WarpStateStats \
    --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section Occupancy \
    --metrics smsp__inst_executed_pipe_tensor.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum,sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active \
    python3 lab.py gemm_once > "$OUT/ncu_gemm.txt" 2>&1
grep -E "gemm<|Duration|Compute \(SM\) Throughput|Memory Throughput|hmma_cycles_active|bank_conflicts|wavefronts|Registers Per|Achieved Occupancy|Stall|Warp Cycles Per Issued" "$OUT/ncu_gemm.txt" | head -60
cat "$OUT/sass_counts.txt" | head -20
sed -n '/## gemm/,$p' "$OUT/lab2.txt"
