"""The disk rules every stage follows: regular files inside the project, read with a bound.

kernelgen reads and replaces only regular files, reached without leaving the project through
a symlink; a FIFO, a device or a link elsewhere at a path it touches is refused with one
line, never waited on or written through. Names are checked up front against the limits of
the filesystem, and for collisions on case-insensitive ones (macOS and Windows defaults).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from pathlib import Path, PurePosixPath

from kernelgen.errors import InvalidInput, ProjectConflict

MAX_READ_BYTES = 16 << 20  # far above any file kernelgen generates
PATH_MAX = 4000  # a margin under Linux's 4096, for the hidden staging names


def outside(root: Path, path: Path) -> bool:
    """Whether `path`, symlinks resolved, lies outside the folder `root`."""
    resolved_root = root.resolve()
    resolved = path.resolve()
    return resolved != resolved_root and resolved_root not in resolved.parents


def check_target(root: Path, relative: PurePosixPath) -> str | None:
    """Why kernelgen must not write `root/relative`, or None when it may."""
    folder = root
    for part in relative.parts[:-1]:
        folder = folder / part
        if folder.is_symlink() and outside(root, folder):
            return (
                f"{relative} (its folder {folder.relative_to(root)} is a link out of the project)"
            )
    target = root / relative
    if target.is_symlink():
        return f"{relative} (a symbolic link is there)"
    if target.exists() and not target.is_file() and not target.is_dir():
        return f"{relative} (a {_kind(target)} is there, not a regular file)"
    return None


def _kind(path: Path) -> str:
    mode = path.lstat().st_mode
    if stat.S_ISFIFO(mode):
        return "FIFO"
    if stat.S_ISSOCK(mode):
        return "socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "device"
    return "special file"


def read_regular_file(path: Path, what: str | None = None) -> bytes:
    """The bytes of `path`, which must be a regular file of at most MAX_READ_BYTES.

    Opened without blocking and checked before reading, so a FIFO or a device there is an
    error, not a hang or an endless read.
    """
    label = what or str(path)
    if path.is_symlink() and not path.resolve().is_file():
        raise ProjectConflict(f"{label} is a symbolic link to something that is not a file")
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise ProjectConflict(f"{label} is not a regular file; kernelgen reads only files")
        if info.st_size > MAX_READ_BYTES:
            raise ProjectConflict(
                f"{label} is {info.st_size} bytes, too large for a generated file"
            )
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return b"".join(chunks)
    finally:
        os.close(fd)


def check_path_lengths(root: Path, paths: Iterable[PurePosixPath]) -> None:
    """Refuse, before anything is written, a path longer than the filesystem can hold. (Each
    generated file name is short: the names in it are at most 40 characters, see options.)"""
    base = len(os.fsencode(str(root.absolute())))
    for path in paths:
        if base + 1 + len(os.fsencode(str(path))) > PATH_MAX:
            raise InvalidInput(
                f"{root / path} would be longer than {PATH_MAX} bytes; choose shorter names "
                "or a folder higher up"
            )


def check_case_collisions(paths: Iterable[PurePosixPath]) -> None:
    """Refuse two paths that differ only in case: one file on macOS and Windows filesystems."""
    seen: dict[str, PurePosixPath] = {}
    for path in paths:
        key = str(path).casefold()
        if key in seen and seen[key] != path:
            raise InvalidInput(
                f"{seen[key]} and {path} differ only in case, so they would be one file on "
                "case-insensitive filesystems (macOS, Windows); choose names that differ otherwise"
            )
        seen[key] = path


def case_twin_on_disk(root: Path, relative: PurePosixPath) -> str | None:
    """An existing entry that differs from `relative` only in case, if there is one."""
    folder = root
    for depth, part in enumerate(relative.parts):
        if not folder.is_dir():
            return None
        try:
            names = os.listdir(folder)
        except OSError:
            return None
        if part in names:
            folder = folder / part
            continue
        twins = [n for n in names if n.casefold() == part.casefold()]
        if twins:
            return str(PurePosixPath(*relative.parts[:depth], twins[0]))
        return None
    return None
