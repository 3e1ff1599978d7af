"""The library entry points: `new_project` and `add_kernel`.

Each runs the pipeline end to end: options -> catalog -> render (in memory) -> manifest ->
writer. The CLI is a thin wrapper over these; tests and scripts can call them directly:

    from kernelgen import KernelChoice, ProjectOptions, new_project
    new_project(ProjectOptions("myops", "myops", (KernelChoice("vector_add", "vector_add"),)), "myops")
"""

from __future__ import annotations

import contextlib
import dataclasses
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from kernelgen import __version__, journal
from kernelgen.catalog import KERNEL_METADATA, find_kernel, project_skeleton
from kernelgen.errors import InvalidInput, KernelgenError, ProjectConflict
from kernelgen.fs import read_regular_file
from kernelgen.manifest import MANIFEST_NAME, Manifest, find_project_root, read_manifest, sha256
from kernelgen.options import (
    STABLE_ABI_MIN_TORCH,
    KernelChoice,
    ProjectOptions,
    torch_target_version,
    validate_op_name,
)
from kernelgen.project_lock import locked
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


def _arch_number(arch: str) -> float:
    return float(arch.split("+")[0].rstrip("af"))


def check_arch_list_fits_kernels(options: ProjectOptions) -> None:
    """Refuse an --arch older than a chosen kernel needs, before anything is compiled."""
    for choice in options.kernels:
        needed = find_kernel(choice.template).min_arch
        too_old = [
            a for a in options.arch_list if needed and _arch_number(a) < _arch_number(needed)
        ]
        if too_old:
            raise InvalidInput(
                f"the {choice.template} kernel needs compute capability {needed} or newer, but --arch "
                f"includes {', '.join(too_old)}; drop it or choose {needed}+"
            )


def project_ops(options: ProjectOptions) -> list[str]:
    """Every torch op the project defines, in order; refuses duplicates and bad names."""
    seen: dict[str, str] = {}
    for choice in options.kernels:
        for op in find_kernel(choice.template).ops_for(choice.name):
            validate_op_name(op)
            if op in seen:
                raise InvalidInput(
                    f"op name {op!r} is already defined (by the {seen[op]} kernel); "
                    "give this kernel another name"
                )
            seen[op] = choice.template
    return list(seen)


def _context(options: ProjectOptions) -> dict[str, Any]:
    kernels = []
    for choice in options.kernels:
        template = find_kernel(choice.template)
        kernels.append(
            {
                "template": choice.template,
                "name": choice.name,
                "ops": template.ops_for(choice.name),
                "description": template.description,
                "variant": template.variants.get(template.variant_for(choice.name) or "", {}),
                "variant_chosen_by_name": choice.name in template.variants,
            }
        )
    return {
        "kernelgen_version": __version__,
        "package": options.package,
        "namespace": options.namespace,
        "distribution": options.distribution,
        "arch_list": ";".join(options.arch_list),
        "abi": options.abi,
        "stable_abi_min_torch": STABLE_ABI_MIN_TORCH,
        "torch_target_version": torch_target_version(STABLE_ABI_MIN_TORCH),
        "kernels": kernels,
        "ops": project_ops(options),
    }


