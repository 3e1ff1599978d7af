#!/usr/bin/env bash
# The GPU verification run, in one call on the device machine (see PERFORMANCE.md):
# generate a project with every reference kernel, build it for sm_90, run its whole test
# suite with CUDA, run memcheck, racecheck and initcheck over every op, and run the benchmarks.
# Into $OUT (default ./out) go summary.txt (what this prints), the benchmark's bench.log,
# bench.json and bench.png, and logs.tar.gz with every other log: five files, since the
# device tool brings back at most eight. The benchmark tables are printed last.
# ABI=stable checks the stable-ABI variant; BENCH=0 skips the benchmarks; SM80=0 / SM75=0
# skip the wmma op's compute_80 / compute_75 builds; NCU=1 profiles SpMV on random columns,
# ours and cuSPARSE's; CHECKS=0 skips the tests, the wmma soak, the compute_80 and compute_75
# builds and the sanitizers.
set -euo pipefail
export PYTHONUNBUFFERED=1
OUT=${OUT:-$PWD/out}
REPO=$PWD
WORK=$(mktemp -d)
LOGS=$WORK/logs
mkdir -p "$OUT" "$LOGS"
exec > >(tee "$OUT/summary.txt") 2>&1
trap 'tar -czf "$OUT/logs.tar.gz" -C "$WORK" logs' EXIT

nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv | tee "$LOGS/gpu.txt"
python3 -c "import torch; print('torch', torch.__version__, 'cuda', torch.version.cuda)" | tee -a "$LOGS/gpu.txt"

python3 -m pip install -q --no-deps --no-build-isolation -e "$REPO"
python3 -m kernelgen new "$WORK/h200ops" --no-input --arch 9.0 --abi "${ABI:-standard}" \
    -k vector_add -k activation -k activation=gelu -k sparse -k wmma > "$LOGS/new.log"
cd "$WORK/h200ops"

start=$(date +%s)
# -Xptxas -v: every kernel's registers, shared memory and spills go into the build log.
if ! NVCC_APPEND_FLAGS="-Xptxas -v" MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -v -e . > "$LOGS/build.log" 2>&1; then
    grep -E "error|Error" "$LOGS/build.log" | head -40
    exit 1
fi
echo "build: $(( $(date +%s) - start )) s"
python3 - "$LOGS/build.log" <<'PY'
import re, sys
lines = open(sys.argv[1]).read().splitlines()
spilling = [l.strip() for l in lines if re.search(r"[1-9][0-9]* bytes spill (stores|loads)", l)]
print(f"ptxas: {len(spilling)} kernels with spills" + "".join("\n  " + l for l in spilling))
for i, line in enumerate(lines):  # the wmma kernels' resource use, one line each
    if "Compiling entry function" in line and (kernel := re.search(r"wmma_gemm(_tma)?_kernelI(\w+?)EEv", line)):
        used = next((l for l in lines[i + 1 : i + 4] if "Used" in l), "")
        print("ptxas:", kernel.group(0)[:-3], re.search(r"for '(\w+)'", line).group(1), used.split(":")[-1].strip())
PY
python3 -c "import h200ops; assert h200ops._C.built_with_cuda == 1; print('built with CUDA')"
grep -E "^h200ops: " "$LOGS/build.log" || true
ldd h200ops/_C*.so | grep -E "stdc\+\+" || echo "no shared libstdc++ in ldd"

