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
