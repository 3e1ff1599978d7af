"""The command line: parse arguments, prompt for what is missing, print results.

Only parsing and presentation live here; the work is done by kernelgen.generate, and every
expected failure is a click exception from kernelgen.errors (a message, never a traceback).
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path, PurePosixPath

import click

from kernelgen import __version__
from kernelgen.catalog import all_kernels, installed
from kernelgen.errors import InvalidInput, KernelgenError
from kernelgen.generate import GenerationResult, add_kernel, new_project
from kernelgen.manifest import PRISTINE_DIR
from kernelgen.options import (
    ABIS,
    STABLE_ABI_MIN_TORCH,
    KernelChoice,
    ProjectOptions,
    default_package_name,
    parse_arch_list,
    validate_arch_list,
    validate_namespace,
    validate_new_package_name,
)
from kernelgen.reconcile import Action, FileChange
from kernelgen.update import UpdateResult, unified_diff, update_project
from kernelgen.writer import Status

DEFAULT_ARCH = "9.0"
# Exit status of `update` when it wrote conflict markers for the user to resolve.
EXIT_CONFLICTS = 3

# The flag that sets each input a library error can blame (KernelgenError.option).
_HINTS = {
    "package": "pass a valid one with --package",
    "namespace": "pass a valid one with --namespace",
    "kernels": "check --kernel",
    "arch_list": "check --arch",
    "abi": "check --abi",
    "force": "pass --force",
    "project": "pass --project",
}
_ADD_KERNEL_HINTS = {**_HINTS, "kernels": "check TEMPLATE and --name"}


def _cli_message(exc: KernelgenError, command: str | None) -> str:
    hints = _ADD_KERNEL_HINTS if command == "add-kernel" else _HINTS
    hint = hints.get(exc.option or "")
    return f"{exc.message} ({hint})" if hint else exc.message


class _Group(click.Group):
    """Turns the library's errors into click's: a one-line message and the error's exit code."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except InvalidInput as exc:
            raise click.UsageError(_cli_message(exc, ctx.invoked_subcommand)) from exc
        except KernelgenError as exc:  # exit 1
            raise click.ClickException(_cli_message(exc, ctx.invoked_subcommand)) from exc


def _ask(prompt: str, default: str, check: Callable[[str], object]) -> str:
    """Prompt until `check` accepts the answer; a refusal names the prompt and asks again."""

    def accept(value: str) -> str:
        value = value.strip()
        try:
            check(value)
        except InvalidInput as exc:
            raise click.UsageError(f"{prompt}: {exc.message}") from exc
        return value

    return str(click.prompt(prompt, default=default, value_proc=accept))


def _check_kernel_specs(answer: str) -> None:
    specs = [spec for spec in answer.split(",") if spec.strip()]
    if not specs:
        raise InvalidInput("name at least one kernel")
    for spec in specs:
        installed().resolve(KernelChoice.parse(spec))


def _interactive(no_input: bool) -> bool:
    return not no_input and sys.stdin.isatty()


def _tree(paths: list[str]) -> list[tuple[str, str | None]]:
    """Indented tree lines for relative paths: (text, path) with path None for folders."""
    lines: list[tuple[str, str | None]] = []
    shown: set[tuple[str, ...]] = set()
    for path in sorted(paths):
        parts = tuple(path.split("/"))
        for depth in range(len(parts) - 1):
            folder = parts[: depth + 1]
            if folder not in shown:
                shown.add(folder)
                lines.append(("  " * depth + folder[-1] + "/", None))
        lines.append(("  " * (len(parts) - 1) + parts[-1], path))
    return lines


_STATUS_NOTE = {
    Status.CREATE: "",
    Status.IDENTICAL: "  (identical, kept)",
    Status.OVERWRITE: "  (replaced)",
}


