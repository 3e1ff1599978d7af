"""Writing: all files or none, whatever stops kernelgen at whatever instant.

Each fault-injection test runs a command once to count its disk operations (every mkdir,
open, write, rename, unlink of the writer and the journal), then again once per operation,
stopping it there: with an OSError, a KeyboardInterrupt, or a kill (a forked child that
calls os._exit). After each, the next kernelgen command must find the project entirely old
or entirely new, with no user file lost, and must work.
"""

from __future__ import annotations

import dataclasses
import functools
import json
import os
import shutil
import signal
import stat
import tempfile
from pathlib import Path, PurePosixPath

import pytest
from conftest import options_for, snapshot
from newer_kernelgen import newer_catalog

from kernelgen import add_kernel, generate, journal, new_project, render, update_project, writer
from kernelgen.errors import KernelgenError, ProjectConflict

COUNTED = ("mkdir", "open", "write", "replace", "rename", "unlink", "rmdir", "fsync", "chmod")


class StopHere(Exception):
    """Stands in for whatever stops the process at the chosen operation."""


class CountingOs:
    """`os` as kernelgen.journal and kernelgen.writer see it, with a hook before each disk
    operation: `stop(n, name, args)` runs before operation n (1-based) and may raise or exit."""

    def __init__(self, stop=None) -> None:
        self.count = 0
        self.stop = stop

    def __getattr__(self, name: str):
        real = getattr(os, name)
        if name not in COUNTED:
            return real

        def counted(*args, **kwargs):
            self.count += 1
            if self.stop is not None:
                self.stop(self.count, name, args)
            if name == "fsync":
                return None  # counted, not done: no test here can see a power cut
            return real(*args, **kwargs)

        return counted


@pytest.fixture(autouse=True)
def rendering_once():
    """Render each template folder once per test: these tests run a command hundreds of
    times, and what they exercise is the disk, not Jinja."""
    real = render.render_tree
    cache: dict[str, dict] = {}

    def cached(root, context, exclude=frozenset()):
        key = json.dumps([str(root), context, sorted(exclude)], sort_keys=True, default=str)
        if key not in cache:
            cache[key] = real(root, context, exclude)
        return dict(cache[key])

    with pytest.MonkeyPatch.context() as patch:  # its own: the tests undo theirs midway
        patch.setattr(generate, "render_tree", cached)
        yield


def patch_os(monkeypatch, fake: CountingOs) -> None:
    monkeypatch.setattr(journal, "os", fake)
    monkeypatch.setattr(writer, "os", fake)


# The commands under test: (set up the folder, run the change).
def _add_kernel_setup(root: Path) -> None:
    new_project(options_for("vector_add"), root)


def _add_kernel_run(root: Path) -> None:
    add_kernel(root, "activation")


def _new_into_empty_setup(root: Path) -> None:
    root.mkdir()


def _new_into_empty_run(root: Path) -> None:
    new_project(options_for("vector_add"), root)


def _new_force_setup(root: Path) -> None:
    new_project(options_for("vector_add"), root)
    (root / "NOTES.md").write_text("the user's own file\n")


def _new_force_run(root: Path) -> None:
    new_project(options_for("vector_add", "activation"), root, force=True)


@functools.cache
def _newer():
    return newer_catalog(Path(tempfile.mkdtemp(prefix="kernelgen-newer-")))


def _update_setup(root: Path) -> None:
    new_project(options_for("vector_add"), root)
    with open(root / "setup.py", "a") as setup:
        setup.write("# the user's tweak\n")  # merged, not replaced


def _update_run(root: Path) -> None:
    update_project(root, force=True, catalog=_newer())  # replaces, merges, adds and deletes


COMMANDS = {
    "add-kernel": (_add_kernel_setup, _add_kernel_run),
    "update": (_update_setup, _update_run),
    "new into an empty folder": (_new_into_empty_setup, _new_into_empty_run),
    "new --force over a project": (_new_force_setup, _new_force_run),
}


