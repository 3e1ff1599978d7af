#!/usr/bin/env bash
# Lab round 11 on the H200 (written in the fifth session, not yet run): the longest-row
# dispatch SpMV (spmv.cu scheme 23) beside one-thread-per-row (plain and unroll8) and split3.
set -uo pipefail
cd "$(dirname "$0")"
export LAB_BUILD=$PWD/../../.lab LAB_PREBUILT=1
SPMV_SCHEMES=0,15,21,23 timeout 150 python3 lab.py spmv > "$OUT/lab11_spmv.txt" 2>&1 || echo "spmv: FAILED (rc $?)"
grep -E "\|" "$OUT/lab11_spmv.txt"
