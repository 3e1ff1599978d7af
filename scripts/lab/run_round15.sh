#!/usr/bin/env bash
# Lab round 15 on the H200 (eighth session): the template's SpMM without column panels and
# its SiLU with the fast-intrinsic 16-bit forward, each with tests, benchmark and sanitizers;
# SiLU's accurate 16-bit forward (acc) beside it in the same run; ncu on our SpMM and
# cuSPARSE's at k = 64, to name what limits both at wide k.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
python3 -m kernelgen new "$WORK/sp" --no-input --arch 9.0 -k sparse > /dev/null
for p in act acc; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k activation > /dev/null; done
sed -i 's/return __fdividef(x, 1.0f + __expf(-x));/return silu_forward_math(x);/' "$WORK/acc/acc/csrc/silu_math.h"
grep -c "__expf" "$WORK/act/act/csrc/silu_math.h" "$WORK/acc/acc/csrc/silu_math.h"
for p in sp act acc; do
    (cd "$WORK/$p" && MAX_JOBS=4 timeout 200 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1 \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }) &
done
wait

for p in sp act; do
    (cd "$WORK/$p" && timeout 150 python3 -m pytest -q -p no:cacheprovider tests > "$OUT/logs/pytest_$p.log" 2>&1)
    echo "$p pytest: $(tail -1 "$OUT/logs/pytest_$p.log")"
    grep -E "^(FAILED|ERROR)" "$OUT/logs/pytest_$p.log" | head -10
done
(cd "$WORK/sp" && timeout 120 python3 -m benchmarks --json "$OUT/bench_sp.json" > "$OUT/bench_sp.txt" 2> "$OUT/logs/bench_sp.err")
grep -E "spmm|spmv" "$OUT/bench_sp.txt"
echo "## silu: fast 16-bit forward (act) and accurate (acc)"
for p in act acc; do
    (cd "$WORK/$p" && timeout 90 python3 -m benchmarks > "$OUT/logs/bench_$p.txt" 2>&1)
    grep -E "n=268435456|n=65536" "$OUT/logs/bench_$p.txt" | sed "s/^/$p /"
done
cp "$OUT/logs/bench_act.txt" "$OUT/logs/bench_acc.txt" "$OUT/" 2> /dev/null
for p in sp act; do
    for tool in memcheck racecheck initcheck; do
        (cd "$WORK/$p" && timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" "$p" > "$OUT/logs/san_${p}_$tool.log" 2>&1) \
            && echo "$p compute-sanitizer $tool: clean" || { echo "$p compute-sanitizer $tool: FAILED ($?)"; tail -6 "$OUT/logs/san_${p}_$tool.log"; }
    done
done
echo "## ncu: SpMM at k = 64, ours and cuSPARSE"
timeout 200 ncu --nvtx --nvtx-include "measure/" --section SpeedOfLight \
    --metrics lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,l1tex__throughput.avg.pct_of_peak_sustained_elapsed \
    python3 "$REPO/scripts/lab/spmm_once.py" "$WORK/sp" sp > "$OUT/ncu_spmm.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|lts__|l1tex__|dram__bytes|ran " "$OUT/ncu_spmm.txt" | head -80
