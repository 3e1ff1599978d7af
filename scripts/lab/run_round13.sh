#!/usr/bin/env bash
# Lab round 13 on the H200 (written in the sixth session, whose device time ran out before
# it ran): SpMV with one thread per row first (scripts/lab/spmv_short_rows_first.patch: the
# run 17 design with the long-row flag raised only by blocks that find it down) beside the
# template's SpMV, as two sparse-only projects: benchmarks, tests, sanitizers; then ncu on
# bfloat16 and float16 SiLU forward.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
cp -r "$REPO/kernelgen" "$REPO/templates" "$REPO/reference_kernels" "$REPO/pyproject.toml" "$WORK/"
(cd "$WORK" && git apply "$REPO/scripts/lab/spmv_short_rows_first.patch") || { echo "patch FAILED"; exit 1; }
python3 -m kernelgen new "$WORK/spo" --no-input --arch 9.0 -k sparse > /dev/null          # the template
(cd "$WORK" && python3 -m kernelgen new "$WORK/spc" --no-input --arch 9.0 -k sparse > /dev/null)  # the candidate
for p in spo spc; do
    (cd "$WORK/$p" && MAX_JOBS=16 timeout 120 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1) \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; continue; }
    (cd "$WORK/$p" && timeout 100 python3 -m benchmarks --json "$OUT/bench_$p.json" > "$OUT/bench_$p.txt" 2> /dev/null)
    grep spmv "$OUT/bench_$p.txt" | sed "s/^/$p /"
done
for p in spo spc; do  # spo: this session's new SpMV tests had not met the template's CUDA kernel
    (cd "$WORK/$p" && timeout 120 python3 -m pytest -q -p no:cacheprovider tests/test_csr.py > "$OUT/logs/pytest_$p.log" 2>&1)
    echo "$p pytest: $(tail -1 "$OUT/logs/pytest_$p.log")"
done
cd "$WORK/spc"
for tool in memcheck racecheck initcheck; do
    timeout 60 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" spc > "$WORK/san_$tool.log" 2>&1 \
        && echo "spc compute-sanitizer $tool: clean" || { echo "spc compute-sanitizer $tool: FAILED ($?)"; tail -6 "$WORK/san_$tool.log"; }
done

# What holds bfloat16 SiLU forward at 93% of copy bandwidth where float16 makes 99%: ncu on one
# launch of each (the vector kernel; the scalar one covers unaligned tensors only).
(cd "$REPO" && python3 -m kernelgen new "$WORK/act" --no-input --arch 9.0 -k activation > /dev/null)
(cd "$WORK/act" && MAX_JOBS=16 timeout 120 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_act.log" 2>&1) \
    || { echo "act: BUILD FAILED"; tail -20 "$OUT/logs/build_act.log"; exit 1; }
timeout 120 ncu --kernel-name regex:silu_kernel --section SpeedOfLight --section ComputeWorkloadAnalysis \
    --section InstructionStats --section WarpStateStats python3 "$REPO/scripts/lab/silu_once.py" act > "$OUT/ncu_silu.txt" 2>&1
grep -E "silu_kernel|Memory Throughput|DRAM Throughput|Issue Slots Busy|Executed Ipc|Stall|Pipe" "$OUT/ncu_silu.txt" | head -60
