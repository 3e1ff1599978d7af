#!/usr/bin/env bash
# Lab round 16 on the H200 (eighth session): the template's SpMM (sp: spmm_segment for every
# row when the group is the whole warp, the long-row kernel's rows found by galloping from
# the mean-length guess) with its tests and sanitizers, beside spg (group rows at k > 64, as
# lab round 15) and spb (spg with the long-row kernel's old bisection), in one process.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
for p in sp spg spb; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k sparse > /dev/null; done
for p in spg spb; do
    sed -i 's/constexpr int64_t group_row = kRowsPerWarp > 1 ? kGroupRow : 0;/constexpr int64_t group_row = kGroupRow;/' \
        "$WORK/$p/$p/csrc/cuda/csr_kernels.cuh"
done
python3 - "$WORK/spb/spb/csrc/cuda/csr_kernels.cuh" <<'PY'
import pathlib, sys
h = pathlib.Path(sys.argv[1])
s = h.read_text()
gallop = """  return first_row_where(rows, mean_length_guess(rows, nnz, position),
      [=](int64_t r) { return static_cast<int64_t>(crow[r + 1]) > position; });"""
bisect = """  int64_t lo = 0;
  int64_t hi = rows;
  while (lo < hi) {
    const int64_t mid = (lo + hi + 1) / 2;
    if (static_cast<int64_t>(crow[mid]) <= position) {
      lo = mid;
    } else {
      hi = mid - 1;
    }
  }
  return lo;"""
assert gallop in s
h.write_text(s.replace(gallop, bisect))
PY
grep -c "group_row = kGroupRow;" "$WORK"/sp*/sp*/csrc/cuda/csr_kernels.cuh
for p in sp spg spb; do
    (cd "$WORK/$p" && MAX_JOBS=5 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1 \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }) &
done
wait
(cd "$WORK/sp" && timeout 150 python3 -m pytest -q -p no:cacheprovider tests > "$OUT/logs/pytest_sp.log" 2>&1)
echo "sp pytest: $(tail -1 "$OUT/logs/pytest_sp.log")"
grep -E "^(FAILED|ERROR)" "$OUT/logs/pytest_sp.log" | head -10
echo "## SpMM: sp / spg / spb"
timeout 150 python3 "$REPO/scripts/lab/spmm_compare.py" "$WORK/sp" sp spg spb 2> "$OUT/logs/compare.err" | tee "$OUT/compare.txt"
tail -5 "$OUT/logs/compare.err"
for tool in memcheck racecheck initcheck; do
    (cd "$WORK/sp" && timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" sp > "$OUT/logs/san_$tool.log" 2>&1) \
        && echo "sp compute-sanitizer $tool: clean" || { echo "sp compute-sanitizer $tool: FAILED ($?)"; tail -6 "$OUT/logs/san_$tool.log"; }
done
(cd "$WORK/sp" && timeout 100 python3 -m benchmarks --json "$OUT/bench_sp.json" > "$OUT/bench_sp.txt" 2> "$OUT/logs/bench_sp.err")
grep -E "spmm|spmv" "$OUT/bench_sp.txt"
