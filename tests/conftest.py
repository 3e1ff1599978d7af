"""Shared fixtures for kernelgen's own tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from kernelgen import KernelChoice, ProjectOptions
from kernelgen.catalog import all_kernels
from kernelgen.cli import main


@pytest.fixture
def cli(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Run `kernelgen ARGS...` in tmp_path through Click's CliRunner; returns the Result."""
    monkeypatch.chdir(tmp_path)
    runner = CliRunner()

    def run(*args: str, input: str | None = None):
        return runner.invoke(main, list(args), input=input, catch_exceptions=False)

    return run


def options_for(*kernels: str, package: str = "myops") -> ProjectOptions:
    """ProjectOptions with each template under its default name."""
    choices = tuple(KernelChoice(t, all_kernels()[t].default_name) for t in kernels)
    return ProjectOptions(package=package, namespace=package, kernels=choices)


ALL_TEMPLATES = tuple(all_kernels())


def snapshot(root: Path) -> dict[str, bytes]:
    """Every file under root (outside .git) and its bytes: what a failed command must leave."""
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }
