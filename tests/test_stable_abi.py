"""The stable-ABI variant (`kernelgen new --abi stable`): rendered, built as an abi3 wheel, tested.

The wheel is built against the torch installed here; that the same file runs under an older
torch is shown on the GPU machine by scripts/stable_abi_proof.sh (see PERFORMANCE.md).
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import PurePosixPath

import pytest
from test_end_to_end import cuda_build_expected, run, venv_seeing_this_environment

from kernelgen import KernelChoice, ProjectOptions, add_kernel, new_project
from kernelgen.generate import render_project
from kernelgen.manifest import read_manifest
from kernelgen.options import STABLE_ABI_MIN_TORCH, torch_target_version

ALL_KERNELS = (
    KernelChoice("vector_add", "vector_add"),
    KernelChoice("activation", "silu"),
    KernelChoice("sparse", "csr"),
    KernelChoice("wmma", "wmma_gemm"),
)
# What the C++ of a stable-ABI project may include from torch: the stable API, the header-only
# library, and the C shim. ATen, c10 and torch/library.h are the unstable C++ API.
STABLE_INCLUDE = re.compile(
    r"#include <torch/(csrc/stable/|headeronly/|csrc/inductor/aoti_torch/c/shim\.h)"
)


def stable_project(kernels: tuple[KernelChoice, ...] = ALL_KERNELS) -> dict[PurePosixPath, bytes]:
    files = render_project(ProjectOptions("ops", "ops", kernels, abi="stable")).files
    return files


def test_target_version_encodes_the_release_in_the_top_bytes():
    assert torch_target_version("2.10") == "0x020a000000000000"
    assert torch_target_version("2.9") == "0x0209000000000000"


def test_stable_sources_include_only_the_stable_api():
    files = stable_project()
    sources = {p: c.decode() for p, c in files.items() if p.suffix in (".cpp", ".h", ".cu", ".cuh")}
    assert len(sources) >= 16
    for path, text in sources.items():
        torch_includes = [line for line in text.splitlines() if line.startswith("#include <torch/")]
        assert all(STABLE_INCLUDE.match(line) for line in torch_includes), (path, torch_includes)
        assert "#include <ATen/" not in text and "#include <c10/" not in text, path
        assert "TORCH_LIBRARY(" not in text.replace("STABLE_TORCH_LIBRARY(", ""), path


def test_stable_and_standard_projects_share_the_cuda_kernels():
    standard = render_project(ProjectOptions("ops", "ops", ALL_KERNELS)).files
    stable = stable_project()
    kernels = [p for p in stable if p.name.endswith("_kernels.cuh")]
    assert len(kernels) == 4
    for path in kernels:
        assert stable[path] == standard[path], path
    for path in (PurePosixPath("ops/csrc/vector_add.cpp"), PurePosixPath("ops/csrc/cuda/csr.cu")):
        assert stable[path] != standard[path]


def test_stable_build_files_target_the_oldest_supported_torch():
    files = stable_project()
    setup = files[PurePosixPath("setup.py")].decode()
    assert f'TORCH_TARGET_VERSION = "{torch_target_version(STABLE_ABI_MIN_TORCH)}"' in setup
    assert f'install_requires=["torch>={STABLE_ABI_MIN_TORCH}"]' in setup
    assert "PY_LIMITED_API = True" in setup
    module = files[PurePosixPath("ops/csrc/module.cpp")].decode()
    assert "STABLE_TORCH_LIBRARY(ops, m) {}" in module
    activation = files[PurePosixPath("ops/ops/silu.py")].decode()
    assert "torch.library.register_autograd(\n    _ops.silu.default," in activation
    readme = files[PurePosixPath("README.md")].decode()
    assert "stable ABI" in readme and f"torch>={STABLE_ABI_MIN_TORCH}" in readme


def test_standard_project_stays_on_the_full_api():
    files = render_project(ProjectOptions("ops", "ops", ALL_KERNELS)).files
    assert "TORCH_TARGET_VERSION" not in files[PurePosixPath("setup.py")].decode()
    assert "register_autograd" not in files[PurePosixPath("ops/ops/silu.py")].decode()
    assert not any(p.name in ("stable_helpers.h", "stable_cuda.h") for p in files)


def test_add_kernel_follows_the_projects_abi(tmp_path):
    options = ProjectOptions("ops", "ops", ALL_KERNELS[:1], abi="stable")
    new_project(options, tmp_path / "p")
    add_kernel(tmp_path / "p", "sparse", "csr")
    assert read_manifest(tmp_path / "p").options.abi == "stable"
    assert "STABLE_TORCH_LIBRARY_FRAGMENT" in (tmp_path / "p/ops/csrc/csr.cpp").read_text()
    assert 'abi = "stable"' in (tmp_path / "p/kernelgen.toml").read_text()


def test_cli_abi_option(cli, tmp_path):
    result = cli("new", "s", "--no-input", "--abi", "stable")
    assert result.exit_code == 0, result.output
    assert read_manifest(tmp_path / "s").options.abi == "stable"
    refused = cli("new", "x", "--no-input", "--abi", "unstable")
    assert refused.exit_code == 2 and "'unstable' is not one of" in refused.output
    assert not (tmp_path / "x").exists()


@pytest.fixture(scope="module")
def stable_wheel(tmp_path_factory):
    """A stable-ABI project grown with add-kernel, built as a wheel with the standard command."""
    pytest.importorskip("torch", reason="torch is needed to build a generated project")
    root = tmp_path_factory.mktemp("stable")
    kernelgen = [sys.executable, "-m", "kernelgen"]
    run(
        [*kernelgen, "new", "st-ops", "--no-input", "--abi", "stable", "-k", "vector_add"], cwd=root
    )
    project = root / "st-ops"
    for template in ("activation", "sparse", "wmma"):
        run([*kernelgen, "add-kernel", template], cwd=project)
    run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-w",
            "dist",
            ".",
        ],
        cwd=project,
        timeout=3600,
    )
    (wheel,) = (project / "dist").glob("st_ops-*.whl")
    return project, wheel


@pytest.mark.slow
def test_stable_wheel_is_abi3_and_accepts_any_newer_torch(stable_wheel):
    _, wheel = stable_wheel
    assert "-abi3-" in wheel.name, wheel.name
    with zipfile.ZipFile(wheel) as archive:
        metadata = archive.read(
            next(n for n in archive.namelist() if n.endswith(".dist-info/METADATA"))
        ).decode()
    assert f"Requires-Dist: torch>={STABLE_ABI_MIN_TORCH}" in metadata.splitlines()


@pytest.mark.slow
def test_stable_extension_calls_no_unstable_torch_symbol(stable_wheel, tmp_path):
    _, wheel = stable_wheel
    with zipfile.ZipFile(wheel) as archive:
        (library,) = [n for n in archive.namelist() if re.fullmatch(r"st_ops/_C\..*so", n)]
        archive.extract(library, tmp_path)
    nm = shutil.which("nm")
    assert nm is not None, "nm (binutils) is needed to list the extension's symbols"
    undefined = subprocess.run(
        [nm, "-D", "--undefined-only", tmp_path / library],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    torch_cxx = [s for s in undefined.split() if s.startswith(("_ZN3c10", "_ZN2at", "_ZN5torch"))]
    assert torch_cxx == [], torch_cxx[:5]
    assert "aoti_torch_create_device_guard" in undefined  # it does call torch, through the C shim
    if cuda_build_expected() is None:
        assert "aoti_torch_get_current_cuda_stream" in undefined


@pytest.mark.slow
def test_stable_wheel_passes_its_test_suite_installed(stable_wheel, tmp_path):
    """The generated tests, run from a folder without the sources, against the installed wheel."""
    project, wheel = stable_wheel
    python = venv_seeing_this_environment(tmp_path / "venv")
    run([python, "-m", "pip", "install", "--no-deps", wheel], cwd=tmp_path)
    suite = tmp_path / "suite"
    for part in ("tests", "benchmarks"):
        shutil.copytree(project / part, suite / part)
    shutil.copy(project / "pyproject.toml", suite)
    result = run([python, "-m", "pytest", "-q", "-p", "no:cacheprovider"], cwd=suite)
    summary = result.stdout.strip().splitlines()[-1]
    assert " passed" in summary and "failed" not in summary, result.stdout[-3000:]
    where = run([python, "-c", "import st_ops; print(st_ops.__file__)"], cwd=suite).stdout
    assert str(tmp_path / "venv") in where
