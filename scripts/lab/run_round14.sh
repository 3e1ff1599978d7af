#!/usr/bin/env bash
# Lab round 14 on the H200 (seventh session): the template's new SpMM (a group of lanes per
# row, 16 rows a warp for k = 8, column panels of 64) with its tests, benchmark and
# sanitizers; panel widths 64 / 32 / none side by side; ncu on our SpMV and cuSPARSE's on
# the random-column matrices; SiLU with __expf / __fdividef beside the template's.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
for p in spn spw sp32; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k sparse > /dev/null; done
sed -i 's/constexpr int64_t kPanel = 64;/constexpr int64_t kPanel = int64_t{1} << 40;/' "$WORK"/spw/spw/csrc/cuda/csr_kernels.cuh
sed -i 's/constexpr int64_t kPanel = 64;/constexpr int64_t kPanel = 32;/' "$WORK"/sp32/sp32/csrc/cuda/csr_kernels.cuh
grep -h "constexpr int64_t kPanel" "$WORK"/sp*/sp*/csrc/cuda/csr_kernels.cuh
for p in act actf; do python3 -m kernelgen new "$WORK/$p" --no-input --arch 9.0 -k activation > /dev/null; done
python3 - "$WORK/actf/actf/csrc/silu_math.h" <<'PY'
import pathlib, sys
h = pathlib.Path(sys.argv[1])
s = h.read_text()
fast = "#ifdef __CUDA_ARCH__\n  if constexpr (std::is_same_v<T, float>) {\n    %s\n  }\n#endif\n  "
s = s.replace("return x / (T(1) + std::exp(-x));",
              fast % "return __fdividef(x, 1.0f + __expf(-x));" + "return x / (T(1) + std::exp(-x));")
s = s.replace("const T s = T(1) / (T(1) + std::exp(-x));",
              fast % "const float f = __fdividef(1.0f, 1.0f + __expf(-x));\n    return f * (1.0f + x * (1.0f - f));"
              + "const T s = T(1) / (T(1) + std::exp(-x));")
s = s.replace("#include <cmath>", "#include <cmath>\n#include <type_traits>")
h.write_text(s)
print("actf math:", s.count("__expf"), "fast paths")
PY
for p in spn spw sp32 act actf; do
    (cd "$WORK/$p" && MAX_JOBS=3 timeout 200 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$p.log" 2>&1 \
        && echo "$p: built" || { echo "$p: BUILD FAILED"; tail -20 "$OUT/logs/build_$p.log"; }) &
done
wait

(cd "$WORK/spn" && timeout 150 python3 -m pytest -q -p no:cacheprovider tests/test_csr.py > "$OUT/logs/pytest_spn.log" 2>&1)
echo "spn pytest: $(tail -1 "$OUT/logs/pytest_spn.log")"
grep -E "^(FAILED|ERROR)" "$OUT/logs/pytest_spn.log" | head -10
(cd "$WORK/spn" && timeout 120 python3 -m benchmarks --json "$OUT/bench_spn.json" > "$OUT/bench_spn.txt" 2> "$OUT/logs/bench_spn.err")
grep -E "spmm|spmv" "$OUT/bench_spn.txt"
echo "## panels"
KS="32 64 128 256" timeout 120 python3 "$REPO/scripts/lab/spmm_compare.py" "$WORK/spn" spn spw sp32 2> "$OUT/logs/panels.err" | tee "$OUT/panels.txt"
cd "$WORK/spn"
for tool in memcheck racecheck initcheck; do
    timeout 90 compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" spn > "$OUT/logs/san_$tool.log" 2>&1 \
        && echo "spn compute-sanitizer $tool: clean" || { echo "spn compute-sanitizer $tool: FAILED ($?)"; tail -6 "$OUT/logs/san_$tool.log"; }
done
echo "## silu: template (act) and __expf/__fdividef (actf)"
for p in act actf; do
    (cd "$WORK/$p" && timeout 90 python3 -m benchmarks > "$OUT/logs/bench_$p.txt" 2>&1)
    grep -E "n=268435456|n=65536" "$OUT/logs/bench_$p.txt" | sed "s/^/$p /"
done
cp "$OUT/logs/bench_act.txt" "$OUT/logs/bench_actf.txt" "$OUT/" 2> /dev/null
(cd "$WORK/actf" && timeout 90 python3 -m pytest -q -p no:cacheprovider tests/test_silu.py > "$OUT/logs/pytest_actf.log" 2>&1)
echo "actf pytest: $(tail -1 "$OUT/logs/pytest_actf.log")"
echo "## ncu: SpMV on random columns, ours and cuSPARSE"
timeout 150 ncu --nvtx --nvtx-include "measure/" --section SpeedOfLight --section MemoryWorkloadAnalysis \
    --metrics lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,dram__bytes_read.sum \
    python3 "$REPO/scripts/lab/spmv_once.py" "$WORK/spn" spn > "$OUT/ncu_spmv.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|Memory Throughput|DRAM Throughput|L2 Cache Throughput|L1/TEX Cache Throughput|lts__t_sectors_op_read|hit_rate|dram__bytes" "$OUT/ncu_spmv.txt" | head -80
