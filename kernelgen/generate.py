"""The library entry points `new_project` and `add_kernel`, and the rendering they share.

Each runs the pipeline end to end: options -> catalog (resolve the kernels) -> render (in
memory) -> manifest -> writer. The CLI is a thin wrapper over these; tests and scripts can
call them directly:

    from kernelgen import KernelChoice, ProjectOptions, new_project
    new_project(ProjectOptions("myops", "myops", (KernelChoice("vector_add"),)), "myops")

A project's files are always rendered from its whole kernel list, so `new` with kernels A
and B and `new` with A followed by `add_kernel` B give the same tree.
"""

from __future__ import annotations

import ast
import contextlib
import dataclasses
import re
from collections import Counter
from collections.abc import Iterable, Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from kernelgen import __version__, journal
from kernelgen.catalog import KERNEL_METADATA, Catalog, KernelInstance, installed
from kernelgen.ci_matrix import ci_matrix
from kernelgen.errors import InvalidInput, KernelgenError, ProjectConflict
from kernelgen.fs import read_regular_file
from kernelgen.manifest import (
    MANIFEST_NAME,
    PRISTINE_DIR,
    Manifest,
    find_project_root,
    pristine_path,
    read_manifest,
    read_pristine,
    sha256,
)
from kernelgen.options import (
    STABLE_ABI_MIN_TORCH,
    KernelChoice,
    ProjectOptions,
    torch_target_version,
)
from kernelgen.project_lock import locked
from kernelgen.reconcile import Action, FileChange, reconcile
from kernelgen.render import FileSet, render_tree
from kernelgen.writer import PlannedFile, Status, plan, write_into, write_new_tree

# Generated files that kernelgen owns: add-kernel rewrites them, so they must not be edited.
OWNED_FILES = ("{package}/__init__.py",)
# A template folder's files for the stable ABI: with --abi stable each replaces the file of
# the same path in the standard tree (the kernels' host code); the rest is shared.
STABLE_ABI_FOLDER = "stable"
# The build's CUDA environment resolver is the same module `kernelgen doctor` runs.
CUDA_ENV_MODULE = Path(__file__).with_name("cuda_env.py")


@dataclasses.dataclass(frozen=True)
class GenerationResult:
    """What `new_project` or `add_kernel` wrote (or, on a dry run, would write)."""

    root: Path
    files: list[PlannedFile]
    dry_run: bool
    benchmarks: list[str]
    notes: list[str] = dataclasses.field(default_factory=list)  # what the user must do next
    kernel_ops: dict[str, tuple[str, ...]] = dataclasses.field(default_factory=dict)  # name -> ops
    recovered: str | None = None  # what was done about a change a previous command left half done
    merged: list[FileChange] = dataclasses.field(default_factory=list)  # edited files merged


@dataclasses.dataclass(frozen=True)
class RenderedProject:
    """A project rendered in memory: its kernels resolved, its files, each kernel's files."""

    options: ProjectOptions  # with every kernel's name filled in
    kernels: tuple[KernelInstance, ...]
    files: FileSet  # everything the templates generate (not the manifest or pristine copies)
    per_kernel: dict[str, FileSet]

    def record(self, generated: dict[str, str], version: str = __version__) -> FileSet:
        """The manifest, with `generated` as its digests of the files as last generated."""
        manifest = Manifest(
            kernelgen_version=version,
            options=self.options,
            owned={str(p): sha256(self.files[p]) for p in owned_paths(self.options)},
            ops={k.name: k.ops for k in self.kernels},
            generated=generated,
        )
        return {PurePosixPath(MANIFEST_NAME): manifest.to_toml().encode("utf-8")}

    def pristine(self, paths: Iterable[PurePosixPath]) -> FileSet:
        """Pristine copies of the generated files at `paths`."""
        return {pristine_path(p): self.files[p] for p in paths}

    def tree(self) -> FileSet:
        """The whole project as `new` writes it: files, pristine copies and manifest."""
        generated = {str(p): sha256(content) for p, content in self.files.items()}
        return {**self.files, **self.pristine(self.files), **self.record(generated)}


