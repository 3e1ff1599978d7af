#!/usr/bin/env bash
# Lab round 13 on the H200 (sixth session, the last minutes of device time): the template's
# SpMV with the long-row flag raised only by blocks that find it down, as the sparse-only
# project .lab/variants/spc: benchmark, its tests, then sanitizers for what time is left.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
cd .lab/variants/spc
MAX_JOBS=16 timeout 60 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/build.log" 2>&1 && echo built || { echo BUILD FAILED; tail -20 "$OUT/build.log"; exit 1; }
timeout 40 python3 -m benchmarks --json "$OUT/bench.json" > "$OUT/bench.txt" 2> /dev/null; grep spmv "$OUT/bench.txt"
timeout 60 python3 -m pytest -q -x -p no:cacheprovider tests/test_csr.py > "$OUT/pytest.log" 2>&1; echo "pytest rc $?: $(tail -1 "$OUT/pytest.log")"
for tool in memcheck racecheck initcheck; do
    timeout 25 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" spc > "$OUT/san_$tool.log" 2>&1 \
        && echo "compute-sanitizer $tool: clean" || { echo "compute-sanitizer $tool: FAILED or cut ($?)"; tail -4 "$OUT/san_$tool.log"; }
done
