#!/usr/bin/env bash
# The stable-ABI proof (issue 13): one wheel, built once, runs under another torch unchanged.
#
#   bash scripts/stable_abi_proof.sh build   # here: torch 2.14.1, no GPU
#   bash scripts/stable_abi_proof.sh run     # on the GPU machine: torch 2.11, an H200
#
# `build` generates the same four-kernel project twice, on the stable and on the standard ABI,
# builds a wheel of each for sm_90 against the installed torch, and puts the wheels and the
# generated tests and benchmarks in .proof/ (git-ignored; carried to the GPU machine).
# `run` installs the stable wheel with `pip install --no-deps`, unchanged, runs the generated
# test suite (CUDA included) and the benchmarks from a folder holding no sources, then
# replaces it with the standard-ABI wheel and shows that one failing to import.
set -euo pipefail
export PYTHONUNBUFFERED=1
REPO=$(cd "$(dirname "$0")/.." && pwd)
PROOF=$REPO/.proof
KERNELS=(-k vector_add -k activation -k sparse -k wmma)

build() {
    rm -rf "$PROOF" && mkdir -p "$PROOF/wheels"
    local work
    work=$(mktemp -d)
    python -c "import torch; print('building with torch', torch.__version__)"
    for abi in stable standard; do
        python -m kernelgen new "$work/$abi/proofops" --no-input --arch 9.0 --abi "$abi" "${KERNELS[@]}" > /dev/null
        (cd "$work/$abi/proofops" && TORCH_CUDA_ARCH_LIST=9.0 MAX_JOBS=${MAX_JOBS:-2} \
            pip wheel --no-deps --no-build-isolation -w "$PROOF/wheels/$abi" . > "$PROOF/build_$abi.log" 2>&1) \
            || { tail -30 "$PROOF/build_$abi.log"; exit 1; }
        echo "$abi: $(basename "$PROOF"/wheels/$abi/*.whl)"
    done
    cp -r "$work/stable/proofops/tests" "$work/stable/proofops/benchmarks" "$work/stable/proofops/pyproject.toml" "$PROOF/"
    rm -rf "$work"
}

run() {
    python3 -c "import torch; print('running with torch', torch.__version__, 'on', torch.cuda.get_device_name())"
    local suite
    suite=$(mktemp -d)  # no proofops/ sources here: the tests import the installed wheel
    cp -r "$PROOF/tests" "$PROOF/benchmarks" "$PROOF/pyproject.toml" "$suite/"
    cd "$suite"

    echo "== the stable-ABI wheel, installed unchanged =="
    python3 -m pip install -q --no-deps --force-reinstall "$PROOF"/wheels/stable/*.whl
    python3 -c "import proofops; assert proofops._C.built_with_cuda == 1; print('imported', proofops.__file__)"
    python3 -m pytest -q -p no:cacheprovider 2>&1 | tail -3
    python3 -m benchmarks 2> /dev/null || echo "benchmarks: FAILED"

    echo "== the standard-ABI wheel of the same project, built with the same torch =="
    python3 -m pip uninstall -q -y proofops
    python3 -m pip install -q --no-deps "$PROOF"/wheels/standard/*.whl
    if python3 -c "import proofops" 2> import_error.txt; then
        echo "the standard-ABI wheel imported: the ABIs did not differ here"
    else
        echo "the standard-ABI wheel fails to import, as expected:"
        tail -1 import_error.txt
    fi
    python3 -m pip uninstall -q -y proofops
}

"${1:?usage: stable_abi_proof.sh build|run}"
