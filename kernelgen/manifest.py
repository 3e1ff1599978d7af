"""kernelgen.toml: the record of how a project was generated, which add-kernel reads and updates.

It stores the answers given to `new`, the kernels added since, the kernelgen version that
last wrote the project, a SHA-256 of every file kernelgen owns and regenerates (so add-kernel
can tell when one of those was edited by hand), and a SHA-256 of every file as kernelgen
generated it (so `new --force` and `update` replace only files nobody edited). Beside it,
.kernelgen/generated/ keeps those files' text, the base `update` merges from. A manifest missing a part, or holding the wrong types, is an error naming
the file and the part: never a silent pass that would let a hand-edited file be overwritten.
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from kernelgen.errors import InvalidInput, KernelgenError, NotAProject
from kernelgen.fs import read_regular_file
from kernelgen.options import KernelChoice, ProjectOptions

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

MANIFEST_NAME = "kernelgen.toml"
# A copy of every file as kernelgen last generated it, under the same relative path: the base
# `update` merges the user's edits from. It lives in the project (and in its git history), so
# an update needs neither the old kernelgen nor the network.
PRISTINE_DIR = PurePosixPath(".kernelgen/generated")


def pristine_path(path: PurePosixPath | str) -> PurePosixPath:
    """Where the pristine copy of the generated file `path` is kept."""
    return PRISTINE_DIR / path


def read_pristine(project_root: Path, path: PurePosixPath | str) -> bytes | None:
    """The pristine copy of `path`, or None where there is none (or it is not a plain file)."""
    try:
        return read_regular_file(project_root / pristine_path(path), str(pristine_path(path)))
    except (OSError, KernelgenError):
        return None


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
    # Every file as kernelgen last wrote it: path -> digest (absent in projects before 0.3).
    generated: dict[str, str] = field(default_factory=dict)

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
            f"abi = {q(o.abi)}",
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
        lines += [
            "",
            "# Every file as kernelgen last generated it (a copy of each is in .kernelgen/generated):",
            "# `new --force` and `update` replace only files that still match.",
            "[generated]",
        ]
        lines += [f"{q(path)} = {q(digest)}" for path, digest in sorted(self.generated.items())]
        return "\n".join(lines) + "\n"

    @classmethod
    def from_toml(cls, text: str, source: Path) -> Manifest:
        """Parse kernelgen.toml, turning any structural problem into a clear error."""
        try:
            data = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise KernelgenError(f"{source} is not valid TOML: {exc}") from exc
        try:
            project = _table(data, "project")
            kernels = data.get("kernels", [])
            if not isinstance(kernels, list) or not all(isinstance(k, dict) for k in kernels):
                raise _Malformed("[[kernels]] must be a list of tables")
            options = ProjectOptions(
                package=_string(project, "package", "[project]"),
                namespace=_string(project, "namespace", "[project]"),
                distribution=_string(project, "distribution", "[project]"),
                arch_list=_strings(project, "arch_list", "[project]"),
                # Projects from before the stable-ABI variant are all standard.
                abi=_string(project, "abi", "[project]") if "abi" in project else "standard",
                kernels=tuple(
                    KernelChoice(
                        template=_string(k, "template", "[[kernels]]"),
                        name=_string(k, "name", "[[kernels]]"),
                    )
                    for k in kernels
                ),
            )
            return cls(
                kernelgen_version=_string(_table(data, "kernelgen"), "version", "[kernelgen]"),
                options=options,
                owned=_digests(data, "owned", required=True),
                generated=_digests(data, "generated", required=False),
            )
        except _Malformed as exc:
            raise KernelgenError(
                f"{source} is not a valid kernelgen manifest: {exc}; restore it from version "
                "control"
            ) from exc
        except InvalidInput as exc:  # a recorded name or option that is not valid
            raise KernelgenError(f"{source}: {exc.message}") from exc


class _Malformed(Exception):
    """A part of the manifest is missing or of the wrong type."""


def _table(data: dict[str, object], key: str) -> dict[str, object]:
    value = data.get(key)
    if not isinstance(value, dict):
        raise _Malformed(f"[{key}] is missing" if value is None else f"[{key}] is not a table")
    return value


def _string(table: dict[str, object], key: str, where: str) -> str:
    value = table.get(key)
    if not isinstance(value, str):
        raise _Malformed(
            f"{where} has no {key}" if value is None else f"{key} in {where} is not a string"
        )
    return value


def _strings(table: dict[str, object], key: str, where: str) -> tuple[str, ...]:
    value = table.get(key)
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise _Malformed(f"{key} in {where} must be a list of strings")
    return tuple(value)


def _digests(data: dict[str, object], key: str, required: bool) -> dict[str, str]:
    if key not in data:
        if required:
            raise _Malformed(f"[{key}] is missing")
        return {}
    table = _table(data, key)
    for path, digest in table.items():
        if not isinstance(digest, str) or not digest.startswith("sha256:"):
            raise _Malformed(f'{path!r} in [{key}] is not a "sha256:..." digest')
    if required and not table:
        raise _Malformed(f"[{key}] is empty")
    return {path: str(digest) for path, digest in table.items()}


def find_project_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding kernelgen.toml."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if os.path.lexists(folder / MANIFEST_NAME):  # a broken one is reported, not skipped
            return folder
    raise NotAProject(
        f"{start} is not inside a kernelgen project (no {MANIFEST_NAME} there or above); "
        "generate one with `kernelgen new` first, or point at one",
        option="project",
    )


def read_manifest(project_root: Path) -> Manifest:
    """Load the manifest of the project at `project_root`."""
    path = project_root / MANIFEST_NAME
    try:
        text = read_regular_file(path).decode("utf-8")
    except OSError as exc:
        raise NotAProject(f"cannot read {path}: {exc.strerror or exc}") from exc
    except UnicodeDecodeError as exc:
        raise KernelgenError(
            f"{path} is not UTF-8 text (byte {exc.start}); restore it from version control"
        ) from exc
    return Manifest.from_toml(text, path)