def _variant_notes(kernels: tuple[KernelChoice, ...], package: str) -> list[str]:
    """For each instance whose name picks none of its template's variants: what it computes
    now, and the two places that define its math."""
    notes = []
    for choice in kernels:
        template = find_kernel(choice.template)
        variant = template.variant_for(choice.name)
        if variant is None or variant == choice.name:
            continue
        name = choice.name
        known = ", ".join(template.variants)
        notes.append(
            f"{name} computes {template.variants[variant]['title']} ({name} is not one of {known}): "
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


def _render_kernel(choice: KernelChoice, context: dict[str, Any]) -> FileSet:
    template = find_kernel(choice.template)
    kernel_context = {**context, "name": choice.name, "dtypes": template.dtypes}
    if (variant := template.variant_for(choice.name)) is not None:
        kernel_context["variant"] = template.variants[variant]
        kernel_context["variant_chosen_by_name"] = variant == choice.name
    return _render_for_abi(template.root, kernel_context, frozenset({KERNEL_METADATA}))


def _owned_paths(options: ProjectOptions) -> list[PurePosixPath]:
    return [PurePosixPath(p.format(package=options.package)) for p in OWNED_FILES]


def render_project(
    options: ProjectOptions, previously_generated: dict[str, str] | None = None
) -> tuple[FileSet, dict[str, FileSet]]:
    """Render a whole project: all its files, and each kernel instance's own files by name.

    The manifest records the digest of every file as rendered here; `previously_generated`
    (add-kernel's) keeps the digests of the files it does not rewrite.
    """
    check_arch_list_fits_kernels(options)
    context = _context(options)
    files = _render_for_abi(project_skeleton(), context, frozenset())
    files[PurePosixPath("cuda_env.py")] = CUDA_ENV_MODULE.read_bytes()
    per_kernel: dict[str, FileSet] = {}
    for choice in options.kernels:
        kernel_files = _render_kernel(choice, context)
        for path in kernel_files:
            if path in files:
                raise InvalidInput(
                    f"kernel name {choice.name!r} would generate {path}, which the project "
                    "already has; pass another name"
                )
        files.update(kernel_files)
        per_kernel[choice.name] = kernel_files
    generated = {str(p): sha256(content) for p, content in files.items()}
    if previously_generated is not None:
        rewritten = {str(p) for p in _owned_paths(options)}
        rewritten |= {str(p) for p in per_kernel[options.kernels[-1].name]}
        generated = {**previously_generated, **{p: generated[p] for p in rewritten}}
    manifest = Manifest(
        kernelgen_version=__version__,
        options=options,
        owned={str(p): sha256(files[p]) for p in _owned_paths(options)},
        ops={c.name: find_kernel(c.template).ops_for(c.name) for c in options.kernels},
        generated=generated,
    )
    files[PurePosixPath(MANIFEST_NAME)] = manifest.to_toml().encode("utf-8")
    return files, per_kernel


def _benchmarks(files: FileSet) -> list[str]:
    return sorted(
        str(p) for p in files if p.parts[0] == "benchmarks" and p.name.startswith("bench_")
    )


def _unedited_generated_files(destination: Path, files: FileSet) -> set[PurePosixPath]:
    """The files in `destination` that its manifest shows kernelgen generated and nobody has
    edited since: the only ones `new --force` may replace."""
    if not (destination / MANIFEST_NAME).exists():
        return set()
    recorded = read_manifest(destination).generated
    unedited = {PurePosixPath(MANIFEST_NAME)}
    for path in files:
        target = destination / path
        if str(path) in recorded and target.is_file() and not target.is_symlink():
            if sha256(read_regular_file(target, str(path))) == recorded[str(path)]:
                unedited.add(path)
    return unedited


def _check_force_keeps_recorded_kernels(destination: Path, options: ProjectOptions) -> None:
    """`new --force` over a project must not drop kernels added to it since."""
    if not (destination / MANIFEST_NAME).exists():
        return
    recorded = read_manifest(destination).options.kernels
    dropped = [k for k in recorded if k not in options.kernels]
    if dropped:
        listed = ", ".join(f"{k.template}={k.name}" for k in dropped)
        raise ProjectConflict(
            f"{destination} is a kernelgen project with kernels this `new` would drop ({listed}); "
            "pass them with --kernel too, or use add-kernel; nothing was written"
        )


def new_project(
    options: ProjectOptions, destination: Path | str, *, dry_run: bool = False, force: bool = False
) -> GenerationResult:
    """Generate a project in `destination`, which must be missing or empty unless `force`.

    `force` writes into a non-empty folder, replacing only the files its kernelgen.toml shows
    kernelgen generated and nobody has edited since; any other file in the way is refused.
    """
    destination = Path(destination)
    if destination.exists() and not destination.is_dir():
        raise InvalidInput(f"{destination} exists and is not a folder")
    files, _ = render_project(options)
    notes = _variant_notes(options.kernels, options.package)
    kernel_ops = {c.name: find_kernel(c.template).ops_for(c.name) for c in options.kernels}
    if not destination.exists():
        planned = plan(files, destination)
        if not dry_run:
            with _nothing_written_on_os_error(destination):
                write_new_tree(files, destination)
        return GenerationResult(
            destination, planned, dry_run, _benchmarks(files), notes, kernel_ops
        )
    with locked(destination):
        recovered = _recover(destination, dry_run)
        if any(destination.iterdir()) and not force:
            raise InvalidInput(
                f"{destination} exists and is not empty; choose a new folder, or pass --force to "
                "write into it (replacing only files kernelgen generated there, unedited)"
            )
        if force:
            _check_force_keeps_recorded_kernels(destination, options)
        replaceable = _unedited_generated_files(destination, files) if force else set()
        planned = plan(files, destination, may_overwrite=replaceable)
        if not dry_run:
            with _nothing_written_on_os_error(destination):
                write_into(planned, destination)
    result = GenerationResult(destination, planned, dry_run, _benchmarks(files), notes, kernel_ops)
    return dataclasses.replace(result, recovered=recovered)


def _recover(root: Path, dry_run: bool) -> str | None:
    """Finish or undo a change a previous command left half done (a kill, a power cut)."""
    if not journal.pending(root):
        return None
    if dry_run:
        raise ProjectConflict(
            f"an interrupted kernelgen change is pending in {root}; run the command without "
            "--dry-run once, which rolls it back first"
        )
    return journal.recover(root)


@contextlib.contextmanager
def _nothing_written_on_os_error(where: Path) -> Iterator[None]:
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


def add_kernel(
    project: Path | str, template: str, name: str | None = None, *, dry_run: bool = False
) -> GenerationResult:
    """Add one instance of the reference kernel `template` to the project at or above `project`."""
    root = find_project_root(Path(project))
    choice = KernelChoice(template, name or find_kernel(template).default_name)
    with locked(root):  # from reading the manifest to writing it back
        recovered = _recover(root, dry_run)
        manifest = read_manifest(root)
        options = dataclasses.replace(manifest.options, kernels=(*manifest.options.kernels, choice))
        files, per_kernel = render_project(options, previously_generated=manifest.generated)
        _check_owned_files_untouched(root, manifest)
        owned = {*_owned_paths(options), PurePosixPath(MANIFEST_NAME)}
        wanted = {**per_kernel[choice.name], **{p: files[p] for p in owned}}
        planned = plan(wanted, root, may_overwrite=owned)
        if not dry_run:
            with _nothing_written_on_os_error(root):
                write_into(planned, root)
    notes = _variant_notes((choice,), options.package)
    kernel_ops = {choice.name: find_kernel(template).ops_for(choice.name)}
    benchmarks = _benchmarks(per_kernel[choice.name])
    return GenerationResult(root, planned, dry_run, benchmarks, notes, kernel_ops, recovered)


__all__ = ["GenerationResult", "Status", "add_kernel", "new_project", "render_project"]
