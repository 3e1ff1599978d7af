#!/usr/bin/env bash
# Lab round 20 on the H200 (eighth session): ncu on our SpMV and cuSPARSE's on the 256^3
# stencil (int32 and int64 indices), to name what holds the int32 case at ~1.1x.
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=$(mktemp -d)
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
python3 -m kernelgen new "$WORK/sp" --no-input --arch 9.0 -k sparse > /dev/null
(cd "$WORK/sp" && MAX_JOBS=16 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_sp.log" 2>&1) \
    && echo "sp: built" || { echo "sp: BUILD FAILED"; tail -20 "$OUT/logs/build_sp.log"; exit 1; }
timeout 200 ncu --nvtx --nvtx-include "measure/" --section SpeedOfLight \
    --metrics dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sectors_op_read.sum,lts__t_sector_hit_rate.pct,l1tex__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum \
    python3 "$REPO/scripts/lab/spmv_once.py" "$WORK/sp" sp stencil > "$OUT/ncu_spmv_stencil.txt" 2>&1
grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput|Compute \(SM\) Throughput|lts__|l1tex__|dram__bytes|sm__warps|smsp__inst|ran " "$OUT/ncu_spmv_stencil.txt" | cut -c1-160 | head -120 || true