def _report(result: GenerationResult, verb: str) -> None:
    if result.recovered:
        click.echo(f"kernelgen: {result.recovered}", err=True)
    prefix = "Would write" if result.dry_run else verb
    project_files = [
        f for f in result.files if not PurePosixPath(f.path).is_relative_to(PRISTINE_DIR)
    ]
    pristine_count = len(result.files) - len(project_files)
    click.echo(f"{prefix} {len(project_files)} files in {result.root}:")
    status = {str(f.path): f.status for f in project_files}
    for text, path in _tree(list(status)):
        click.echo(f"  {text}{_STATUS_NOTE[status[path]] if path else ''}")
    # The pristine copies mirror the files above; one line says they are there and why.
    if pristine_count:
        click.echo(
            f"  {PRISTINE_DIR}/  ({pristine_count} files: copies as generated, "
            "the base `kernelgen update` merges from)"
        )
    for name, ops in result.kernel_ops.items():
        click.echo(f"Kernel {name}: ops {', '.join(ops)}")


def _next_steps(result: GenerationResult, new: bool) -> None:
    """The commands to run next, the same ones the generated README gives."""
    for note in result.notes:
        click.echo(f"\nNote: {note}.")
    if result.dry_run:
        click.echo("Dry run: nothing was written.")
        return
    click.echo("\nNext:")
    if new:
        click.echo(f"  cd {result.root}")
        click.echo(
            '  pip install --no-build-isolation -e ".[test]"   # build against your torch, once'
        )
    else:
        click.echo(
            "  python setup.py build_ext --inplace   # compile the new kernel (only what changed)"
        )
    click.echo("  pytest")
    kernels = [Path(bench).stem.removeprefix("bench_") for bench in result.benchmarks]
    only = "" if new else " --only " + " ".join(kernels)
    click.echo(f"  python -m benchmarks{only}   # time against the PyTorch baseline")
    if new:
        click.echo(
            "After editing a kernel: python setup.py build_ext --inplace   # recompiles that file only"
        )


@click.group(cls=_Group, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="kernelgen")
def main() -> None:
    """Scaffold PyTorch C++/CUDA extension projects from tested reference kernels.

    \b
    Example:
      kernelgen new myops --kernel vector_add --kernel activation=my_gelu
      cd myops && pip install --no-build-isolation -e ".[test]" && pytest
    """