def expected_trees(tmp_path: Path, command: str) -> tuple[dict[str, bytes], dict[str, bytes], int]:
    """The tree before and after a clean run, and how many disk operations the run makes."""
    setup, run = COMMANDS[command]
    clean = tmp_path / "clean"
    setup(clean)
    before = snapshot(clean)
    shutil.copytree(clean, tmp_path / "pristine", symlinks=True)
    counter = CountingOs()
    mp = pytest.MonkeyPatch()
    patch_os(mp, counter)
    try:
        run(clean)
    finally:
        mp.undo()
    return before, snapshot(clean), counter.count


def assert_old_or_new(root: Path, before, after) -> None:
    message = journal.recover(root)  # what the next kernelgen command does first
    assert not (root / journal.TRANSACTION_DIR).exists(), message
    now = snapshot(root)
    assert now in (before, after), sorted(set(now) ^ set(before) ^ set(after))[:5]


def stop_at(n: int, exc: BaseException):
    def stop(count: int, name: str, args: tuple) -> None:
        if count == n:
            raise exc

    return stop


@pytest.mark.parametrize("command", COMMANDS)
@pytest.mark.parametrize(
    "exc", [OSError(5, "Input/output error"), KeyboardInterrupt()], ids=["OSError", "Ctrl-C"]
)
def test_a_failure_at_any_operation_leaves_old_or_new(tmp_path, monkeypatch, command, exc):
    before, after, operations = expected_trees(tmp_path, command)
    assert operations > 20
    _, run = COMMANDS[command]
    for n in range(1, operations + 1):
        root = tmp_path / f"run{n}"
        shutil.copytree(tmp_path / "pristine", root, symlinks=True)
        patch_os(monkeypatch, CountingOs(stop_at(n, exc)))
        try:
            run(root)
        except (KernelgenError, KeyboardInterrupt, OSError):
            monkeypatch.undo()
            assert snapshot(root) == before, f"operation {n} failed and left a partial change"
            assert_old_or_new(root, before, after)
            run(root)  # and the command works next time
        else:  # the failure hit a step after the commit (a directory sync, the cleanup)
            monkeypatch.undo()
        assert snapshot(root) == after
        shutil.rmtree(root)


@pytest.mark.parametrize("command", COMMANDS)
def test_a_kill_at_any_operation_is_recovered_by_the_next_command(tmp_path, command):
    before, after, operations = expected_trees(tmp_path, command)
    _, run = COMMANDS[command]
    outcomes = set()
    for n in range(1, operations + 1):
        root = tmp_path / f"run{n}"
        shutil.copytree(tmp_path / "pristine", root, symlinks=True)
        pid = os.fork()
        if pid == 0:  # the child: killed, with no cleanup at all, at operation n
            mp = pytest.MonkeyPatch()
            patch_os(mp, CountingOs(lambda count, *_, n=n: count == n and os._exit(9)))
            try:
                run(root)
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        assert os.WEXITSTATUS(status) in (0, 9)
        assert_old_or_new(root, before, after)
        outcomes.add("new" if snapshot(root) == after else "old")
        if snapshot(root) == before:
            run(root)
        assert snapshot(root) == after
        shutil.rmtree(root)
    assert outcomes == {"old", "new"}  # the kills did land on both sides of the commit


def test_a_disk_failing_for_good_midway_keeps_every_original(tmp_path, monkeypatch):
    """From operation n on every rename fails (a disk remounted read-only): the rollback
    carries on, reports what it could not restore, and keeps those originals."""
    before, after, operations = expected_trees(tmp_path, "new --force over a project")
    _, run = COMMANDS["new --force over a project"]
    reported = 0
    for n in range(1, operations + 1):
        root = tmp_path / f"run{n}"
        shutil.copytree(tmp_path / "pristine", root, symlinks=True)

        def stop(count: int, name: str, args: tuple, n=n) -> None:
            if count >= n:
                raise OSError(30, "Read-only file system")

        patch_os(monkeypatch, CountingOs(stop))
        try:
            run(root)
        except KernelgenError as exc:
            error = exc
        else:
            error = None
        monkeypatch.undo()
        if error is not None and "could not undo" in str(error):
            reported += 1
            kept = root / journal.TRANSACTION_DIR / "old"
            on_disk = snapshot(root)
            for path, content in before.items():
                in_place = on_disk.get(path) == content
                assert in_place or content in [p.read_bytes() for p in kept.iterdir()], path
        assert_old_or_new(root, before, after)  # once the disk works again
        shutil.rmtree(root)
    assert reported > 0


