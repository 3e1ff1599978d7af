"""`pip install .` into a fresh virtual environment gives a working kernelgen, templates
included, without torch, and a CLI that starts fast."""

from __future__ import annotations

import subprocess
import time
import venv
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def installed(tmp_path_factory) -> Path:
    """bin/ of a fresh venv (no system packages) with kernelgen installed from a copy of the repo."""
    env_dir = tmp_path_factory.mktemp("pkg") / "venv"
    venv.create(env_dir, with_pip=True)
    result = subprocess.run(
        [env_dir / "bin" / "python", "-m", "pip", "install", "-q", str(REPO)],
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return env_dir / "bin"


def test_installed_cli_generates_every_template(installed, tmp_path):
    listing = subprocess.run(
        [installed / "kernelgen", "list"], capture_output=True, text=True, check=True
    )
    for template in ("vector_add", "activation", "sparse", "wmma"):
        assert template in listing.stdout
    subprocess.run(
        [
            installed / "kernelgen",
            "new",
            "proj",
            "--no-input",
            "-k",
            "vector_add",
            "-k",
            "activation",
            "-k",
            "sparse",
            "-k",
            "wmma",
        ],
        cwd=tmp_path,
        check=True,
        capture_output=True,
    )
    for path in (
        "proj/.gitignore",
        "proj/.github/workflows/ci.yml",
        "proj/cuda_env.py",
        "proj/proj/csrc/cuda/wmma_gemm.cu",
        "proj/proj/csrc/cuda/launch_utils.cuh",
    ):
        assert (tmp_path / path).is_file(), path


def test_install_pulls_in_no_torch(installed):
    freeze = subprocess.run(
        [installed / "python", "-m", "pip", "freeze"], capture_output=True, text=True, check=True
    )
    names = {line.split("==")[0].lower() for line in freeze.stdout.splitlines()}
    assert "torch" not in names
    assert {"click", "jinja2"} <= names


def test_cli_starts_fast_without_torch(installed):
    code = "import sys, kernelgen.cli; assert 'torch' not in sys.modules"
    subprocess.run([installed / "python", "-c", code], check=True)
    best = min(_timed([installed / "kernelgen", "--version"]) for _ in range(3))
    assert best < 0.5, f"kernelgen --version took {best:.2f} s"


def _timed(args) -> float:
    start = time.perf_counter()
    subprocess.run(args, check=True, capture_output=True)
    return time.perf_counter() - start


def test_module_entry_point(installed):
    out = subprocess.run(
        [installed / "python", "-m", "kernelgen", "--version"],
        capture_output=True,
        text=True,
        check=True,
    )
    assert "kernelgen" in out.stdout


def test_wheel_builds_without_setuptools_warnings(installed, tmp_path):
    # Each template folder named like a Python package once cost a 30-line warning in every
    # user's `pip install`.
    result = subprocess.run(
        [installed / "python", "-m", "pip", "wheel", "-v", "--no-deps", "-w", tmp_path, REPO],
        capture_output=True,
        text=True,
        timeout=900,
        check=True,
    )
    log = result.stdout + result.stderr
    assert "Building wheel for kernelgen" in log
    # Python warnings (setuptools' _Warning, SetuptoolsDeprecationWarning); pip's own notes
    # are "WARNING:".
    assert "Warning" not in log, log[-3000:]
