"""Crash-safe changes to an existing folder: a journal that makes every change all or nothing.

A change (the files add-kernel or `new --force` writes into a project) runs in four steps,
all inside the hidden folder `.kernelgen-transaction` of the project:

1. stage: every new file's bytes are written to `new/<i>` and synced, then `journal.json`
   (the targets, what each replaces, the folders to create) is written atomically. Until
   it exists, no file of the project has been touched.
2. apply, with SIGINT and SIGTERM held back: each file being replaced (or deleted) is
   renamed to `old/<i>`, and `new/<i>` is renamed into its place. Renames only: no free
   space needed.
3. commit: `journal.json` is rewritten with state "committed".
4. clean up: the transaction folder is deleted.

Whatever stops this (an exception, Ctrl-C, a kill, a power cut), the next kernelgen command
in the project calls `recover`: a committed change only has its folder deleted, any other is
rolled back from `old/`. A rollback carries on past the files it cannot restore and reports
them; whatever it could not restore stays in `old/`, so no user file is ever lost.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import sys
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from types import FrameType

from kernelgen.errors import KernelgenError

TRANSACTION_DIR = ".kernelgen-transaction"
JOURNAL = "journal.json"


@dataclass(frozen=True)
class Change:
    """One file the transaction writes (or, with no content, deletes): its path in the folder,
    bytes, and mode."""

    path: PurePosixPath
    content: bytes | None  # None: delete the file
    replaces: bool  # a file is there now (it is kept in old/ until the commit)
    mode: int


class RecoveryFailed(KernelgenError):
    """A rollback could not restore every file; what it could not restore is kept."""


def _fsync_dir(folder: Path) -> None:
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:  # pragma: no cover (platforms without directory fds)
        return
    try:
        os.fsync(fd)
    except OSError:  # pragma: no cover
        pass
    finally:
        os.close(fd)


def _write_synced(path: Path, content: bytes, mode: int = 0o600) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, mode)
    try:
        view = memoryview(content)
        while view:
            view = view[os.write(fd, view) :]
        os.fsync(fd)
    finally:
        os.close(fd)
    os.chmod(path, mode)  # os.open's mode is reduced by the umask; the journal says exactly


def _write_journal(txn: Path, data: dict[str, object]) -> None:
    """Replace journal.json in one rename, so it is always either the old or the new one."""
    tmp = txn / (JOURNAL + ".tmp")
    tmp.unlink(missing_ok=True)
    _write_synced(tmp, json.dumps(data, indent=1).encode("utf-8"))
    os.replace(tmp, txn / JOURNAL)
    _fsync_dir(txn)


class HeldSignals:
    """Holds SIGINT and SIGTERM back for the duration, then delivers the first one that came.

    Only the main thread can install signal handlers; elsewhere this does nothing.
    """

    SIGNALS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.received: int | None = None
        self.previous: dict[int, object] = {}

    def _hold(self, signum: int, frame: FrameType | None) -> None:
        if self.received is None:
            self.received = signum

    def __enter__(self) -> HeldSignals:
        if threading.current_thread() is threading.main_thread():
            for signum in self.SIGNALS:
                self.previous[signum] = signal.signal(signum, self._hold)
        return self

    def __exit__(self, *exc: object) -> None:
        for signum, handler in self.previous.items():
            signal.signal(signum, handler)  # type: ignore[arg-type]
        if self.received is not None:
            os.kill(os.getpid(), self.received)  # now handled as it would have been


def _targets(journal: dict[str, object]) -> list[dict[str, object]]:
    targets = journal.get("targets")
    if not isinstance(targets, list):
        raise RecoveryFailed("journal.json lists no targets")
    return targets


def apply(root: Path, changes: Sequence[Change], new_dirs: Sequence[PurePosixPath]) -> None:
    """Make `changes` in `root` all at once: on any failure, or a signal, nothing is left of them.

    `new_dirs` are the folders (relative to root, parents first) that do not exist yet.
    """
    txn = root / TRANSACTION_DIR
    os.mkdir(txn)  # fails if a change is pending (recover() runs first): never touch that one
    journal: dict[str, object] = {
        "state": "staging",
        "targets": [{"path": str(c.path), "replaces": c.replaces, "mode": c.mode} for c in changes],
        "new_dirs": [str(d) for d in new_dirs],
    }
    try:
        os.mkdir(txn / "new")
        os.mkdir(txn / "old")
        for i, change in enumerate(changes):
            if change.content is not None:
                _write_synced(txn / "new" / str(i), change.content, change.mode)
        _fsync_dir(txn / "new")
        journal["state"] = "prepared"
        _write_journal(txn, journal)
    except BaseException:
        _roll_back(root, journal)
        raise
    # From here on a Ctrl-C or SIGTERM waits: one that comes before the commit undoes the
    # change, one that comes after it finds the change complete; either is then delivered.
    with HeldSignals() as held:
        try:
            for folder in new_dirs:
                os.mkdir(root / folder)
            for i, change in enumerate(changes):
                target = root / change.path
                if change.replaces:
                    os.replace(target, txn / "old" / str(i))
                if change.content is not None:
                    os.replace(txn / "new" / str(i), target)
            for written in {(root / c.path).parent for c in changes}:
                _fsync_dir(written)
            if held.received is not None:
                raise Interrupted
            journal["state"] = "committed"
            _write_journal(txn, journal)
        except BaseException as exc:
            _roll_back(root, journal)
            if isinstance(exc, Interrupted):
                return  # the held signal is delivered on leaving the with block
            raise
        shutil.rmtree(txn, ignore_errors=True)
        if held.received is not None:
            sys.stderr.write("kernelgen: interrupted after the change was complete; it is kept\n")


class Interrupted(Exception):
    """A signal arrived while the change was being applied: undo it, then deliver the signal."""


def _roll_back(root: Path, journal: dict[str, object]) -> None:
    """Undo a transaction that did not commit, file by file, carrying on past failures."""
    txn = root / TRANSACTION_DIR
    failures: list[str] = []
    if journal.get("state") not in (None, "staging"):
        for i, target in reversed(list(enumerate(_targets(journal)))):
            path = root / str(target["path"])
            old, new = txn / "old" / str(i), txn / "new" / str(i)
            try:
                if old.exists():
                    os.replace(old, path)  # the user's file, back where it was
                elif not target["replaces"] and not new.exists() and path.exists():
                    path.unlink()  # a file this transaction created
            except OSError as exc:
                failures.append(f"{target['path']} ({exc.strerror or exc})")
        new_dirs = journal.get("new_dirs")
        for folder in reversed(new_dirs if isinstance(new_dirs, list) else []):
            with contextlib.suppress(OSError):
                (root / str(folder)).rmdir()
    if failures:
        raise RecoveryFailed(
            f"could not undo every change in {root}: {'; '.join(failures)}. The original "
            f"files are kept in {txn / 'old'} (named by their place in {txn / JOURNAL})"
        )
    shutil.rmtree(txn, ignore_errors=True)


def pending(root: Path) -> bool:
    """Whether an interrupted change is waiting in `root`."""
    return (root / TRANSACTION_DIR).is_dir()


def recover(root: Path) -> str | None:
    """Finish or undo a change that was interrupted in `root`; what was done, or None.

    A committed change is kept (its leftovers deleted); any other is rolled back.
    """
    txn = root / TRANSACTION_DIR
    if not txn.is_dir():
        return None
    try:
        journal = json.loads((txn / JOURNAL).read_text(encoding="utf-8"))
    except FileNotFoundError:
        journal = {"state": "staging"}  # stopped before any project file was touched
    except (OSError, ValueError) as exc:
        raise RecoveryFailed(f"{txn / JOURNAL} cannot be read ({exc}); fix or move it") from exc
    if not isinstance(journal, dict):
        raise RecoveryFailed(f"{txn / JOURNAL} is not a kernelgen journal; fix or move it")
    if journal.get("state") == "committed":
        shutil.rmtree(txn, ignore_errors=True)
        return f"completed an interrupted change in {root} (it had been written in full)"
    with HeldSignals():
        _roll_back(root, journal)
    return f"rolled back an interrupted change in {root}: the project is as it was before it"
