#!/usr/bin/env bash
# SpMM variants side by side on the H200: the template's sparse kernel (sp) and one copy per
# NAME=SED argument, that sed expression applied to its csr_kernels.cuh; all built, then timed
# in one process against cuSPARSE (spmm_compare.py). The lab rounds that compare SpMM layouts
# call this with their variants; with WORK set, the projects are left in that folder.
#   OUT=$OUT bash scripts/lab/spmm_variants.sh 'b4=s/kBatch = 8;/kBatch = 4;/' ...
set -uo pipefail
export PYTHONUNBUFFERED=1
REPO=$PWD
WORK=${WORK:-$(mktemp -d)}  # the projects stay there for a caller to reuse
mkdir -p "$OUT/logs"  # the device tool returns 8 files: logs go back as one tarball
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT
names=(sp)
python3 -m kernelgen new "$WORK/sp" --no-input --arch 9.0 -k sparse > /dev/null
for variant in "$@"; do
    name=${variant%%=*}
    names+=("$name")
    python3 -m kernelgen new "$WORK/$name" --no-input --arch 9.0 -k sparse > /dev/null
    header=$WORK/$name/$name/csrc/cuda/csr_kernels.cuh
    before=$(md5sum < "$header")
    sed -i "${variant#*=}" "$header"
    [ "$(md5sum < "$header")" != "$before" ] || { echo "$name: the sed expression changed nothing"; exit 1; }
done
for name in "${names[@]}"; do
    (cd "$WORK/$name" && MAX_JOBS=5 timeout 240 python3 -m pip install -q --no-deps --no-build-isolation -e . > "$OUT/logs/build_$name.log" 2>&1 \
        && echo "$name: built" || { echo "$name: BUILD FAILED"; tail -20 "$OUT/logs/build_$name.log"; }) &
done
wait
echo "## SpMM: ${names[*]}"
timeout 150 python3 "$REPO/scripts/lab/spmm_compare.py" "$WORK/sp" "${names[@]}" 2> "$OUT/logs/compare.err" | tee "$OUT/compare.txt"
grep -v Warning "$OUT/logs/compare.err" | grep -v sparse_csr_tensor | tail -5
