"""Find the templates: the project skeleton and the reference kernels, with their metadata.

Both folders ship inside the installed package (kernelgen/templates, kernelgen/reference_kernels)
and sit at the top of a source checkout; `data_dir` finds them in either place.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path

from kernelgen.errors import InvalidInput, KernelgenError

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


def project_skeleton() -> Path:
    """The folder `new` renders into every project."""
    return data_dir("templates") / "project"


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


@cache
def all_kernels() -> dict[str, KernelTemplate]:
    """Every reference kernel, by template name, in sorted order."""
    root = data_dir("reference_kernels")
    folders = sorted(p for p in root.iterdir() if (p / KERNEL_METADATA).is_file())
    return {folder.name: _load_kernel(folder) for folder in folders}


def find_kernel(template: str) -> KernelTemplate:
    """The reference kernel called `template`, or a usage error listing the known ones."""
    kernels = all_kernels()
    if template not in kernels:
        known = ", ".join(kernels)
        raise InvalidInput(f"unknown kernel template {template!r}; choose from: {known}")
    return kernels[template]


def default_names() -> dict[str, str]:
    """Template name -> the instance name used when the user gives none."""
    return {name: kernel.default_name for name, kernel in all_kernels().items()}
