#!/usr/bin/env bash
# Lab round 17 on the H200 (eighth session): how many rows of X a lane keeps in flight.
# sp = the template (a group row's nonzeros 8 at a time, spmm_segment unrolled 4), b4 =
# batches of 4, u8 = spmm_segment unrolled 8 (k > 64 and rows of 17-256 nonzeros), in one
# process on the benchmark's stencil and power-law matrices.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
for p in sp b4 u8; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k sparse > /dev/null; done
sed -i 's/constexpr int kBatch = 8;/constexpr int kBatch = 4;/' "$WORK/b4/b4/csrc/cuda/csr_kernels.cuh"
sed -i 's/#pragma unroll 4/#pragma unroll 8/' "$WORK/u8/u8/csrc/cuda/csr_kernels.cuh"
grep -c "kBatch = 4;\|unroll 8" "$WORK"/*/*/csrc/cuda/csr_kernels.cuh
for p in sp b4 u8; do
    (cd "$WORK/$p" && MAX_JOBS=5 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1 \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }) &
done
wait
echo "## SpMM: sp / b4 / u8"
timeout 150 python3 "$REPO/scripts/lab/spmm_compare.py" "$WORK/sp" sp b4 u8 2> "$OUT/logs/compare.err" | tee "$OUT/compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
