"""Writing: all files or none, even when a write fails midway or the user hits Ctrl-C."""

from pathlib import Path, PurePosixPath

import pytest
from conftest import options_for

from kernelgen import add_kernel, new_project, writer
from kernelgen.errors import KernelgenError, ProjectConflict


def failing_after(count: int, exc: BaseException):
    """A stand-in for writer._write_file that fails on write number count+1."""
    real = writer._write_file
    calls = {"n": 0}

    def write(target: Path, content: bytes) -> None:
        calls["n"] += 1
        if calls["n"] > count:
            raise exc
        real(target, content)

    return write


@pytest.mark.parametrize(
    ("exc", "raised"),
    [
        (OSError(28, "No space left on device"), KernelgenError),
        (KeyboardInterrupt(), KeyboardInterrupt),
    ],
)
def test_new_project_failing_midway_leaves_nothing(tmp_path, monkeypatch, exc, raised):
    monkeypatch.setattr(writer, "_write_file", failing_after(5, exc))
    with pytest.raises(raised):
        new_project(options_for("vector_add"), tmp_path / "deep" / "proj")
    assert list(tmp_path.iterdir()) == []


def test_new_project_into_existing_folder_failing_midway_restores_it(tmp_path, monkeypatch):
    target = tmp_path / "proj"
    target.mkdir()
    (target / "setup.py").write_text("mine")
    monkeypatch.setattr(writer, "_write_file", failing_after(5, OSError(28, "No space left")))
    with pytest.raises(KernelgenError, match="No space left; nothing was written"):
        new_project(options_for("vector_add"), target, force=True)
    assert [p.name for p in target.iterdir()] == ["setup.py"]
    assert (target / "setup.py").read_text() == "mine"


def test_add_kernel_failing_midway_rolls_back(tmp_path, monkeypatch):
    new_project(options_for("vector_add"), tmp_path / "proj")
    before = {p: p.read_bytes() for p in (tmp_path / "proj").rglob("*") if p.is_file()}
    monkeypatch.setattr(writer, "_write_file", failing_after(3, KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        add_kernel(tmp_path / "proj", "activation")
    after = {p: p.read_bytes() for p in (tmp_path / "proj").rglob("*") if p.is_file()}
    assert after == before


def test_plan_refuses_a_file_where_a_folder_goes(tmp_path):
    (tmp_path / "pkg").write_text("a file")
    with pytest.raises(ProjectConflict, match="is a file"):
        writer.plan({PurePosixPath("pkg/x.py"): b""}, tmp_path)


def test_plan_reports_identical_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"same")
    (planned,) = writer.plan({PurePosixPath("a.txt"): b"same"}, tmp_path)
    assert planned.status is writer.Status.IDENTICAL


def test_files_get_ordinary_permissions(tmp_path):
    new_project(options_for("vector_add"), tmp_path / "proj")
    expected = 0o666 & ~writer._umask()
    modes = {p.stat().st_mode & 0o777 for p in (tmp_path / "proj").rglob("*") if p.is_file()}
    assert modes == {expected}
