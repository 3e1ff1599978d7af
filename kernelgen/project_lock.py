"""One writer at a time: an advisory lock on a project folder, held for a whole command.

add-kernel reads kernelgen.toml, renders, and writes it back; two runs at once would each
add their kernel to the manifest they read, and one kernel would be lost. The lock is
`flock` on the project folder itself (no lock file to leave behind); a second command waits
a few seconds for the first, then refuses with one line. The kernel releases a lock whose
process died, so a kill never leaves the project locked.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Iterator
from pathlib import Path

from kernelgen.errors import ProjectConflict

try:
    import fcntl
except ImportError:  # pragma: no cover (Windows: no flock; commands are not serialised)
    fcntl = None  # type: ignore[assignment]

WAIT_S = 10.0


@contextlib.contextmanager
def locked(folder: Path, wait_s: float = WAIT_S) -> Iterator[None]:
    """Hold the lock on `folder` (which must exist) for the duration of the block."""
    if fcntl is None:  # pragma: no cover
        yield
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        deadline = time.monotonic() + wait_s
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise ProjectConflict(
                        f"another kernelgen command is changing {folder} (waited {wait_s:.0f} s); "
                        "run this one when it has finished"
                    ) from None
                time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # releases the lock
