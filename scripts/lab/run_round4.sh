#!/usr/bin/env bash
# Lab round 4 on the H200: the GEMM knobs of gemm2.cu and more SpMV chunk shapes, then SASS
# counts and ncu for the template's GEMM and the 128x256 candidate. The .so files are built on
# the GPU-less machine (nvcc -arch=sm_90, see lab.py's build) and carried in .lab/.
set -uo pipefail
cd "$(dirname "$0")"
export LAB_BUILD=$PWD/../../.lab LAB_PREBUILT=1
python3 lab.py gemm2 spmv > "$OUT/lab4.txt" 2>&1 || { tail -40 "$OUT/lab4.txt"; exit 1; }
cuobjdump -sass "$LAB_BUILD/gemm2.so" > "$OUT/gemm2.sass" 2>&1
python3 - "$OUT/gemm2.sass" <<'PY' > "$OUT/sass_counts.txt"
import re, sys
text = open(sys.argv[1]).read()
for block in re.split(r"\n\s*Function : ", text)[1:]:
    name = block.split("\n", 1)[0]
    ops = ("HMMA.16816.F32", "HMMA.16816.F32.BF16", "LDSM.16.M88.4", "LDSM.16.MT88.4", "LDS.U.128", "LDS.128", "LDS", "LDGSTS.E.BYPASS.LTC128B.128")
    counts = {op: len(re.findall(r"\b" + re.escape(op) + r"\b", block)) for op in ops}
    print(name[:70], {k: v for k, v in counts.items() if v})
PY
LAB_CFGS=0,1,5 timeout 240 ncu --kernel-name regex:gemm --launch-count 6 --section SpeedOfLight --section WarpStateStats \
    --section MemoryWorkloadAnalysis_Tables --section Occupancy \
    --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,lts__t_sectors_srcunit_tex_op_read.sum,l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 lab.py gemm2_once > "$OUT/ncu_gemm2.txt" 2>&1
grep -E "void gemm|Duration|Compute \(SM\) Throughput|Memory Throughput|L2 Cache Throughput|hmma_cycles_active|lts__|bank_conflicts|Registers Per|Achieved Occupancy|Warp Cycles Per Issued" "$OUT/ncu_gemm2.txt" | cut -c1-150 | head -70
head -24 "$OUT/sass_counts.txt"
grep -E "fragment check" "$OUT/lab4.txt"
sed -n '/## gemm2/,$p' "$OUT/lab4.txt" | grep -v "fragment check"
