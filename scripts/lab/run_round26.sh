#!/usr/bin/env bash
# Lab round 26 on the H200 (tenth session): where csr_spmv's ~20 us of wall time beyond its
# kernels goes (spmv_overhead.py), on the template; and the generated project's benchmark
# tests with CUDA on the final commit (run 22 failed only the new alternation test).
set -uo pipefail
export PYTHONUNBUFFERED=1
LAB=$(cd "$(dirname "$0")" && pwd)
WORK=$(mktemp -d)
python3 -m kernelgen new "$WORK/sp" --no-input --arch 9.0 -k sparse -k vector_add > /dev/null
(cd "$WORK/sp" && MAX_JOBS=16 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/build.log" 2>&1) \
    || { echo "BUILD FAILED"; tail -20 "$OUT/build.log"; exit 1; }
(cd "$WORK/sp" && timeout 200 python3 -m pytest -q tests/test_benchmarks.py 2>&1 | tail -3)
timeout 120 python3 "$LAB/spmv_overhead.py" "$WORK/sp" sp 2>&1 | tee "$OUT/spmv_overhead.txt"
