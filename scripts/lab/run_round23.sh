#!/usr/bin/env bash
# Lab round 23 on the H200 (tenth session), against the template (sp):
# - gl: SpMV's chunk kernel stages values and columns in shared memory and gathers x in the
#   row sums, so a warp's gathers are one column offset for 32 consecutive rows (contiguous
#   on a stencil) instead of 32 consecutive nonzeros (5 planes of x at once).
# - r2, r4, r8: SpMM's groups each sum 2 / 4 / 8 consecutive rows in turn (rows g*R + turn),
#   so a row's gathers of X[i-1], X[i] can hit in L1 lines the group's previous row loaded.
# - ri4: 4 turns, the warp's groups on consecutive rows each turn (rows turn*G + g).
# Per-kernel SpMV times, SpMM against cuSPARSE, then the sparse tests on gl and r4.
set -uo pipefail
export PYTHONUNBUFFERED=1
LAB=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
variant() {  # NAME [PATCH [SED]]: a sparse project, its kernels header patched
    python3 -m kernelgen new "$WORK/$1" --no-input --arch 9.0 -k sparse > /dev/null
    local header=$WORK/$1/$1/csrc/cuda/csr_kernels.cuh
    if [ -n "${2:-}" ]; then patch -s "$header" < "$LAB/round23/$2" || { echo "$1: patch failed"; exit 1; }; fi
    if [ -n "${3:-}" ]; then sed -i "$3" "$header"; fi
}
variant sp
variant gl gl.patch
variant r2 r4.patch 's/kRunRows = 4;/kRunRows = 2;/'
variant r4 r4.patch
variant r8 r4.patch 's/kRunRows = 4;/kRunRows = 8;/'
variant ri4 ri4.patch
names=(sp gl r2 r4 r8 ri4)
for name in "${names[@]}"; do
    (cd "$WORK/$name" && MAX_JOBS=3 timeout 300 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$name.log" 2>&1 \
        && echo "$name: built" || { echo "$name: BUILD FAILED"; tail -20 "$OUT/logs/build_$name.log"; }) &
done
wait
echo "## SpMV per kernel"
timeout 150 python3 "$LAB/spmv_kernels.py" "$WORK/sp" sp gl 2>&1 | tee "$OUT/spmv_kernels.txt"
echo "## SpMM: ${names[*]}"
KS="8 32 64 128" timeout 200 python3 "$LAB/spmm_compare.py" "$WORK/sp" sp r2 r4 r8 ri4 2> "$OUT/logs/compare.err" | tee "$OUT/spmm_compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
for name in gl r4; do
    echo "## tests: $name"
    (cd "$WORK/$name" && timeout 120 python3 -m pytest -q -x tests/test_csr.py 2>&1 | tail -3)
done