def _context(options: ProjectOptions, kernels: tuple[KernelInstance, ...]) -> dict[str, Any]:
    return {
        "kernelgen_version": __version__,
        "package": options.package,
        "namespace": options.namespace,
        "distribution": options.distribution,
        "arch_list": ";".join(options.arch_list),
        "abi": options.abi,
        "stable_abi_min_torch": STABLE_ABI_MIN_TORCH,
        "torch_target_version": torch_target_version(STABLE_ABI_MIN_TORCH),
        "ci": ci_matrix(options.abi, options.arch_list),
        "kernels": [
            {
                "template": k.template.name,
                "name": k.name,
                "ops": k.ops,
                "description": k.template.description,
                "variant": k.template.variants.get(k.variant or "", {}),
                "variant_chosen_by_name": k.name in k.template.variants,
            }
            for k in kernels
        ],
        "ops": [op for k in kernels for op in k.ops],
        "op_imports": [
            (k.name, sorted(k.ops, key=_import_member_order))
            for k in sorted(kernels, key=lambda k: _natural(k.name))
        ],
    }


def _natural(name: str) -> list[tuple[int, int | str]]:
    """Natural, case-insensitive order ("op2" before "op10"), as isort sorts modules."""
    return [(0, int(p)) if p.isdigit() else (1, p) for p in re.split(r"(\d+)", name.lower()) if p]


def _import_member_order(name: str) -> tuple[int, list[tuple[int, int | str]]]:
    """isort's order of imported names: CONSTANTS, then Classes, then functions."""
    kind = 0 if name.isupper() and len(name) > 1 else 1 if name[:1].isupper() else 2
    return kind, _natural(name)


def _variant_notes(kernels: Iterable[KernelInstance], package: str) -> list[str]:
    """For each instance whose name picks none of its template's variants: what it computes
    now, and the two places that define its math."""
    notes = []
    for kernel in kernels:
        if kernel.variant is None or kernel.variant == kernel.name:
            continue
        name = kernel.name
        known = ", ".join(kernel.template.variants)
        title = kernel.template.variants[kernel.variant]["title"]
        notes.append(
            f"{name} computes {title} ({name} is not one of {known}): "
            f"edit {name}_forward_math and {name}_derivative_math in {package}/csrc/{name}_math.h, "
            f"and reference_{name} in tests/test_{name}.py"
        )
    return notes


def _render_for_abi(root: Path, context: dict[str, Any], exclude: frozenset[str]) -> FileSet:
    """Render a template folder; for the stable ABI, its stable/ files replace their
    standard namesakes."""
    files = render_tree(root, context, exclude=exclude | {STABLE_ABI_FOLDER})
    if context["abi"] == "stable" and (root / STABLE_ABI_FOLDER).is_dir():
        files.update(render_tree(root / STABLE_ABI_FOLDER, context))
    return files


def _render_kernel(kernel: KernelInstance, context: dict[str, Any]) -> FileSet:
    kernel_context = {**context, "name": kernel.name, "dtypes": kernel.template.dtypes}
    if kernel.variant is not None:
        kernel_context["variant"] = kernel.template.variants[kernel.variant]
        kernel_context["variant_chosen_by_name"] = kernel.variant == kernel.name
    return _render_for_abi(kernel.template.root, kernel_context, frozenset({KERNEL_METADATA}))


def owned_paths(options: ProjectOptions) -> list[PurePosixPath]:
    return [PurePosixPath(p.format(package=options.package)) for p in OWNED_FILES]


def render_project(options: ProjectOptions, catalog: Catalog | None = None) -> RenderedProject:
    """Render a whole project in memory from `catalog` (default: the installed templates)."""
    catalog = catalog or installed()
    kernels = catalog.resolve_all(options)
    options = dataclasses.replace(options, kernels=tuple(k.choice for k in kernels))
    context = _context(options, kernels)
    files = _render_for_abi(catalog.skeleton, context, frozenset())
    files[PurePosixPath("cuda_env.py")] = CUDA_ENV_MODULE.read_bytes()
    per_kernel: dict[str, FileSet] = {}
    for kernel in kernels:
        kernel_files = _render_kernel(kernel, context)
        for path in kernel_files:
            if path in files:
                raise InvalidInput(
                    f"kernel name {kernel.name!r} would generate {path}, which the project "
                    "already has; give the kernel another name",
                    option="kernels",
                )
        files.update(kernel_files)
        per_kernel[kernel.name] = kernel_files
    _check_imports_not_shadowed(options.package, files)
    return RenderedProject(options, kernels, files, per_kernel)


def _bindings(tree: ast.AST) -> Counter[str]:
    """How often a module binds each name: variables, parameters, functions, classes and
    imports (a module imported whole binds its top-level name)."""
    names: Counter[str] = Counter()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names[node.id] += 1
        elif isinstance(node, ast.arg):
            names[node.arg] += 1
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names[node.name] += 1
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names)
    return names


