"""Generated code passes the generated project's own formatters and linter, whatever its names.

Every project carries a .clang-format, a ruff configuration (pyproject.toml) and a
.pre-commit-config.yaml that runs both; here each rendered file goes through them, for the
default names and for short and long ones. The tools are the versions the pre-commit
configuration pins (both in kernelgen's test extra).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from kernelgen import KernelChoice, ProjectOptions, new_project

CPP_SUFFIXES = (".cpp", ".h", ".cu", ".cuh")

# (package, vector_add's, activation's, sparse's and wmma's names)
NAMES = {
    "default names": ("myops", None, None, None, None),
    "short names": ("op", "va", "act", "sp", "mm"),
    # The longest names kernelgen accepts (40 characters, options.MAX_NAME_LENGTH).
    "longest names": (
        "fused_attention_kernels_for_long_context",
        "elementwise_add_of_two_vectors_in_place_",
        "smooth_gated_linear_unit_activation_fwd_",
        "sparse_csr_matrix_times_dense_operand_v2",
        "tensor_core_half_precision_matrix_gemm_2",
    ),
    "another activation": ("myops", None, "gelu_tanh", None, None),
}


def tool(name: str) -> str:
    found = shutil.which(name, path=str(Path(sys.executable).parent)) or shutil.which(name)
    assert found, f"{name} is in kernelgen's test extra: pip install -e '.[test]'"
    return found


@pytest.fixture(
    scope="module",
    params=[(n, abi) for n in NAMES for abi in ("standard", "stable")],
    ids=lambda p: f"{p[0]}, {p[1]} ABI",
)
def project(request, tmp_path_factory) -> Path:
    names, abi = request.param
    package, *kernels = NAMES[names]
    templates = ("vector_add", "activation", "sparse", "wmma")
    choices = tuple(KernelChoice(t, n) for t, n in zip(templates, kernels, strict=True))
    root = tmp_path_factory.mktemp("fmt") / package
    new_project(ProjectOptions(package, package, choices, abi=abi), root)
    return root


def sources(root: Path, suffixes: tuple[str, ...]) -> list[Path]:
    return sorted(
        p for p in root.rglob("*") if p.suffix in suffixes and ".kernelgen" not in p.parts
    )


def test_cpp_and_cuda_are_clang_format_clean(project):
    files = sources(project, CPP_SUFFIXES)
    assert len(files) >= 16
    result = subprocess.run(
        [tool("clang-format"), "--dry-run", "--Werror", *map(str, files)],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]


def test_python_is_ruff_clean(project):
    lint = subprocess.run(
        [tool("ruff"), "check", "--no-cache", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert lint.returncode == 0, lint.stdout[-3000:]
    formatted = subprocess.run(
        [tool("ruff"), "format", "--check", "--diff", "--no-cache", "."],
        cwd=project,
        capture_output=True,
        text=True,
        check=False,
    )
    assert formatted.returncode == 0, formatted.stdout[-3000:] + formatted.stderr[-2000:]


def test_pre_commit_runs_the_same_tools(project):
    config = yaml.safe_load((project / ".pre-commit-config.yaml").read_text())
    hooks = {hook["id"]: repo["rev"] for repo in config["repos"] for hook in repo["hooks"]}
    ruff_version = subprocess.run(
        [tool("ruff"), "--version"], capture_output=True, text=True, check=True
    ).stdout.split()[1]
    clang_version = (
        subprocess.run(
            [tool("clang-format"), "--version"], capture_output=True, text=True, check=True
        )
        .stdout.split("version ")[1]
        .split()[0]
    )
    assert hooks == {
        "ruff": f"v{ruff_version}",
        "ruff-format": f"v{ruff_version}",
        "clang-format": f"v{clang_version}",
    }
    assert config["exclude"] == "^\\.kernelgen/"