if [ "${CHECKS:-1}" = 1 ]; then
    python3 -m pytest -q -ra -p no:cacheprovider ${PYTEST_ARGS:-} > "$LOGS/pytest.log" 2>&1 || echo "pytest: FAILED"
    grep -E "^(FAILED|ERROR)|passed|failed" "$LOGS/pytest.log" | tail -25

    python3 "$REPO/scripts/wmma_soak.py" h200ops 20 || echo "wmma soak: FAILED"

    # The wmma op's pre-Hopper path on this GPU: built from compute_80 PTX alone, its TMA kernel is
    # the trap, so the launcher must pick the cp.async kernel (and the tests show it did).
    if [ "${SM80:-1}" = 1 ]; then
        python3 -m kernelgen new "$WORK/sm80ops" --no-input --arch 8.0 --abi "${ABI:-standard}" -k wmma > "$LOGS/new_sm80.log"
        ( cd "$WORK/sm80ops" && TORCH_CUDA_ARCH_LIST="8.0+PTX" MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -v -e . \
            > "$LOGS/build_sm80.log" 2>&1 && python3 -m pytest -q -p no:cacheprovider tests/test_wmma_gemm.py > "$LOGS/pytest_sm80.log" 2>&1 ) \
            && echo "sm_80 PTX build, wmma tests: $(tail -1 "$LOGS/pytest_sm80.log")" \
            || { echo "sm_80 PTX build or wmma tests: FAILED"; tail -15 "$LOGS/pytest_sm80.log" "$LOGS/build_sm80.log" 2> /dev/null | tail -25; }
    fi

    # The wmma op's pre-Ampere kernel on this GPU: built from compute_75 PTX alone, the cp.async
    # kernel copies with plain loads through 2 stages (37 KB of shared memory, what sm_75 allows);
    # float16 must be right, and bfloat16 (a trap in that build) must fail the call cleanly.
    if [ "${SM75:-1}" = 1 ]; then
        python3 -m kernelgen new "$WORK/sm75ops" --no-input --arch 7.5 --abi "${ABI:-standard}" -k wmma > "$LOGS/new_sm75.log"
        ( cd "$WORK/sm75ops" && TORCH_CUDA_ARCH_LIST="7.5+PTX" MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -v -e . \
            > "$LOGS/build_sm75.log" 2>&1 && python3 -m pytest -q -p no:cacheprovider tests/test_wmma_gemm.py -k "not bfloat16" > "$LOGS/pytest_sm75.log" 2>&1 \
            && python3 -c "
import torch, sm75ops
a = torch.randn(64, 64, device='cuda', dtype=torch.bfloat16)
try:
    sm75ops.wmma_gemm(a, a)
except RuntimeError as e:
    assert 'no kernel image' in str(e), e
    print('bfloat16 refused:', str(e).splitlines()[0][:100])
else:
    raise SystemExit('bfloat16 ran in a compute_75 build')
assert torch.allclose(sm75ops.wmma_gemm(a.half(), a.half()).float(), a.half().float() @ a.half().float(), atol=1e-1)
print('CUDA context still usable')
" >> "$LOGS/pytest_sm75.log" 2>&1 ) \
            && echo "sm_75 PTX build, wmma float16 tests: $(grep -E 'passed|failed' "$LOGS/pytest_sm75.log" | tail -1); $(tail -2 "$LOGS/pytest_sm75.log" | tr '\n' ' ')" \
            || { echo "sm_75 PTX build or wmma tests: FAILED"; tail -15 "$LOGS/pytest_sm75.log" "$LOGS/build_sm75.log" 2> /dev/null | tail -25; }
    fi

    for tool in memcheck racecheck initcheck; do
        compute-sanitizer --tool "$tool" --error-exitcode 99 python3 "$REPO/scripts/exercise_ops.py" h200ops \
            > "$LOGS/sanitizer_$tool.log" 2>&1 && echo "compute-sanitizer $tool: clean" \
            || { echo "compute-sanitizer $tool: FAILED"; tail -30 "$LOGS/sanitizer_$tool.log"; }
    done
fi

# NCU=1: what limits SpMV on random columns, ours against cuSPARSE's kernel (L2 sectors read,
# L2 and DRAM throughput), on the benchmark's power-law and uniform matrices.
if [ "${NCU:-0}" = 1 ]; then
    timeout 150 ncu --nvtx --nvtx-include "measure/" --section SpeedOfLight \
        --metrics lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,dram__bytes_read.sum \
        python3 "$REPO/scripts/lab/spmv_once.py" "$WORK/h200ops" h200ops random > "$LOGS/ncu_spmv.txt" 2>&1 \
        || echo "ncu: FAILED (rc $?)"
    grep -E "^  [a-zA-Z_].*\(|Duration|L2 Cache Throughput|DRAM Throughput|lts__t_sectors_op_read|dram__bytes" \
        "$LOGS/ncu_spmv.txt" | head -60
fi

if [ "${BENCH:-1}" = 0 ]; then exit 0; fi
plot=()
python3 -c "import matplotlib" 2> /dev/null && plot=(--plot "$OUT/bench.png")
python3 -m benchmarks --json "$OUT/bench.json" "${plot[@]}" > "$OUT/bench.log" 2> "$LOGS/bench_progress.log" \
    || { echo "benchmarks: FAILED"; tail -20 "$LOGS/bench_progress.log"; }
cat "$OUT/bench.log"
