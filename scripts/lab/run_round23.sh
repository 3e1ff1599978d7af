#!/usr/bin/env bash
# Lab round 23 on the H200 (tenth session), against the template (sp):
# - gl: SpMV's chunk kernel stages values and columns in shared memory and gathers x in the
#   row sums, so a warp's gathers are one column offset for 32 consecutive rows (contiguous
#   on a stencil) instead of 32 consecutive nonzeros (5 planes of x at once).
# - r2, r4, r8: SpMM's groups each sum 2 / 4 / 8 consecutive rows in turn (rows g*R + turn),
#   so a row's gathers of X[i-1], X[i] can hit in L1 lines the group's previous row loaded.
# - ri4: 4 turns, the warp's groups on consecutive rows each turn (rows turn*G + g).
# Per-kernel SpMV times, SpMM against cuSPARSE, then the sparse tests on gl and r4.
. "$(dirname "$0")/variants.sh"
variant sp
variant gl gl.patch
variant r2 r4.patch 's/kRunRows = 4;/kRunRows = 2;/'
variant r4 r4.patch
variant r8 r4.patch 's/kRunRows = 4;/kRunRows = 8;/'
variant ri4 ri4.patch
names=(sp gl r2 r4 r8 ri4)
build_variants "${names[@]}"
echo "## SpMV per kernel"
timeout 150 python3 "$LAB/spmv_kernels.py" "$WORK/sp" sp gl 2>&1 | tee "$OUT/spmv_kernels.txt"
echo "## SpMM: ${names[*]}"
KS="8 32 64 128" timeout 200 python3 "$LAB/spmm_compare.py" "$WORK/sp" sp r2 r4 r8 ri4 2> "$OUT/logs/compare.err" | tee "$OUT/spmm_compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
for name in gl r4; do
    echo "## tests: $name"
    (cd "$WORK/$name" && timeout 120 python3 -m pytest -q -x tests/test_csr.py 2>&1 | tail -3)
done
