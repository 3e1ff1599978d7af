#!/usr/bin/env bash
# The multi-GPU run (issue: generated ops on two GPUs). On a machine with >= 2 GPUs: build a
# project with every reference kernel, run its test suite (the device-guard tests run there:
# each op on cuda:1 while cuda:0 is current), then 2-process DDP over NCCL with silu and
# wmma_gemm. With one GPU, the same DDP check runs over gloo with both ranks on cuda:0.
set -euo pipefail
export PYTHONUNBUFFERED=1 NCCL_NVLS_ENABLE=0 TORCH_SYMM_MEM_DISABLE_MULTICAST=1 NVSHMEM_DISABLE_NVLS=1
OUT=${OUT:-$PWD/out}
mkdir -p "$OUT"
REPO=$PWD
WORK=$(mktemp -d)
python3 -m pip install -q --no-deps --no-build-isolation -e "$REPO"
python3 -m kernelgen new "$WORK/gpuops" --no-input -k vector_add -k activation -k sparse -k wmma > /dev/null
cd "$WORK/gpuops"
MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -e . > "$OUT/build.log" 2>&1 || { tail -30 "$OUT/build.log"; exit 1; }
gpus=$(python3 -c "import torch; print(torch.cuda.device_count())")
echo "GPUs visible: $gpus"
if [ -z "${SKIP_PYTEST:-}" ]; then
    python3 -m pytest -q -ra -p no:cacheprovider > "$OUT/pytest.log" 2>&1 || echo "pytest: FAILED"
    grep -E "^(FAILED|ERROR|SKIPPED)|passed|failed" "$OUT/pytest.log" | tail -20
fi
if [ "$gpus" -ge 2 ]; then
    torchrun --standalone --nproc-per-node 2 "$REPO/scripts/ddp_check.py" gpuops
else
    torchrun --standalone --nproc-per-node 2 "$REPO/scripts/ddp_check.py" gpuops --backend gloo --one-gpu
fi
