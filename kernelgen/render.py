"""Render a template folder into memory: a FileSet mapping relative paths to file bytes.

Files ending in `.jinja` are rendered (and lose the suffix); every other file is copied byte
for byte. Path segments may hold `{{ variables }}` too. Nothing touches the disk here, so a
template error can never leave a half-written project.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path, PurePosixPath
from typing import Any

import jinja2

from kernelgen.errors import KernelgenError

TEMPLATE_SUFFIX = ".jinja"

FileSet = dict[PurePosixPath, bytes]


def make_environment(root: Path) -> jinja2.Environment:
    """The one Jinja environment: strict about undefined names, confined to `root`.

    Standard `{{ }}` / `{% %}` delimiters: generated C++ never needs `{{` (brace
    initialisation is written `{ {`), and the test suite checks none survive rendering.
    """
    return jinja2.Environment(
        loader=jinja2.FileSystemLoader(str(root)),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        trim_blocks=True,
        lstrip_blocks=True,
        autoescape=False,
    )


def _render_path(
    env: jinja2.Environment, relative: PurePosixPath, context: Mapping[str, Any]
) -> PurePosixPath:
    rendered = env.from_string(str(relative)).render(context)
    if rendered.endswith(TEMPLATE_SUFFIX):
        rendered = rendered[: -len(TEMPLATE_SUFFIX)]
    path = PurePosixPath(rendered)
    if path.is_absolute() or ".." in path.parts or "" in path.parts:
        raise KernelgenError(f"template path {relative} rendered to an unsafe path {rendered!r}")
    return path


def template_files(root: Path, exclude: frozenset[str] = frozenset()) -> list[PurePosixPath]:
    """Every file under `root`, relative and sorted so output order never depends on the disk.

    `exclude` names files, or top-level folders, to leave out.
    """
    files = (
        PurePosixPath(p.relative_to(root).as_posix())
        for p in root.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts
    )
    return sorted(f for f in files if str(f) not in exclude and f.parts[0] not in exclude)


def render_tree(
    root: Path, context: Mapping[str, Any], exclude: frozenset[str] = frozenset()
) -> FileSet:
    """Render every file under `root` (except `exclude`) with `context`."""
    env = make_environment(root)
    output: FileSet = {}
    for relative in template_files(root, exclude):
        try:
            target = _render_path(env, relative, context)
            if relative.suffix == TEMPLATE_SUFFIX:
                text = env.get_template(relative.as_posix()).render(context)
                output[target] = text.encode("utf-8")
            else:
                output[target] = (root / relative).read_bytes()
        except jinja2.TemplateError as exc:
            raise KernelgenError(
                f"template {root.name}/{relative} failed to render: {exc}"
            ) from exc
    return output
