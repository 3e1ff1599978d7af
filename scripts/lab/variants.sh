# Sourced (not run) by the lab rounds that compare variants of the sparse kernels on the
# H200: a work folder ($WORK, kept when the caller sets it), logs in $OUT/logs returned as
# one tarball (the device tool brings back at most 8 files), a sparse project per variant
# with its kernels header patched, and the projects' builds in parallel. Sets $LAB.
set -uo pipefail
export PYTHONUNBUFFERED=1
LAB=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
WORK=${WORK:-$(mktemp -d)}
PATCHES=${PATCHES:-$LAB/round23}  # a round sets its own folder after sourcing this
mkdir -p "$OUT/logs"
trap 'tar -czf "$OUT/logs.tar.gz" -C "$OUT" logs && rm -rf "$OUT/logs"' EXIT

# FOLDER: a round's start from round 38 on: its patches in $LAB/FOLDER, and $WORK emptied.
start_round() {
    PATCHES=$LAB/$1
    rm -rf "$WORK" && mkdir -p "$WORK"
}

# NAME [PATCH [SED]]: the project $WORK/NAME (package NAME), its csr_kernels.cuh patched with
# $PATCHES/PATCH and then edited by the sed expression SED. PATCHES defaults to round23/,
# whose patches are against the sparse template of commit ed3eb58, before lab rounds 23-25's
# winners went into it; each later round's folder names the commit its patches are against.
variant() {
    python3 -m kernelgen new "$WORK/$1" --no-input --arch 9.0 -k sparse > /dev/null
    local header=$WORK/$1/$1/csrc/cuda/csr_kernels.cuh
    if [ -n "${2:-}" ]; then
        patch -s "$header" < "$PATCHES/$2" || { echo "$1: patch failed"; exit 1; }
    fi
    if [ -n "${3:-}" ]; then
        local before
        before=$(md5sum < "$header")
        sed -i "$3" "$header"
        [ "$(md5sum < "$header")" != "$before" ] || { echo "$1: the sed expression changed nothing"; exit 1; }
    fi
}

# NAME FILE PATCH: patch the variant's FILE (a path inside its package, e.g. csrc/cuda/csr.cu)
# with $PATCHES/PATCH, for the variants that change more than the kernels header.
patch_file() {
    patch -s "$WORK/$1/$1/$2" < "$PATCHES/$3" || { echo "$1: patch of $2 failed"; exit 1; }
}

# NAME: a change to the kernels header and the host code on both ABIs: the variant NAME
# (NAME.patch, NAME_cu.patch) and its stable-ABI build NAMEs (NAME.patch, NAME_stable_cu.patch).
variant_both_abis() {
    variant "$1" "$1.patch"
    patch_file "$1" csrc/cuda/csr.cu "$1_cu.patch"
    python3 -m kernelgen new "$WORK/$1s" --no-input --arch 9.0 --abi stable -k sparse > /dev/null
    patch_file "$1s" csrc/cuda/csr_kernels.cuh "$1.patch"
    patch_file "$1s" csrc/cuda/csr.cu "$1_stable_cu.patch"
}

# NAME...: pip install -e each variant's project, all at once (MAX_JOBS compiles each).
build_variants() {
    local name
    for name in "$@"; do
        (cd "$WORK/$name" && MAX_JOBS=${MAX_JOBS:-3} timeout 300 python3 -m pip install -q --no-deps --no-build-isolation -e . \
            > "$OUT/logs/build_$name.log" 2>&1 && echo "$name: built" \
            || { echo "$name: BUILD FAILED"; tail -20 "$OUT/logs/build_$name.log"; }) &
    done
    wait
}

# NAME...: wrong calls of each variant's csr_spmv on fresh random matrices (spmv_repeat.py,
# CALLS per small shape), matrices and tests taken from the first variant's project.
check_wrong_calls() {
    local name checks=$WORK/../$(basename "$WORK")_checks  # not in $WORK: its project folders would shadow the packages
    mkdir -p "$checks" && cp "$LAB/spmv_repeat.py" "$checks/"
    echo "## wrong calls on fresh random matrices"
    for name in "$@"; do
        timeout 60 python3 "$checks/spmv_repeat.py" "$WORK/$1" "${CALLS:-50}" "$name" 2> "$OUT/logs/repeat_$name.err" \
            | tee -a "$OUT/repeat.txt" | grep -v "^package"
        grep -q Error "$OUT/logs/repeat_$name.err" && echo "$name: $(grep -m1 Error "$OUT/logs/repeat_$name.err")"
    done
}

