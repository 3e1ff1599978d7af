"""The generated projects' test helpers do what their docstrings say.

They are run here as a user's project runs them: rendered, written to a folder with a stand-in
for the built package, and driven by pytest in a subprocess.
"""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from conftest import options_for

from kernelgen.generate import render_project


@pytest.fixture
def generated_tests(tmp_path: Path) -> Path:
    """The generated tests/ helpers, beside a `myops` whose extension was built without CUDA."""
    files = render_project(options_for("vector_add")).files
    for path, content in files.items():
        if path.parts[0] == "tests" and path.name in ("conftest.py", "devices.py", "utils.py"):
            (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
            (tmp_path / path).write_bytes(content)
    (tmp_path / "myops").mkdir()
    (tmp_path / "myops" / "__init__.py").write_text(
        "from types import SimpleNamespace\n_C = SimpleNamespace(built_with_cuda=0)\n"
    )
    return tmp_path


def run_pytest(folder: Path, test_source: str, **env: str) -> subprocess.CompletedProcess[str]:
    (folder / "tests" / "test_example.py").write_text(test_source)
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"],
        cwd=folder,
        capture_output=True,
        text=True,
        env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(folder), **env},
        check=False,
    )


FAILING_WITH_RANDOM_INPUTS = """
import torch

def test_fails(device):
    print("first draw", torch.rand(1).item())
    assert False
"""


def test_a_failure_report_names_the_seed_and_the_seed_reproduces_it(generated_tests):
    failed = run_pytest(generated_tests, FAILING_WITH_RANDOM_INPUTS)
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "random seed" in failed.stdout and "rerun with TEST_SEED=" in failed.stdout
    seed = failed.stdout.split("rerun with TEST_SEED=")[1].split()[0]
    draw = failed.stdout.split("first draw ")[1].split()[0]
    again = run_pytest(generated_tests, FAILING_WITH_RANDOM_INPUTS, TEST_SEED=seed)
    assert f"first draw {draw}" in again.stdout and f"seed {seed};" in again.stdout


def test_the_cuda_marker_says_why_it_skips(generated_tests):
    result = run_pytest(generated_tests, "def test_runs(device):\n    assert device == 'cpu'\n")
    assert result.returncode == 0 and "1 passed, 1 skipped" in result.stdout


def test_assert_matches_reference_checks_the_relative_norm(generated_tests):
    spec = importlib.util.spec_from_file_location("utils", generated_tests / "tests" / "utils.py")
    assert spec is not None and spec.loader is not None
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    want = torch.ones(10_000, dtype=torch.float64)
    # Each element is within its elementwise bound (tol + tol * |ref| = 0.2), but all of them
    # are off by 1.5 tol: the norm check catches what no single element shows.
    torch.testing.assert_close(want + 0.15, want, rtol=0.1, atol=0.1)
    with pytest.raises(AssertionError, match="relative norm error 0.15"):
        utils.assert_matches_reference(want + 0.15, want, rtol=0.1)
    utils.assert_matches_reference(want + 0.05, want, rtol=0.1)
    with pytest.raises(AssertionError, match="non-finite"):
        utils.assert_matches_reference(torch.tensor([1.0, float("nan")]), torch.tensor([1.0, 1.0]))
