"""Run every benchmark at a tiny size so none of them can rot. Timings are not checked here."""

import importlib
import importlib.util
import json
import subprocess
import sys
from pathlib import Path

import pytest

from devices import requires_cuda

ROOT = Path(__file__).parent.parent
BENCHMARKS = sorted((ROOT / "benchmarks").glob("bench_*.py"))


def run(args: list[str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, *args], cwd=ROOT, capture_output=True, text=True, timeout=600, check=False
    )


@pytest.mark.parametrize("device", ["cpu", pytest.param("cuda", marks=requires_cuda)])
@pytest.mark.parametrize("script", BENCHMARKS, ids=lambda path: path.stem)
def test_benchmark_runs_quick(script: Path, device: str) -> None:
    result = run([str(script), "--quick", "--device", device])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "baseline" in result.stdout


def test_runner_runs_every_benchmark_and_writes_json(tmp_path: Path) -> None:
    out = tmp_path / "rows.json"
    result = run(["-m", "benchmarks", "--device", "cpu", "--json", str(out)])
    assert result.returncode == 0, result.stdout + result.stderr
    assert "CPU timing" in result.stderr and "small sizes only" in result.stderr
    rows = json.loads(out.read_text())
    for script in BENCHMARKS:  # every kernel's benchmark joined, with no edit to the runner
        kernel = script.stem.removeprefix("bench_")
        assert any(row["op"].startswith(kernel) for row in rows), (
            kernel,
            [row["op"] for row in rows],
        )
    for row in rows:
        assert row["ours_ms"] > 0 and row["baseline_ms"] > 0
        assert row["ratio"] == pytest.approx(row["baseline_ms"] / row["ours_ms"])
        assert row["ceiling"] is None  # no ceiling on the CPU


def test_runner_plot_needs_matplotlib_or_draws(tmp_path: Path) -> None:
    plot = tmp_path / "ratios.png"
    result = run(
        [
            "-m",
            "benchmarks",
            "--device",
            "cpu",
            "--only",
            BENCHMARKS[0].stem.removeprefix("bench_"),
            "--plot",
            str(plot),
        ]
    )
    if importlib.util.find_spec("matplotlib") is None:
        assert result.returncode != 0
        assert "--plot needs matplotlib" in result.stderr
        assert "Traceback" not in result.stderr
    else:
        assert result.returncode == 0, result.stderr
        assert plot.read_bytes().startswith(b"\x89PNG")


def test_ours_and_baseline_are_timed_in_alternation(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.syspath_prepend(str(ROOT / "benchmarks"))  # as the benchmarks import it
    common = importlib.import_module("common")
    calls: list[str] = []
    ours_ms, baseline_ms = common.median_ms_pair(
        lambda: calls.append("ours"), lambda: calls.append("baseline"), "cpu", reps=4, warmup=1
    )
    # After the warm-up, each pair swaps who goes first, so neither always runs second.
    assert calls == ["ours", "baseline"] + ["ours", "baseline", "baseline", "ours"] * 2
    assert ours_ms >= 0 and baseline_ms >= 0