# SANITIZED NAME...: the CUDA cases of each NAME's tests/test_csr.py, and memcheck,
# racecheck and initcheck over SANITIZED's ops (scripts/exercise_ops.py), all at once.
test_and_sanitize() {
    local sanitized=$1 name tool
    shift
    echo "## tests (CUDA cases of tests/test_csr.py) and sanitizers over $sanitized's ops"
    for name in "$@"; do
        (cd "$WORK/$name" && timeout 120 python3 -m pytest -q -k cuda tests/test_csr.py > "$OUT/logs/test_$name.log" 2>&1
         echo "$name tests: $(tail -1 "$OUT/logs/test_$name.log")") &
    done
    for tool in memcheck racecheck initcheck; do
        (timeout 150 compute-sanitizer --tool $tool --error-exitcode 1 python3 "$LAB/../exercise_ops.py" "$sanitized" \
            > "$OUT/logs/$tool.log" 2>&1
         echo "$tool: rc $? $(grep -E "ERROR SUMMARY|RACECHECK SUMMARY" "$OUT/logs/$tool.log" | tr '\n' ' ')"
         grep -m3 -E "Invalid|Race|hazard|Uninitialized" "$OUT/logs/$tool.log") &
    done
    wait
}

# OP PROJECT NAME...: each NAME's csr_OP (spmv or spmm) against cuSPARSE ($LAB/OP_compare.py,
# on the matrices of $WORK/PROJECT's benchmark), in the order given and then reversed, into
# $OUT/OP_compare.txt.
time_both_orders() {
    local op=$1 project=$2 name reversed=()
    shift 2
    for name in "$@"; do
        reversed=("$name" "${reversed[@]}")
    done
    echo "## csr_$op timing: $*, then ${reversed[*]}"
    timeout 150 python3 "$LAB/${op}_compare.py" "$WORK/$project" "$@" 2> "$OUT/logs/${op}_compare.err" | tee "$OUT/${op}_compare.txt"
    timeout 150 python3 "$LAB/${op}_compare.py" "$WORK/$project" "${reversed[@]}" 2>> "$OUT/logs/${op}_compare.err" | tee -a "$OUT/${op}_compare.txt"
    grep -v Warning "$OUT/logs/${op}_compare.err" | grep -v sparse_csr_tensor | tail -5
}

# NAME: an SpMM long-row round (42-43): the template and NAME on both ABIs built, NAME's
# CUDA tests on both and the sanitizers over its ops, SpMM against cuSPARSE at k = 8-128 in
# both orders, and ncu of NAME's long-row kernels at k = 64 (the template's: lab round 41).
spmm_long_rows_round() {
    variant tpl
    variant_both_abis "$1"
    MAX_JOBS=5 build_variants tpl "$1" "$1s"
    test_and_sanitize "$1" "$1" "$1s"
    KS="8 32 64 128" time_both_orders spmm tpl tpl "$1"
    echo "## ncu: $1's long-row kernels at k = 64, stencil then power-law rows"
    KS=64 timeout 120 ncu --nvtx --nvtx-include "measure/" -k regex:long_rows --section SpeedOfLight \
        python3 "$LAB/spmm_once.py" "$WORK/tpl" "$1" > "$OUT/logs/ncu_$1.txt" 2>&1 || echo "ncu: FAILED (rc $?)"
    grep -E "^  [a-zA-Z_].*\(|Duration|DRAM Throughput|L2 Cache Throughput" "$OUT/logs/ncu_$1.txt" | sed -E 's/\(const.*//' | head -16
}

# PROJECT NAME...: time_both_orders for csr_spmv, as rounds 32-37 call it.
time_spmv_both_orders() {
    time_both_orders spmv "$@"
}
