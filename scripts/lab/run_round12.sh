#!/usr/bin/env bash
# Lab round 12 on the H200 (sixth session): two SpMV launch designs behind the same
# one-thread-per-row first kernel, as pre-generated sparse-only projects in .lab/variants:
# spa, the chunk kernel on a grid of (SMs x its occupancy) blocks walking the chunks; spb,
# one block per chunk (the template). Both benchmarked; spb's tests and sanitizers run too.
# The variants were generated from commits 8ab7932 (spa, plus the occupancy query) and c3f5524
# (spb) and are not kept: this records what lab run 12 ran; run_round13.sh builds its own.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
mkdir -p "$OUT/logs"
for p in spa spb; do
    ( cd ".lab/variants/$p" && MAX_JOBS=16 timeout 120 python3 -m pip install --no-deps --no-build-isolation -e . \
        > "$OUT/logs/build_$p.log" 2>&1 ) && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }
done
for p in spa spb; do
    ( cd ".lab/variants/$p" && timeout 100 python3 -m benchmarks --json "$OUT/bench_$p.json" > "$OUT/bench_$p.txt" 2> "$OUT/logs/bench_$p.err" ) \
        || { echo "$p bench FAILED"; tail -5 "$OUT/logs/bench_$p.err"; }
    grep -E "spmv|lab variant" "$OUT/bench_$p.txt" "$OUT/logs/bench_$p.err" | sed "s/^/$p /"
done
for p in spb; do
    ( cd ".lab/variants/$p" && timeout 90 python3 -m pytest -q -p no:cacheprovider > "$OUT/logs/pytest_$p.log" 2>&1 )
    echo "$p pytest: $(tail -1 "$OUT/logs/pytest_$p.log")"
    for tool in memcheck racecheck initcheck; do
        ( cd ".lab/variants/$p" && timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" "$p" \
            > "$OUT/logs/sanitizer_${tool}_$p.log" 2>&1 ) && echo "$p compute-sanitizer $tool: clean" \
            || { echo "$p compute-sanitizer $tool: FAILED"; tail -8 "$OUT/logs/sanitizer_${tool}_$p.log"; }
    done
done
tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"