def test_ctrl_c_during_the_renames_is_held_until_the_change_is_undone(tmp_path, monkeypatch):
    before, _, _ = expected_trees(tmp_path, "add-kernel")
    root = tmp_path / "proj"
    _add_kernel_setup(root)

    def ctrl_c_at_first_rename_into_the_project(count: int, name: str, args: tuple) -> None:
        if name == "replace" and journal.TRANSACTION_DIR not in str(args[1]):
            os.kill(os.getpid(), signal.SIGINT)

    patch_os(monkeypatch, CountingOs(ctrl_c_at_first_rename_into_the_project))
    with pytest.raises(KeyboardInterrupt):
        _add_kernel_run(root)
    monkeypatch.undo()
    assert snapshot(root) == before  # undone, then the Ctrl-C delivered
    assert not (root / journal.TRANSACTION_DIR).exists()


def test_new_project_failing_midway_leaves_nothing(tmp_path, monkeypatch):
    patch_os(monkeypatch, CountingOs(stop_at(12, OSError(28, "No space left on device"))))
    with pytest.raises(KernelgenError, match="No space left on device; nothing was written"):
        new_project(options_for("vector_add"), tmp_path / "deep" / "proj")
    assert list(tmp_path.iterdir()) == []


def test_plan_refuses_a_file_where_a_folder_goes(tmp_path):
    (tmp_path / "pkg").write_text("a file")
    with pytest.raises(ProjectConflict, match="is a file"):
        writer.plan({PurePosixPath("pkg/x.py"): b""}, tmp_path)


def test_plan_reports_identical_files(tmp_path):
    (tmp_path / "a.txt").write_bytes(b"same")
    (planned,) = writer.plan({PurePosixPath("a.txt"): b"same"}, tmp_path)
    assert planned.status is writer.Status.IDENTICAL


def test_files_get_ordinary_permissions_and_replaced_files_keep_theirs(tmp_path):
    root = tmp_path / "proj"
    new_project(options_for("vector_add"), root)
    expected = 0o666 & ~writer._umask()
    modes = {p.stat().st_mode & 0o777 for p in root.rglob("*") if p.is_file()}
    assert modes == {expected}
    init = root / "myops" / "__init__.py"
    init.chmod(0o640)
    add_kernel(root, "activation")
    assert stat.S_IMODE(init.stat().st_mode) == 0o640
    assert "silu" in init.read_text()


def test_new_force_replaces_only_unedited_generated_files(tmp_path):
    root = tmp_path / "proj"
    new_project(options_for("vector_add"), root)
    (root / "README.md").write_text("my own notes\n")
    with pytest.raises(ProjectConflict, match=r"README\.md \(exists with other content\)"):
        new_project(options_for("vector_add", "activation"), root, force=True)
    assert (root / "README.md").read_text() == "my own notes\n"
    (root / "README.md").unlink()
    new_project(options_for("vector_add", "activation"), root, force=True)
    assert (root / "myops" / "csrc" / "silu.cpp").is_file()


def test_new_force_keeps_the_kernels_added_since(tmp_path):
    root = tmp_path / "proj"
    new_project(options_for("vector_add"), root)
    add_kernel(root, "sparse")
    with pytest.raises(ProjectConflict, match="would drop \\(sparse=csr\\)"):
        new_project(options_for("vector_add"), root, force=True)
    kept = dataclasses.replace(options_for("vector_add", "sparse"))
    new_project(kept, root, force=True)  # naming them all is fine: nothing differs
