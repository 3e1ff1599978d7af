"""Run every benchmark at a tiny size so none of them can rot. Timings are not checked here."""

import subprocess
import sys
from pathlib import Path

import pytest
from conftest import requires_cuda

BENCHMARKS = sorted((Path(__file__).parent.parent / "benchmarks").glob("bench_*.py"))


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.stem)
def test_benchmark_runs_quick(script: Path, device: str) -> None:
    result = subprocess.run(
        [sys.executable, str(script), "--quick", "--device", device],
        capture_output=True, text=True, timeout=600, check=False,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "baseline" in result.stdout
