"""Find the templates: the project skeleton and the reference kernels, with their metadata.

Both folders ship inside the installed package (kernelgen/templates, kernelgen/reference_kernels)
and sit at the top of a source checkout; `data_dir` finds them in either place. A Catalog can
also be loaded from other folders (a test simulating a newer kernelgen does).
Resolving a user's kernel choice against the catalog happens here, once: the KernelInstance
it gives knows its template, its name and its ops.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from kernelgen.errors import InvalidInput, KernelgenError
from kernelgen.options import (
    KernelChoice,
    ProjectOptions,
    compute_capability,
    validate_kernel_name,
    validate_op_name,
)

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KERNEL_METADATA = "kernel.toml"


def data_dir(name: str) -> Path:
    """`templates` or `reference_kernels`: inside the installed package, else beside it."""
    package_dir = Path(__file__).resolve().parent
    for candidate in (package_dir / name, package_dir.parent / name):
        if candidate.is_dir():
            return candidate
    raise KernelgenError(f"kernelgen is installed without its {name}/ folder; reinstall it")


@dataclass(frozen=True)
class KernelTemplate:
    """A reference kernel: a folder of templates plus the metadata in its kernel.toml."""

    name: str
    root: Path
    description: str
    default_name: str
    dtypes: tuple[str, ...]
    op_patterns: tuple[str, ...]
    # Named alternatives the templates render from (the activation's math, say), chosen by
    # the instance's name; any other name gets `default_variant`.
    variants: dict[str, dict[str, str]] = field(default_factory=dict)
    default_variant: str | None = None
    # The oldest compute capability the kernel runs on ("7.0" for tensor cores), if any.
    min_arch: str | None = None

    def ops_for(self, name: str) -> tuple[str, ...]:
        """The torch op names one instance called `name` defines, e.g. silu, silu_backward."""
        return tuple(pattern.format(name=name) for pattern in self.op_patterns)

    def variant_for(self, name: str) -> str | None:
        """The variant an instance called `name` renders: its namesake, else the default."""
        return name if name in self.variants else self.default_variant


def _load_kernel(folder: Path) -> KernelTemplate:
    try:
        meta = tomllib.loads((folder / KERNEL_METADATA).read_text(encoding="utf-8"))
        template = KernelTemplate(
            name=folder.name,
            root=folder,
            description=str(meta["description"]),
            default_name=str(meta["default_name"]),
            dtypes=tuple(meta["dtypes"]),
            op_patterns=tuple(meta["ops"]),
            variants={
                key: {k: str(v) for k, v in table.items()}
                for key, table in meta.get("variants", {}).items()
            },
            default_variant=meta.get("default_variant"),
            min_arch=meta.get("min_arch"),
        )
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise KernelgenError(f"broken kernel template {folder}: {exc}") from exc
    if template.variants and template.default_variant not in template.variants:
        raise KernelgenError(
            f"broken kernel template {folder}: default_variant is not one of its variants"
        )
    return template


@dataclass(frozen=True)
class KernelInstance:
    """One kernel of a project, resolved: its template, its instance name, and what follows."""

    template: KernelTemplate
    name: str

    @property
    def ops(self) -> tuple[str, ...]:
        return self.template.ops_for(self.name)

    @property
    def variant(self) -> str | None:
        return self.template.variant_for(self.name)

    @property
    def choice(self) -> KernelChoice:
        """The form kernelgen.toml records."""
        return KernelChoice(self.template.name, self.name)


@dataclass(frozen=True)
class Catalog:
    """The templates a project renders from: the skeleton folder and the reference kernels."""

    skeleton: Path
    kernels: dict[str, KernelTemplate]

    @classmethod
    def load(cls, templates: Path, reference_kernels: Path) -> Catalog:
        """Read a templates folder (holding project/) and a reference_kernels folder."""
        folders = sorted(p for p in reference_kernels.iterdir() if (p / KERNEL_METADATA).is_file())
        return cls(templates / "project", {f.name: _load_kernel(f) for f in folders})

    def kernel(self, template: str) -> KernelTemplate:
        """The reference kernel called `template`, or an error listing the known ones."""
        if template not in self.kernels:
            known = ", ".join(self.kernels)
            raise InvalidInput(
                f"unknown kernel template {template!r}; choose from: {known}", option="kernels"
            )
        return self.kernels[template]

    def resolve(self, choice: KernelChoice) -> KernelInstance:
        """`choice` against this catalog: its template found, its name defaulted and checked."""
        template = self.kernel(choice.template)
        instance = KernelInstance(template, choice.name or template.default_name)
        validate_kernel_name(instance.name)
        return instance

    def resolve_all(self, options: ProjectOptions) -> tuple[KernelInstance, ...]:
        """Every kernel of a project, resolved, with every check that spans kernels: names
        and ops unique, each op a valid name, the arch list new enough for each kernel."""
        instances = tuple(self.resolve(choice) for choice in options.kernels)
        names: set[str] = set()
        ops: dict[str, str] = {}
        for instance in instances:
            if instance.name in names:
                raise InvalidInput(
                    f"a kernel named {instance.name!r} is already defined; give this one "
                    "another name",
                    option="kernels",
                )
            names.add(instance.name)
            for op in instance.ops:
                validate_op_name(op)
                if op in ops:
                    raise InvalidInput(
                        f"op name {op!r} is already defined (by the {ops[op]} kernel); "
                        "give this kernel another name",
                        option="kernels",
                    )
                ops[op] = instance.template.name
            _check_arch_list_fits(instance.template, options.arch_list)
        return instances


def _check_arch_list_fits(template: KernelTemplate, arch_list: tuple[str, ...]) -> None:
    """Refuse an arch list older than a kernel needs, before anything is compiled."""
    needed = template.min_arch
    too_old = [
        a for a in arch_list if needed and compute_capability(a) < compute_capability(needed)
    ]
    if too_old:
        raise InvalidInput(
            f"the {template.name} kernel needs compute capability {needed} or newer, but the "
            f"arch list includes {', '.join(too_old)}; drop it or choose {needed}+",
            option="arch_list",
        )


@cache
def installed() -> Catalog:
    """The templates that ship with this kernelgen."""
    return Catalog.load(data_dir("templates"), data_dir("reference_kernels"))


def all_kernels() -> dict[str, KernelTemplate]:
    """Every reference kernel of the installed kernelgen, by template name, in sorted order."""
    return installed().kernels
