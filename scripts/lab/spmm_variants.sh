#!/usr/bin/env bash
# SpMM variants side by side on the H200: the template's sparse kernel (sp) and one copy per
# NAME=SED argument, that sed expression applied to its csr_kernels.cuh; all built, then timed
# in one process against cuSPARSE (spmm_compare.py). The lab rounds that compare SpMM layouts
# call this with their variants; with WORK set, the projects are left in that folder.
#   OUT=$OUT bash scripts/lab/spmm_variants.sh 'b4=s/kBatch = 8;/kBatch = 4;/' ...
. "$(dirname "$0")/variants.sh"
names=(sp)
variant sp
for spec in "$@"; do
    names+=("${spec%%=*}")
    variant "${spec%%=*}" "" "${spec#*=}"
done
MAX_JOBS=5 build_variants "${names[@]}"
echo "## SpMM: ${names[*]}"
timeout 150 python3 "$LAB/spmm_compare.py" "$WORK/sp" "${names[@]}" 2> "$OUT/logs/compare.err" | tee "$OUT/compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
