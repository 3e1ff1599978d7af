"""kernelgen.toml: the record of how a project was generated, which add-kernel reads and updates.

It stores the answers given to `new`, the kernels added since, and a SHA-256 of every file
kernelgen owns and regenerates, so add-kernel can tell when one of those was edited by hand.
"""

from __future__ import annotations

import hashlib
import json
import sys
from dataclasses import dataclass, field
from pathlib import Path

from kernelgen.errors import KernelgenError, NotAProject
from kernelgen.options import KernelChoice, ProjectOptions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST_NAME = "kernelgen.toml"


def sha256(data: bytes) -> str:
    """The digest format stored for owned files."""
    return "sha256:" + hashlib.sha256(data).hexdigest()


@dataclass
class Manifest:
    """The parsed kernelgen.toml."""

    kernelgen_version: str
    options: ProjectOptions
    owned: dict[str, str] = field(default_factory=dict)
    # The torch ops each kernel defines, by kernel name: written for readers, derived on load.
    ops: dict[str, tuple[str, ...]] = field(default_factory=dict)

    def to_toml(self) -> str:
        """Serialise deterministically (sorted owned files, kernels in the order added)."""
        q = json.dumps  # a JSON string is a valid TOML basic string
        o = self.options
        lines = [
            "# Written by kernelgen: how this project was generated. `kernelgen add-kernel`",
            "# reads and updates it; keep it under version control.",
            "",
            "[kernelgen]",
            f"version = {q(self.kernelgen_version)}",
            "",
            "[project]",
            f"package = {q(o.package)}",
            f"namespace = {q(o.namespace)}",
            f"distribution = {q(o.distribution)}",
            f"arch_list = [{', '.join(q(a) for a in o.arch_list)}]",
        ]
        for kernel in o.kernels:
            lines += [
                "",
                "[[kernels]]",
                f"template = {q(kernel.template)}",
                f"name = {q(kernel.name)}",
            ]
            if kernel.name in self.ops:
                lines.append(f"ops = [{', '.join(q(op) for op in self.ops[kernel.name])}]")
        lines += [
            "",
            "# Files kernelgen regenerates; add-kernel refuses to run if one was edited.",
            "[owned]",
        ]
        lines += [f"{q(path)} = {q(digest)}" for path, digest in sorted(self.owned.items())]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, text: str, source: Path) -> Manifest:
        """Parse kernelgen.toml, turning any structural problem into a clear error."""
        try:
            data = tomllib.loads(text)
            project = data["project"]
            options = ProjectOptions(
                package=project["package"],
                namespace=project["namespace"],
                distribution=project["distribution"],
                arch_list=tuple(project["arch_list"]),
                kernels=tuple(
                    KernelChoice(template=k["template"], name=k["name"])
                    for k in data.get("kernels", [])
                ),
            )
            return cls(
                kernelgen_version=data["kernelgen"]["version"],
                options=options,
                owned=dict(data.get("owned", {})),
            )
        except (tomllib.TOMLDecodeError, KeyError, TypeError) as exc:
            raise KernelgenError(f"{source} is not a valid kernelgen manifest: {exc}") from exc


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding kernelgen.toml."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / MANIFEST_NAME).is_file():
            return folder
    raise NotAProject(
        f"{start} is not inside a kernelgen project (no {MANIFEST_NAME} there or above); "
        "run `kernelgen new` first or pass --project"
    )


def read_manifest(project_root: Path) -> Manifest:
    """Load the manifest of the project at `project_root`."""
    path = project_root / MANIFEST_NAME
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise NotAProject(f"cannot read {path}: {exc.strerror}") from exc
    return Manifest.from_toml(text, path)