@main.command("new")
@click.argument("directory", type=click.Path(file_okay=False))
@click.option(
    "--kernel",
    "-k",
    "kernels",
    multiple=True,
    metavar="TEMPLATE[=NAME]",
    help="Reference kernel to include, optionally renamed; repeatable. Default: vector_add. "
    "See `kernelgen list`.",
)
@click.option(
    "--package", help="Python package name. Default: DIRECTORY's name, '-' and '.' as '_'."
)
@click.option("--name", "old_package_flag", hidden=True, help="Old spelling of --package.")
@click.option("--namespace", help="torch.ops namespace of the ops. Default: the package name.")
@click.option(
    "--arch",
    "arches",
    multiple=True,
    metavar="CC",
    help=f"CUDA compute capability to build for when no GPU is visible; repeatable. Default: {DEFAULT_ARCH}.",
)
@click.option(
    "--abi",
    type=click.Choice(ABIS),
    default="standard",
    show_default=True,
    help="C++ ABI to build on. 'stable': PyTorch's stable ABI, one abi3 wheel for torch "
    f"{STABLE_ABI_MIN_TORCH} and every later release; 'standard': torch's full C++ API, a wheel "
    "per torch release.",
)
@click.option(
    "--no-input", is_flag=True, help="Do not prompt; take defaults for what is not given."
)
@click.option(
    "--dry-run", is_flag=True, help="List the files that would be written; write nothing."
)
@click.option(
    "--force",
    is_flag=True,
    help="Write into a non-empty DIRECTORY, replacing only files kernelgen generated there "
    "and nobody edited since; any other file in the way is refused.",
)
def new_command(
    directory: str,
    kernels: tuple[str, ...],
    package: str | None,
    old_package_flag: str | None,
    namespace: str | None,
    arches: tuple[str, ...],
    abi: str,
    no_input: bool,
    dry_run: bool,
    force: bool,
) -> None:
    """Create a new extension project in DIRECTORY.

    \b
    Examples:
      kernelgen new myops
      kernelgen new my-ops --kernel vector_add --kernel activation=my_gelu --arch 8.0 --arch 9.0
      kernelgen new myops --kernel sparse --kernel wmma --no-input --dry-run
      kernelgen new myops --kernel vector_add --abi stable   # one wheel for every torch
    """
    if not directory.strip():
        raise InvalidInput(
            "DIRECTORY is empty; name the folder to create, e.g. kernelgen new myops"
        )
    if old_package_flag is not None:
        click.echo("kernelgen: `new --name` is now `new --package`", err=True)
        package = package or old_package_flag
    folder = Path(directory)
    interactive = _interactive(no_input)
    if package is None:
        proposed = default_package_name(folder)
        if interactive:
            package = _ask("Python package name", proposed, validate_new_package_name)
        else:
            package = proposed
            try:
                validate_new_package_name(package)
            except InvalidInput as exc:
                raise click.UsageError(
                    f"{exc.message} (the default comes from {folder.name!r}; pass --package)"
                ) from exc
    else:
        validate_new_package_name(package)
    if namespace is None:
        namespace = (
            _ask("torch.ops namespace", package, validate_namespace) if interactive else package
        )
    if not kernels and interactive:
        listed = ", ".join(all_kernels())
        answer = _ask(
            f"Kernels ({listed}; TEMPLATE[=NAME], comma-separated)",
            "vector_add",
            _check_kernel_specs,
        )
        kernels = tuple(k for k in answer.split(",") if k.strip())
    if not arches and interactive:
        arches = (
            _ask(
                "CUDA archs to build for when no GPU is visible",
                DEFAULT_ARCH,
                lambda v: validate_arch_list(parse_arch_list([v])),
            ),
        )
    choices = tuple(KernelChoice.parse(spec) for spec in (kernels or ("vector_add",)))
    options = ProjectOptions(
        package=package,
        namespace=namespace,
        kernels=choices,
        arch_list=parse_arch_list(arches or (DEFAULT_ARCH,)),
        abi=abi,
    )
    result = new_project(options, folder, dry_run=dry_run, force=force)
    _report(result, "Created")
    _next_steps(result, new=True)


# Where add-kernel and update find the project: the folder given, or the nearest one above
# it holding a kernelgen.toml.
_project_option = click.option(
    "--project",
    type=click.Path(file_okay=False, path_type=Path),
    default=Path("."),
    show_default=True,
    help="The project folder (or any folder inside it).",
)


@main.command("add-kernel")
@click.argument("template")
@click.option(
    "--name", help="Name of the new kernel (its ops derive from it). Default: the template's."
)
@_project_option
@click.option(
    "--dry-run", is_flag=True, help="List the files that would be written; write nothing."
)
def add_kernel_command(template: str, name: str | None, project: Path, dry_run: bool) -> None:
    """Add a kernel from TEMPLATE to an existing kernelgen project.

    Writes the kernel's C++/CUDA sources, Python API, tests, benchmark and docs page, and
    regenerates the package __init__ and kernelgen.toml. Refuses if a file it would write
    exists, or if the __init__ was edited by hand.

    \b
    Examples:
      kernelgen add-kernel activation --name my_gelu
      kernelgen add-kernel sparse --project path/to/myops --dry-run
    """
    result = add_kernel(project, template, name, dry_run=dry_run)
    _report(result, "Wrote")
    for change in result.merged:
        click.echo(f"  {_describe(change)}")
    _next_steps(result, new=False)


_ACTION_WORDS = {
    Action.CREATE: "added",
    Action.REPLACE: "updated",
    Action.MERGE: "merged with your edits",
    Action.CONFLICT: "CONFLICT",
    Action.DELETE: "deleted",
    Action.KEEP: "kept",
}


def _describe(change: FileChange) -> str:
    reason = f": {change.reason}" if change.reason else ""
    return f"{_ACTION_WORDS[change.action]:<22} {change.path}{reason}"


