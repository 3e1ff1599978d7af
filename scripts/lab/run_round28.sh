#!/usr/bin/env bash
# Lab round 28: why programmatic dependent launch gave wrong SpMV results in lab run 27
# (round27/pdl.patch, against the current template). Variants, each from pdl.patch:
# - pdl: as in run 27 (chunk kernel copies its chunk with cp.async, then waits for the
#   partition kernel; the carries kernel waits at its start).
# - pdlw: pdl, but the chunk kernel waits first thing, before its cp.async copy.
# - cp: pdl's kernels launched the plain way (no overlap attribute): cp.async alone.
# - pdlcg: pdl with first_row and carry_row read by __ldcg (L2, never the non-coherent
#   path), in case a read-only load of what the previous grid wrote is the fault.
# - pdlp (run 28c, round28/pdlp.patch): programmatic launch alone: the chunk kernel waits
#   first thing, reads first_row, carry_row and carry by __ldcg, and copies its chunk with
#   the template's plain loop (cp.async cost the int64 matrices up to 30% in run 28b).
# NAMES, SANITIZED and TIMED pick the variants built, sanitized and timed.
# Then: many fresh random matrices per variant (spmv_repeat.py), memcheck and racecheck of
# pdlcg, and the timing of the variants that gave no wrong call.
. "$(dirname "$0")/variants.sh"
PATCHES=$LAB/round27
variant sp
variant pdl pdl.patch
variant pdlw pdl.patch 's/^  const int64_t stop = min(start + kChunk, nnz);$/&\n  wait_for_previous_kernel();  \/\/ round 28: before the copy/'
variant cp pdl.patch 's/config.numAttrs = waits ? 1 : 0;/config.numAttrs = 0;/'
variant pdlcg pdl.patch 's/= first_row\[blockIdx.x\];/= __ldcg(\&first_row[blockIdx.x]);/; s/= first_row\[blockIdx.x + 1\];/= __ldcg(\&first_row[blockIdx.x + 1]);/; s/carry_row\[chunk\] >= 0/__ldcg(\&carry_row[chunk]) >= 0/; s/atomicAdd(&y\[carry_row\[chunk\]\], carry\[chunk\])/atomicAdd(\&y[__ldcg(\&carry_row[chunk])], __ldcg(\&carry[chunk]))/'
variant pdlp
patch -s "$WORK/pdlp/pdlp/csrc/cuda/csr_kernels.cuh" < "$LAB/round28/pdlp.patch" || { echo "pdlp: patch failed"; exit 1; }
read -ra names <<< "${NAMES:-sp pdl pdlw cp pdlcg}"
MAX_JOBS=3 build_variants "${names[@]}"
mkdir -p "$WORK/checks"  # not in $WORK: its project folders would shadow the packages
cp "$LAB/spmv_repeat.py" "$WORK/checks/"
echo "## wrong calls on fresh random matrices (one process per variant: a crash ends only its own)"
for name in "${names[@]}"; do
    timeout 100 python3 "$WORK/checks/spmv_repeat.py" "$WORK/sp" "${CALLS:-100}" "$name" 2> "$OUT/logs/repeat_$name.err" \
        | tee -a "$OUT/repeat.txt" | grep -v "^package"
    grep -q Error "$OUT/logs/repeat_$name.err" && echo "$name: $(grep -m1 Error "$OUT/logs/repeat_$name.err")"
done
echo "## memcheck and racecheck of ${SANITIZED:-pdlcg}'s SpMV kernels (the reference's cuSPARSE kernels left out)"
for tool in memcheck racecheck; do
    (timeout 120 compute-sanitizer --tool $tool --kernel-name kns=csr_spmv --error-exitcode 1 \
        python3 "$WORK/checks/spmv_repeat.py" "$WORK/sp" 3 "${SANITIZED:-pdlcg}" > "$OUT/logs/$tool.log" 2>&1
     echo "$tool: rc $? $(grep -E "ERROR SUMMARY" "$OUT/logs/$tool.log" | tr '\n' ' ')"; grep -m3 -E "Invalid|Race|hazard" "$OUT/logs/$tool.log") &
done
wait
echo "## SpMV timing: ${TIMED:-sp cp pdlcg}"
timeout 200 python3 "$LAB/spmv_compare.py" "$WORK/sp" ${TIMED:-sp cp pdlcg} 2> "$OUT/logs/spmv_compare.err" | tee "$OUT/spmv_compare.txt"
grep -v Warning "$OUT/logs/spmv_compare.err" | grep -v sparse_csr_tensor | tail -5
echo "## per-call wall and host time (spmv_overhead.py): ${OVERHEAD:-}"
for name in ${OVERHEAD:-}; do
    timeout 100 python3 "$LAB/spmv_overhead.py" "$WORK/sp" "$name" 2>> "$OUT/logs/overhead.err" | tee -a "$OUT/overhead.txt"
done
