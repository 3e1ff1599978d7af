#!/usr/bin/env bash
# Lab round 8 on the H200: hunting the bad elements run 13 found in the template's TMA kernel
# (bf16, 8192^3): element-wise counts over several launches for the lab kernel and safety
# variants (gemm4_check), then for the template itself, built in a fresh wmma-only project.
set -uo pipefail
cd "$(dirname "$0")"
REPO=$PWD/../..
export LAB_BUILD=$REPO/.lab LAB_PREBUILT=1
timeout 200 python3 lab.py gemm4_check > "$OUT/lab8.txt" 2>&1 || echo "lab: FAILED (rc $?)"
grep -E "\||Error|error" "$OUT/lab8.txt"
WORK=$(mktemp -d)
python3 -m pip install -q --no-deps --no-build-isolation -e "$REPO"
python3 -m kernelgen new "$WORK/w8" --no-input --arch 9.0 -k wmma > /dev/null
( cd "$WORK/w8" && MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -e . > "$OUT/build8.log" 2>&1 ) || { tail -20 "$OUT/build8.log"; exit 1; }
cd "$WORK/w8" && timeout 200 python3 - <<'PY'
import torch
from w8 import wmma_gemm
for dt in (torch.float16, torch.bfloat16):
    for out_dtype in (None, torch.float32):
        a = torch.randn(8192, 8192, device="cuda", dtype=dt); b = torch.randn(8192, 8192, device="cuda", dtype=dt)
        want = a.float() @ b.float()
        bad = []
        for _ in range(5):
            err = (wmma_gemm(a, b, out_dtype=out_dtype).float() - want).abs()
            bad.append(int(((err > 2.0 + 0.01 * want.abs()) | err.isnan()).sum()))
        print("template", dt, "out", out_dtype, "bad elements per launch:", bad, flush=True)
PY
