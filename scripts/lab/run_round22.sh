#!/usr/bin/env bash
# Lab round 22 on the H200 (ninth session): each SpMV kernel's warm time on the template with
# the secant guess (spmv_kernels.py), to set beside lab round 21's (mean-length guess).
set -uo pipefail
export PYTHONUNBUFFERED=1
WORK=$(mktemp -d)
python3 -m kernelgen new "$WORK/sp" --no-input --arch 9.0 -k sparse > /dev/null
(cd "$WORK/sp" && MAX_JOBS=16 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/build.log" 2>&1) \
    || { echo "BUILD FAILED"; tail -20 "$OUT/build.log"; exit 1; }
timeout 120 python3 "$(dirname "$0")/spmv_kernels.py" "$WORK/sp" sp 2>&1 | tee "$OUT/spmv_kernels.txt"
