#!/usr/bin/env bash
# Lab round 9 on the H200: the float32-output launches of the TMA GEMM, where run 14's soak
# still found bad elements after the epilogue scratch moved: 40 launches per variant (own
# scratch, + proxy fence before the release, release after the MMAs, scratch in stage 0), then
# the template's cp.async kernel (the TMA path taken out again) soaked the same way.
set -uo pipefail
cd "$(dirname "$0")"
REPO=$PWD/../..
export LAB_BUILD=$REPO/.lab LAB_PREBUILT=1
timeout 200 python3 lab.py gemm4_check32 > "$OUT/lab9.txt" 2>&1 || echo "lab: FAILED (rc $?)"
grep -E "\||Error|error" "$OUT/lab9.txt"
WORK=$(mktemp -d)
python3 -m pip install -q --no-deps --no-build-isolation -e "$REPO"
python3 -m kernelgen new "$WORK/w9" --no-input --arch 9.0 -k wmma > /dev/null
( cd "$WORK/w9" && MAX_JOBS=16 python3 -m pip install --no-deps --no-build-isolation -e . > "$OUT/build9.log" 2>&1 ) || { tail -20 "$OUT/build9.log"; exit 1; }
cd "$WORK/w9" && timeout 200 python3 "$REPO/scripts/wmma_soak.py" w9 40
