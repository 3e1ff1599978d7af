"""Put a rendered FileSet on disk: check every target first, then write all files or none.

A new project is written into a hidden staging folder beside its destination and renamed into
place in one step; files added to an existing project are written one by one and rolled back
(new files removed, replaced files restored) if anything fails, Ctrl-C included.
"""

from __future__ import annotations

import enum
import functools
import os
import shutil
import tempfile
from collections.abc import Collection
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from kernelgen.errors import ProjectConflict
from kernelgen.render import FileSet


class Status(enum.Enum):
    """What writing a file will do (or did)."""

    CREATE = "create"
    IDENTICAL = "identical"
    OVERWRITE = "overwrite"


@dataclass(frozen=True)
class PlannedFile:
    """One file to write, with what writing it does to the disk."""

    path: PurePosixPath
    content: bytes
    status: Status


def plan(
    files: FileSet, root: Path, may_overwrite: Collection[PurePosixPath] = ()
) -> list[PlannedFile]:
    """Decide each file's status; refuse, before any write, if one would clobber a user's file."""
    planned: list[PlannedFile] = []
    conflicts: list[str] = []
    for path, content in sorted(files.items()):
        target = root / path
        blocking_parent = next((p for p in target.parents if p.is_file()), None)
        if blocking_parent is not None:
            conflicts.append(f"{path} (its folder {blocking_parent.name} is a file)")
        elif target.is_dir():
            conflicts.append(f"{path} (a folder is there)")
        elif not target.exists():
            planned.append(PlannedFile(path, content, Status.CREATE))
        elif target.read_bytes() == content:
            planned.append(PlannedFile(path, content, Status.IDENTICAL))
        elif path in may_overwrite:
            planned.append(PlannedFile(path, content, Status.OVERWRITE))
        else:
            conflicts.append(f"{path} (exists with other content)")
    if conflicts:
        raise ProjectConflict(
            "refusing to overwrite existing files, nothing was written: " + "; ".join(conflicts)
        )
    return planned


def _write_file(target: Path, content: bytes) -> None:
    """Write through a temporary file and rename, so a target is never half-written.

    The file gets the mode a plain `open()` would give it (mkstemp's is 0600), or keeps the
    mode of the file it replaces.
    """
    target.parent.mkdir(parents=True, exist_ok=True)
    mode = target.stat().st_mode & 0o777 if target.exists() else 0o666 & ~_umask()
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_new_tree(files: FileSet, destination: Path) -> None:
    """Create `destination` (which must not exist) holding exactly `files`, atomically."""
    destination = destination.absolute()
    created_parents = [p for p in reversed(destination.parents) if not p.exists()]
    destination.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(
        tempfile.mkdtemp(dir=destination.parent, prefix=f".{destination.name}.kernelgen-")
    )
    try:
        for path, content in sorted(files.items()):
            _write_file(staging / path, content)
        staging.chmod(0o777 & ~_umask())
        os.rename(staging, destination)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for parent in reversed(created_parents):
            _remove_if_empty(parent)
        raise


def write_into(planned: list[PlannedFile], root: Path) -> None:
    """Apply `planned` inside the existing folder `root`; undo everything on any failure.

    A file being replaced is first renamed aside, so undoing needs only renames (no free
    space), and the aside copies are deleted once every write has succeeded.
    """
    created: list[Path] = []
    set_aside: list[tuple[Path, Path]] = []
    new_dirs: list[Path] = []
    try:
        for item in planned:
            if item.status is Status.IDENTICAL:
                continue
            target = root / item.path
            new_dirs += [p for p in reversed(target.parents) if not p.exists()]
            if item.status is Status.OVERWRITE:
                backup = target.with_name(f".{target.name}.kernelgen-backup")
                os.replace(target, backup)
                set_aside.append((target, backup))
            else:
                created.append(target)
            _write_file(target, item.content)
    except BaseException:
        for path in created:
            path.unlink(missing_ok=True)
        for path, backup in set_aside:
            os.replace(backup, path)
        for folder in reversed(new_dirs):
            _remove_if_empty(folder)
        raise
    for _, backup in set_aside:
        backup.unlink()


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


@functools.cache
def _umask() -> int:
    """The process umask (reading it means setting it, so read it once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
