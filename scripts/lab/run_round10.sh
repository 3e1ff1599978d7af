#!/usr/bin/env bash
# Run 15 on the H200, short (the session's device time is nearly spent): the wmma template with
# the TMA kernel and the proxy fence before each stage release, in a wmma-only project: soak
# (40 float32-output and 40 input-dtype launches per dtype at 8192^3, element by element), the
# wmma tests, the benchmark table, memcheck and racecheck over the ragged shapes.
set -uo pipefail
REPO=$(cd "$(dirname "$0")/../.." && pwd)
WORK=$(mktemp -d)
python3 -m pip install -q --no-deps --no-build-isolation -e "$REPO"
python3 -m kernelgen new "$WORK/w10" --no-input --arch 9.0 -k wmma > /dev/null
cd "$WORK/w10"
start=$(date +%s)
MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -e . > "$OUT/build10.log" 2>&1 || { tail -20 "$OUT/build10.log"; exit 1; }
echo "build: $(( $(date +%s) - start )) s"
timeout 60 python3 "$REPO/scripts/wmma_soak.py" w10 40 || echo "wmma soak: FAILED"
timeout 60 python3 -m pytest -q -p no:cacheprovider tests > "$OUT/pytest10.log" 2>&1; tail -1 "$OUT/pytest10.log"
timeout 70 python3 -m benchmarks --json "$OUT/bench10.json" > "$OUT/bench10.txt" 2> "$OUT/bench10_progress.log" || { echo "benchmarks: FAILED"; tail -5 "$OUT/bench10_progress.log"; }
cat "$OUT/bench10.txt"
for tool in memcheck racecheck; do
    timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" w10 \
        > "$OUT/sanitizer10_$tool.log" 2>&1 && echo "compute-sanitizer $tool: clean" \
        || { echo "compute-sanitizer $tool: FAILED or timed out"; tail -5 "$OUT/sanitizer10_$tool.log"; }
done
