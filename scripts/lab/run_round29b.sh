#!/usr/bin/env bash
# Lab round 29b: is run 29's slowdown of nocarry real? The same two variants timed in the
# opposite order (nocarry first), and ncu's duration and throughput of each variant's
# kernels on the stencil and the int64 random-column matrices (spmv_once.py).
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round29
variant nocarry
variant carries carries.patch
patch_file carries csrc/cuda/csr.cu carries_cu.patch
MAX_JOBS=6 build_variants nocarry carries
echo "## SpMV timing: nocarry carries"
timeout 150 python3 "$LAB/spmv_compare.py" "$WORK/nocarry" nocarry carries 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## ncu: the SpMV kernels of each variant, then cuSPARSE's"
for name in nocarry carries; do
    for matrices in stencil random64; do
        timeout 60 ncu --nvtx --nvtx-include "measure/" --metrics gpu__time_duration.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors.sum,sm__warps_active.avg.pct_of_peak_sustained_active \
            python3 "$LAB/spmv_once.py" "$WORK/nocarry" "$name" "$matrices" > "$OUT/logs/ncu_${name}_$matrices.log" 2>&1
        echo "# $name $matrices"
        grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__throughput|lts__t_sectors|warps_active|ran " "$OUT/logs/ncu_${name}_$matrices.log" \
            | sed -E 's/\(int, int, int\)|\(const [^)]*\)//' | cut -c1-110
    done
done
