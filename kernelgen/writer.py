"""Put a rendered FileSet on disk: check every target first, then write all files or none.

A new project is written into a hidden staging folder beside its destination and renamed into
place in one step. Files written into an existing folder (add-kernel, `new` into an empty or
`--force`d folder) go through kernelgen.journal: staged, then renamed into place under a
journal, so an exception, Ctrl-C or a kill at any instant leaves the folder entirely old or
entirely new, and the next command finishes or undoes an interrupted change.
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

from kernelgen import fs, journal
from kernelgen.errors import ProjectConflict
from kernelgen.render import FileSet


class Status(enum.Enum):
    """What writing a file will do (or did)."""

    CREATE = "create"
    IDENTICAL = "identical"
    OVERWRITE = "overwrite"
    DELETE = "delete"


@dataclass(frozen=True)
class PlannedFile:
    """One file to write, with what writing it does to the disk."""

    path: PurePosixPath
    content: bytes
    status: Status


def plan(
    files: FileSet,
    root: Path,
    may_overwrite: Collection[PurePosixPath] = (),
    delete: Collection[PurePosixPath] = (),
) -> list[PlannedFile]:
    """Decide each file's status; refuse, before any write, if one would clobber a user's file
    or touch anything but a regular file inside `root`. `delete` lists files to remove."""
    fs.check_path_lengths(root, files)
    fs.check_case_collisions(files)
    planned: list[PlannedFile] = []
    conflicts: list[str] = []
    for path, content in sorted(files.items()):
        target = root / path
        blocking_parent = _file_in_the_way(root, path)
        if (unsafe := fs.check_target(root, path)) is not None:
            conflicts.append(unsafe)
        elif blocking_parent is not None:
            conflicts.append(f"{path} (its folder {blocking_parent.name} is a file)")
        elif target.is_dir():
            conflicts.append(f"{path} (a folder is there)")
        elif (twin := fs.case_twin_on_disk(root, path)) is not None:
            conflicts.append(f"{path} ({twin} is there: the same file on case-insensitive disks)")
        elif not target.exists():
            planned.append(PlannedFile(path, content, Status.CREATE))
        elif fs.read_regular_file(target, str(path)) == content:
            planned.append(PlannedFile(path, content, Status.IDENTICAL))
        elif path in may_overwrite:
            planned.append(PlannedFile(path, content, Status.OVERWRITE))
        else:
            conflicts.append(f"{path} (exists with other content)")
    for path in sorted(delete):
        if (unsafe := fs.check_target(root, path)) is not None:
            conflicts.append(unsafe)
        elif (root / path).is_file():
            planned.append(PlannedFile(path, b"", Status.DELETE))
    if conflicts:
        raise ProjectConflict(
            "refusing to overwrite existing files, nothing was written: " + "; ".join(conflicts)
        )
    return planned


def _file_in_the_way(root: Path, path: PurePosixPath) -> Path | None:
    """A folder of `path` inside `root` that is a file (or a broken link), so `path` cannot be
    created there."""
    for parent in path.parents[:-1]:  # the folders between root and the file, not above root
        folder = root / parent
        if folder.is_file() or folder.is_symlink() and not folder.is_dir():
            return folder
    return None


def _write_file(target: Path, content: bytes, mode: int) -> None:
    """Create `target` (in a staging folder) with `content` and `mode`."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "xb") as handle:
        handle.write(content)
    os.chmod(target, mode)


def write_new_tree(files: FileSet, destination: Path) -> None:
    """Create `destination` (which must not exist) holding exactly `files`, atomically."""
    destination = destination.absolute()
    created_parents = [p for p in reversed(destination.parents) if not p.exists()]
    destination.parent.mkdir(parents=True, exist_ok=True)
    # A short prefix: the staging name must fit wherever the destination's name fits.
    staging = Path(tempfile.mkdtemp(dir=destination.parent, prefix=".kg-"))
    try:
        for path, content in sorted(files.items()):
            _write_file(staging / path, content, _new_file_mode())
        staging.chmod(0o777 & ~_umask())
        with journal.HeldSignals() as held:
            os.rename(staging, destination)
            if held.received is not None:  # Ctrl-C during the rename: the answer is "nothing"
                os.rename(destination, staging)
                raise journal.Interrupted
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        for parent in reversed(created_parents):
            _remove_if_empty(parent)
        raise


def write_into(planned: list[PlannedFile], root: Path) -> None:
    """Apply `planned` inside the existing folder `root`, all or nothing (kernelgen.journal).

    A replaced file keeps its mode; a new one gets the mode a plain `open()` would give it.
    A DELETE removes the file (kept in the journal until the change commits).
    """
    changes = []
    new_dirs: list[PurePosixPath] = []
    for item in planned:
        if item.status is Status.IDENTICAL:
            continue
        target = root / item.path
        for parent in reversed(item.path.parents[:-1]):
            if not (root / parent).exists() and parent not in new_dirs:
                new_dirs.append(parent)
        replaces = item.status in (Status.OVERWRITE, Status.DELETE)
        mode = target.stat().st_mode & 0o7777 if replaces else _new_file_mode()
        content = None if item.status is Status.DELETE else item.content
        changes.append(journal.Change(item.path, content, replaces, mode))
    if changes:
        journal.apply(root, changes, new_dirs)


def _remove_if_empty(folder: Path) -> None:
    try:
        folder.rmdir()
    except OSError:
        pass


def _new_file_mode() -> int:
    return 0o666 & ~_umask()


@functools.cache
def _umask() -> int:
    """The process umask (reading it means setting it, so read it once)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask
