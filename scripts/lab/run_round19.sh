#!/usr/bin/env bash
# Lab round 19 on the H200 (eighth session): narrower SpMM groups, several passes over k.
# sp = the template (2 / 8 / 16 / 32 column lanes for k <= 8 / 32 / 64 / above), c = half the
# lanes at k > 32 (k = 64: 8 lanes, two passes, 4 rows a warp), d = half the lanes at k > 8,
# in one process on the benchmark's stencil and power-law matrices.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
for p in sp c d; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k sparse > /dev/null; done
sed -i 's/<index_t, 16, 4>/<index_t, 8, 4>/; s/<index_t, 32, 4>/<index_t, 16, 4>/' "$WORK/c/c/csrc/cuda/csr_kernels.cuh"
sed -i 's/<index_t, 8, 4>/<index_t, 4, 4>/; s/<index_t, 16, 4>/<index_t, 8, 4>/; s/<index_t, 32, 4>/<index_t, 16, 4>/' "$WORK/d/d/csrc/cuda/csr_kernels.cuh"
grep -h "return launch_spmm_for<index_t, [0-9]*, 4>" "$WORK"/*/*/csrc/cuda/csr_kernels.cuh
for p in sp c d; do
    (cd "$WORK/$p" && MAX_JOBS=5 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1 \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }) &
done
wait
echo "## SpMM: sp / c / d"
timeout 150 python3 "$REPO/scripts/lab/spmm_compare.py" "$WORK/sp" sp c d 2> "$OUT/logs/compare.err" | tee "$OUT/compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