def _names_imported_from(package: str, tree: ast.AST) -> set[str]:
    """The names a module takes from `package`: the package itself, or its ops."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name for a in node.names if a.name == package and not a.asname)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module == package:
            names.update(a.asname or a.name for a in node.names)
    return names


def _check_imports_not_shadowed(package: str, files: FileSet) -> None:
    """Refuse a package or kernel name that generated code also uses for a name of its own (a
    test's `x`, a benchmark's `dtype`): there the package or op it imports would be hidden."""
    for path, content in sorted(files.items()):
        if path.suffix != ".py":
            continue
        tree = ast.parse(content)
        bindings = _bindings(tree)
        for name in sorted(_names_imported_from(package, tree)):
            if bindings[name] > 1:
                what, option = ("package", "package") if name == package else ("op", "kernels")
                raise InvalidInput(
                    f"{what} name {name!r} is also a name in the generated {path}, where it "
                    f"would hide the {what}; choose another",
                    option=option,
                )


def _benchmarks(files: Iterable[PurePosixPath]) -> list[str]:
    return sorted(
        str(p) for p in files if p.parts[0] == "benchmarks" and p.name.startswith("bench_")
    )


def _kernelgens_own(path: PurePosixPath) -> bool:
    """Whether `path` is kernelgen's own record of a project (the manifest, the pristine
    copies), which it rewrites whenever it writes the project."""
    return path == PurePosixPath(MANIFEST_NAME) or path.is_relative_to(PRISTINE_DIR)


def _unedited_generated_files(destination: Path, files: FileSet) -> set[PurePosixPath]:
    """The files in `destination` that its manifest shows kernelgen generated and nobody has
    edited since, and kernelgen's record: the only ones `new` with force may replace."""
    if not (destination / MANIFEST_NAME).exists():
        return set()
    recorded = read_manifest(destination).generated
    unedited = {path for path in files if _kernelgens_own(path)}
    for path in files:
        target = destination / path
        if str(path) in recorded and target.is_file() and not target.is_symlink():
            if sha256(read_regular_file(target, str(path))) == recorded[str(path)]:
                unedited.add(path)
    return unedited


def _check_force_keeps_recorded_kernels(destination: Path, options: ProjectOptions) -> None:
    """`new` with force over a project must not drop kernels added to it since."""
    if not (destination / MANIFEST_NAME).exists():
        return
    recorded = read_manifest(destination).options.kernels
    dropped = [k for k in recorded if k not in options.kernels]
    if dropped:
        listed = ", ".join(f"{k.template}={k.name}" for k in dropped)
        raise ProjectConflict(
            f"{destination} is a kernelgen project with kernels this new project would drop "
            f"({listed}); include them, or add kernels with add-kernel; nothing was written",
            option="kernels",
        )


def new_project(
    options: ProjectOptions,
    destination: Path | str,
    *,
    dry_run: bool = False,
    force: bool = False,
    catalog: Catalog | None = None,
) -> GenerationResult:
    """Generate a project in `destination`, which must be missing or empty unless `force`.

    `force` writes into a non-empty folder, replacing only the files its kernelgen.toml shows
    kernelgen generated and nobody has edited since; any other file in the way is refused.
    """
    destination = Path(destination)
    if destination.exists() and not destination.is_dir():
        raise InvalidInput(f"{destination} exists and is not a folder")
    project = render_project(options, catalog)
    files = project.tree()
    notes = _variant_notes(project.kernels, options.package)
    if ci_note := ci_matrix(options.abi, options.arch_list).note:
        notes.append(ci_note)
    kernel_ops = {k.name: k.ops for k in project.kernels}
    benchmarks = _benchmarks(project.files)
    if not destination.exists():
        planned = plan(files, destination)
        if not dry_run:
            with nothing_written_on_os_error(destination):
                write_new_tree(files, destination)
        return GenerationResult(destination, planned, dry_run, benchmarks, notes, kernel_ops)
    with locked(destination):
        recovered = recover_interrupted_change(destination, dry_run)
        if any(destination.iterdir()) and not force:
            raise InvalidInput(
                f"{destination} exists and is not empty; choose a new folder, or write into it "
                "with force (replacing only files kernelgen generated there, unedited)",
                option="force",
            )
        if force:
            _check_force_keeps_recorded_kernels(destination, project.options)
        replaceable = _unedited_generated_files(destination, files) if force else set()
        planned = plan(files, destination, may_overwrite=replaceable)
        if not dry_run:
            with nothing_written_on_os_error(destination):
                write_into(planned, destination)
    return GenerationResult(destination, planned, dry_run, benchmarks, notes, kernel_ops, recovered)


