"""Decide what becomes of one generated file when kernelgen renders it anew.

Given the file on disk, what kernelgen generated there last time (its digest, from the
manifest, and its text, from the pristine copy) and what it generates now, `reconcile` says
what to write, if anything, and why:

- a file the user never edited takes the new text;
- an edited file is merged three ways (kernelgen.merge), conflicts between markers;
- a file new in the templates is added, unless one the user made is in the way;
- a file the templates dropped is deleted only if nobody edited it;
- a generated file the user deleted stays deleted.

`update` runs it for every file; `add-kernel` for the files that describe the whole project.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass
from pathlib import PurePosixPath

from kernelgen.errors import ProjectConflict
from kernelgen.manifest import sha256
from kernelgen.merge import merge3


class Action(enum.Enum):
    """What reconciling did to a file (or, on a dry run, would do)."""

    UNCHANGED = "unchanged"  # already as generated now
    CREATE = "create"  # new in the templates
    REPLACE = "replace"  # unedited: takes the new text
    MERGE = "merge"  # edited: merged cleanly
    CONFLICT = "conflict"  # edited: merged with conflict markers
    DELETE = "delete"  # dropped from the templates, unedited
    KEEP = "keep"  # not touched: edited and dropped, deleted by the user, or not kernelgen's


@dataclass(frozen=True)
class FileChange:
    path: PurePosixPath
    action: Action
    before: bytes | None  # on disk now (None: no file)
    after: bytes | None  # what to write (None: delete, or nothing to write)
    reason: str = ""  # for KEEP and CONFLICT: what the user should know

    @property
    def writes(self) -> bool:
        return self.action in (
            Action.CREATE,
            Action.REPLACE,
            Action.MERGE,
            Action.CONFLICT,
            Action.DELETE,
        )


def _text(data: bytes, path: PurePosixPath, whose: str) -> str:
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ProjectConflict(
            f"{path}: {whose} is not UTF-8 text, so it cannot be merged; restore it from "
            "version control"
        ) from exc


def reconcile(
    path: PurePosixPath,
    current: bytes | None,
    recorded_digest: str | None,
    base: bytes | None,
    new: bytes | None,
    new_label: str,
) -> FileChange:
    """The change that brings `path` from `current` to `new` without losing the user's edits.

    `recorded_digest` is the manifest's digest of the file as last generated (None: kernelgen
    never generated it); `base` the pristine copy of that text (None: not kept).
    """
    edited = current is not None and sha256(current) != recorded_digest
    if new is None:
        if current is None or recorded_digest is None:
            return FileChange(path, Action.UNCHANGED, current, None)
        if edited:
            return FileChange(
                path, Action.KEEP, current, None, "no longer generated; kept, as you edited it"
            )
        return FileChange(path, Action.DELETE, current, None)
    if current == new:
        return FileChange(path, Action.UNCHANGED, current, None)
    if current is None:
        if recorded_digest is not None:
            return FileChange(path, Action.KEEP, None, None, "you deleted it; not recreated")
        return FileChange(path, Action.CREATE, None, new)
    if recorded_digest is None:
        return FileChange(
            path,
            Action.KEEP,
            current,
            None,
            "kernelgen now generates this file, but yours is there",
        )
    if not edited:
        return FileChange(path, Action.REPLACE, current, new)
    # An edited file: merge from what was generated then. Without the pristine copy (a
    # project from before kernelgen kept one) every difference is a conflict to resolve.
    base_text = _text(base, path, "the pristine copy") if base is not None else ""
    if base is not None and sha256(base) != recorded_digest:
        base_text = ""  # the copy does not match the manifest: trust neither
    merged = merge3(base_text, _text(current, path, "your file"), _text(new, path, "it"), new_label)
    after = merged.text.encode("utf-8")
    if merged.conflicts:
        reason = f"{merged.conflicts} conflict(s): resolve the <<<<<<< markers"
        return FileChange(path, Action.CONFLICT, current, after, reason)
    if after == current:
        return FileChange(path, Action.UNCHANGED, current, None)
    return FileChange(path, Action.MERGE, current, after)
