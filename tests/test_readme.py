"""The README's library example runs as written."""

from __future__ import annotations

import re
from pathlib import Path

README = Path(__file__).resolve().parent.parent / "README.md"


def test_the_library_example_runs(tmp_path, monkeypatch, capsys):
    section = README.read_text().split("## Using kernelgen as a library", 1)[1]
    (example,) = re.findall(r"```python\n(.*?)```", section.split("\n## ", 1)[0], re.DOTALL)
    monkeypatch.chdir(tmp_path)
    exec(compile(example, "README.md", "exec"), {})
    assert capsys.readouterr().out.strip() == "[]"
    assert (tmp_path / "myops" / "myops" / "ops" / "tc_gemm.py").is_file()