def _report_update(result: UpdateResult) -> None:
    if result.recovered:
        click.echo(f"kernelgen: {result.recovered}", err=True)
    versions = f"kernelgen {result.from_version} -> {result.to_version}"
    if not result.changes:
        click.echo(f"{result.root} is up to date with its templates ({versions}).")
        return
    if result.dry_run:
        for change in result.changes:
            click.echo(unified_diff(change), nl=False)
    verb = "Would update" if result.dry_run else "Updated"
    click.echo(f"{verb} {result.root} ({versions}):")
    for change in result.changes:
        click.echo(f"  {_describe(change)}")
    if result.dry_run:
        click.echo("Dry run: nothing was written.")
    elif result.conflicts:
        click.echo(
            f"\n{len(result.conflicts)} file(s) have conflicts: edit them to keep what you want "
            "between the <<<<<<< / ======= / >>>>>>> markers, then rebuild and test."
        )
    else:
        click.echo("\nNext: review with `git diff`, then rebuild and test.")


@main.command("update")
@_project_option
@click.option(
    "--dry-run", is_flag=True, help="Print what would change as a unified diff; write nothing."
)
@click.option(
    "--force", is_flag=True, help="Update even with uncommitted git changes (or outside git)."
)
def update_command(project: Path, dry_run: bool, force: bool) -> None:
    """Bring a project up to this kernelgen's templates, keeping your edits.

    Re-renders the project from the options and kernels in its kernelgen.toml. A generated
    file you never edited is replaced; one you edited is merged three ways (from the copy in
    .kernelgen/generated/), conflicts between <<<<<<< markers; a file new in the templates
    is added; one they dropped is deleted only if untouched; files kernelgen did not
    generate are never touched. All or nothing on disk. Refuses to run with uncommitted git
    changes, so you can review the update with `git diff` and undo it, unless --force.

    Exit status: 0 updated (or already up to date), 1 refused or failed (nothing written),
    2 bad usage, 3 updated with conflicts to resolve.

    \b
    Examples:
      kernelgen update --dry-run
      kernelgen update --project path/to/myops
    """
    result = update_project(project, dry_run=dry_run, force=force)
    _report_update(result)
    if result.conflicts and not dry_run:
        sys.exit(EXIT_CONFLICTS)


@main.command("list")
def list_command() -> None:
    """List the reference kernel templates, their ops and dtypes.

    \b
    Example:
      kernelgen list
    """
    for name, kernel in all_kernels().items():
        ops = ", ".join(kernel.ops_for(kernel.default_name))
        click.echo(f"{name:<12} {kernel.description}")
        click.echo(
            f"{'':<12} default name: {kernel.default_name} (ops: {ops}); dtypes: {', '.join(kernel.dtypes)}"
        )
        if kernel.variants:
            click.echo(f"{'':<12} named variants: {', '.join(kernel.variants)}")


@main.command("doctor")
@click.option(
    "--project",
    type=click.Path(file_okay=False, exists=True, path_type=Path),
    default=None,
    help="Also check this kernelgen project: its manifest, its built extension, stale build locks.",
)
@click.option("--json", "as_json", is_flag=True, help="Print the checks as JSON (for CI).")
def doctor_command(project: Path | None, as_json: bool) -> None:
    """Check the CUDA build environment; say what to fix.

    Exit status: 0 when a CUDA build can proceed, 1 when only a CPU build can, 2 when
    nothing can.

    \b
    Examples:
      kernelgen doctor
      kernelgen doctor --project . --json
    """
    from kernelgen import doctor  # imports subprocess-heavy code only when asked

    checks = doctor.run_checks(doctor.this_machine(), project)
    code = doctor.exit_code(checks)
    if as_json:
        click.echo(doctor.to_json(checks))
    else:
        colours = {"ok": "green", "warning": "yellow", "error": "red"}
        for check in checks:
            status = click.style(f"{check.status.value:<8}", fg=colours[check.status.value])
            click.echo(f"{status} {check.name:<22} {check.message}")
        verdict = {
            0: "a CUDA build can proceed",
            1: "only a CPU build can proceed",
            2: "no build can proceed",
        }
        click.echo(f"\n{verdict[code]} (exit {code})")
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    main()
