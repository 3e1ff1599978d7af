"""`update_project`: bring a project to the installed kernelgen's templates, keeping its edits.

The project is re-rendered from the options and kernels its kernelgen.toml records; every file
kernelgen generated, or generates now, is then reconciled (kernelgen.reconcile): unedited files
take the new text, edited ones are merged three ways from the pristine copy in
.kernelgen/generated/, new template files are added, dropped ones deleted if untouched. Files
kernelgen never generated are not touched. The whole change goes through the journal, so it
lands entirely or not at all.

By default an update runs only in a git work tree with nothing uncommitted, so the user can
always see it (`git diff`) and undo it (`git checkout .`), as copier requires.
"""

from __future__ import annotations

import dataclasses
import difflib
import subprocess
from pathlib import Path, PurePosixPath

from kernelgen import __version__
from kernelgen.catalog import Catalog
from kernelgen.errors import ProjectConflict
from kernelgen.generate import (
    nothing_written_on_os_error,
    reconcile_file,
    recover_interrupted_change,
    render_project,
)
from kernelgen.manifest import find_project_root, pristine_path, read_manifest, sha256
from kernelgen.project_lock import locked
from kernelgen.reconcile import Action, FileChange
from kernelgen.render import FileSet
from kernelgen.writer import Status, plan, write_into

GIT_TIMEOUT_S = 30


@dataclasses.dataclass(frozen=True)
class UpdateResult:
    """What `update_project` changed (or, on a dry run, would change)."""

    root: Path
    changes: list[FileChange]  # every generated file whose fate is not "unchanged"
    dry_run: bool
    from_version: str  # the kernelgen that last wrote the project
    to_version: str
    recovered: str | None = None

    @property
    def conflicts(self) -> list[FileChange]:
        return [c for c in self.changes if c.action is Action.CONFLICT]


def uncommitted_changes(root: Path) -> list[str] | None:
    """`git status --porcelain` lines for the project folder (untracked files included);
    None when it is not in a git work tree, or git cannot be run."""
    try:
        result = subprocess.run(
            ["git", "-C", str(root), "status", "--porcelain", "--", "."],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=GIT_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if result.returncode != 0:
        return None
    return result.stdout.splitlines()


def _check_committed(root: Path) -> None:
    status = uncommitted_changes(root)
    if status is None:
        raise ProjectConflict(
            f"{root} is not in a git work tree, so an update could not be reviewed or undone; "
            "commit the project to git first, or update with force",
            option="force",
        )
    if status:
        example = status[0][3:]
        raise ProjectConflict(
            f"{root} has uncommitted changes ({len(status)} file(s), e.g. {example}); commit or "
            "stash them first so the update can be reviewed and undone, or update with force",
            option="force",
        )


def update_project(
    project: Path | str,
    *,
    dry_run: bool = False,
    force: bool = False,
    catalog: Catalog | None = None,
) -> UpdateResult:
    """Bring the project at or above `project` to the templates of `catalog` (default: the
    installed kernelgen's). `force` skips the check for uncommitted git changes."""
    root = find_project_root(Path(project))
    with locked(root):
        recovered = recover_interrupted_change(root, dry_run)
        manifest = read_manifest(root)
        if not force:
            _check_committed(root)
        rendered = render_project(manifest.options, catalog)
        paths = sorted({*rendered.files, *map(PurePosixPath, manifest.generated)})
        changes = [reconcile_file(root, manifest, p, rendered.files.get(p)) for p in paths]
        wanted: FileSet = {c.path: c.after for c in changes if c.after is not None}
        wanted.update(rendered.pristine(rendered.files))
        generated = {str(p): sha256(content) for p, content in rendered.files.items()}
        wanted.update(rendered.record(generated))
        delete = [c.path for c in changes if c.action is Action.DELETE]
        # The pristine copies of files no longer generated (plan skips those that are gone).
        delete += [pristine_path(p) for p in paths if p not in rendered.files]
        planned = plan(wanted, root, may_overwrite=set(wanted), delete=delete)
        if not dry_run and any(item.status is not Status.IDENTICAL for item in planned):
            with nothing_written_on_os_error(root):
                write_into(planned, root)
    return UpdateResult(
        root,
        [c for c in changes if c.action is not Action.UNCHANGED],
        dry_run,
        manifest.kernelgen_version,
        __version__,
        recovered,
    )


def unified_diff(change: FileChange) -> str:
    """The change to one file as a unified diff (a/ the file now, b/ after the update)."""
    if not change.writes:
        return ""
    before = (change.before or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    after = (change.after or b"").decode("utf-8", errors="replace").splitlines(keepends=True)
    old = f"a/{change.path}" if change.before is not None else "/dev/null"
    new = f"b/{change.path}" if change.after is not None else "/dev/null"
    lines = difflib.unified_diff(before, after, old, new)
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )
