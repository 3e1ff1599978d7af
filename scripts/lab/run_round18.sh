#!/usr/bin/env bash
# Lab round 18 on the H200 (eighth session): SpMM group batches once more. sp = the template
# (a group row's nonzeros 4 at a time, from lab run 17), b2 = batches of 2, b6 = batches of
# 6, in one process on the benchmark's stencil and power-law matrices.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
for p in sp b2 b6; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k sparse > /dev/null; done
sed -i 's/constexpr int kBatch = 4;/constexpr int kBatch = 2;/' "$WORK/b2/b2/csrc/cuda/csr_kernels.cuh"
sed -i 's/constexpr int kBatch = 4;/constexpr int kBatch = 6;/' "$WORK/b6/b6/csrc/cuda/csr_kernels.cuh"
grep -h "constexpr int kBatch" "$WORK"/*/*/csrc/cuda/csr_kernels.cuh
for p in sp b2 b6; do
    (cd "$WORK/$p" && MAX_JOBS=5 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1 \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }) &
done
wait
echo "## SpMM: sp / b2 / b6"
timeout 150 python3 "$REPO/scripts/lab/spmm_compare.py" "$WORK/sp" sp b2 b6 2> "$OUT/logs/compare.err" | tee "$OUT/compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
