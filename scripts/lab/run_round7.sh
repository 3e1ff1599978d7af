#!/usr/bin/env bash
# Lab round 7 on the H200, after the check run: the per-chunk adaptive SpMV (spmv.cu scheme 22)
# beside the one-thread-per-row kernels and split3 in the same process.
set -uo pipefail
cd "$(dirname "$0")"
export LAB_BUILD=$PWD/../../.lab LAB_PREBUILT=1
SPMV_SCHEMES=0,15,21,22 timeout 150 python3 lab.py spmv > "$OUT/lab7_spmv.txt" 2>&1 || echo "spmv: FAILED (rc $?)"
grep -E "\|" "$OUT/lab7_spmv.txt"