def recover_interrupted_change(root: Path, dry_run: bool) -> str | None:
    """Finish or undo a change a previous command left half done (a kill, a power cut)."""
    if not journal.pending(root):
        return None
    if dry_run:
        raise ProjectConflict(
            f"an interrupted kernelgen change is pending in {root}; run the command for real "
            "once (not as a dry run), which rolls it back first"
        )
    return journal.recover(root)


@contextlib.contextmanager
def nothing_written_on_os_error(where: Path) -> Iterator[None]:
    """Turn a disk error (full, read-only, permissions) into a one-line error; the writer has
    already undone its partial work by the time it gets here."""
    try:
        yield
    except OSError as exc:
        raise KernelgenError(
            f"could not write to {where}: {exc.strerror or exc}; nothing was written"
        ) from exc


def _check_owned_files_untouched(root: Path, manifest: Manifest) -> None:
    for path, digest in sorted(manifest.owned.items()):
        target = root / path
        if not target.exists() and not target.is_symlink():
            raise ProjectConflict(
                f"{path} is missing; kernelgen owns and regenerates it. Restore it "
                "(e.g. `git checkout -- " + path + "`) and run add-kernel again"
            )
        if sha256(read_regular_file(target, path)) != digest:
            raise ProjectConflict(
                f"{path} was edited by hand since kernelgen wrote it, and add-kernel would "
                "rewrite it; move your changes to another module, restore the file, and run "
                "add-kernel again"
            )


def current_file(root: Path, path: PurePosixPath) -> bytes | None:
    """The file at `path` in the project, or None where there is none."""
    target = root / path
    if not target.exists() and not target.is_symlink():
        return None
    return read_regular_file(target, str(path))


def reconcile_file(
    root: Path, manifest: Manifest, path: PurePosixPath, new: bytes | None
) -> FileChange:
    """`reconcile` for `path` of the project at `root`, from what is on disk and recorded."""
    return reconcile(
        path,
        current_file(root, path),
        manifest.generated.get(str(path)),
        read_pristine(root, path),
        new,
        new_label=f"kernelgen {__version__}",
    )


def add_kernel(
    project: Path | str,
    template: str,
    name: str | None = None,
    *,
    dry_run: bool = False,
    catalog: Catalog | None = None,
) -> GenerationResult:
    """Add one instance of the reference kernel `template` to the project at or above `project`.

    Writes the kernel's files, regenerates the owned files and the manifest, and brings the
    files that describe the whole project (the README) to the new kernel list, merging any
    edits made to them.
    """
    root = find_project_root(Path(project))
    with locked(root):  # from reading the manifest to writing it back
        recovered = recover_interrupted_change(root, dry_run)
        manifest = read_manifest(root)
        before = render_project(manifest.options, catalog)
        options = dataclasses.replace(
            before.options, kernels=(*before.options.kernels, KernelChoice(template, name))
        )
        after = render_project(options, catalog)
        added = after.kernels[-1]
        _check_owned_files_untouched(root, manifest)
        owned = set(owned_paths(options))
        kernel_files = after.per_kernel[added.name]
        # Files of the whole project the new kernel changes (the README lists every kernel).
        described = [
            p
            for p, content in after.files.items()
            if p not in kernel_files and p not in owned and before.files.get(p) != content
        ]
        merged = [reconcile_file(root, manifest, p, after.files[p]) for p in described]
        rewritten = {
            *kernel_files,
            *owned,
            *(c.path for c in merged if c.action is not Action.KEEP),
        }
        generated = {**manifest.generated, **{str(p): sha256(after.files[p]) for p in rewritten}}
        wanted: FileSet = {p: after.files[p] for p in (*kernel_files, *owned)}
        wanted.update({c.path: c.after for c in merged if c.after is not None})
        wanted.update(after.pristine(rewritten))
        wanted.update(after.record(generated))
        planned = plan(wanted, root, may_overwrite=set(wanted) - set(kernel_files))
        if not dry_run:
            with nothing_written_on_os_error(root):
                write_into(planned, root)
    return GenerationResult(
        root,
        planned,
        dry_run,
        _benchmarks(kernel_files),
        _variant_notes((added,), options.package),
        {added.name: added.ops},
        recovered,
        [c for c in merged if c.action is not Action.UNCHANGED],
    )


__all__ = [
    "GenerationResult",
    "RenderedProject",
    "Status",
    "add_kernel",
    "new_project",
    "render_project",
]
