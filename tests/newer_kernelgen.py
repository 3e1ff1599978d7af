"""A stand-in for a newer kernelgen: the installed templates, copied and changed.

`update` is tested against it the way a user meets a new release: a build fix in setup.py,
a reworded first line in a kernel's source, a README that says more, a new file, and a file
the templates no longer generate.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

from kernelgen.catalog import Catalog, data_dir

SETUP_FIX = "# (a build fix from a newer kernelgen)\n"
README_NEWS = "\nNew in the next kernelgen: this line.\n"
NEW_FILE = "CHANGES.md"
DROPPED_FILE = "MANIFEST.in"
KERNEL_SOURCE = "reference_kernels/vector_add/{{package}}/csrc/{{name}}.cpp.jinja"
NEW_FIRST_LINE = "// {{ name }}: c = a + b, reworded by a newer kernelgen.\n"


def newer_catalog(folder: Path) -> Catalog:
    """Write the changed templates into `folder` and load them."""
    templates, kernels = folder / "templates", folder / "reference_kernels"
    shutil.copytree(data_dir("templates"), templates)
    shutil.copytree(data_dir("reference_kernels"), kernels)
    setup = templates / "project" / "setup.py.jinja"
    first, rest = setup.read_text().split("\n", 1)
    setup.write_text(first + "\n" + SETUP_FIX + rest)
    readme = templates / "project" / "README.md.jinja"
    readme.write_text(readme.read_text() + README_NEWS)
    (templates / "project" / NEW_FILE).write_text("# Changes\n")
    (templates / "project" / (DROPPED_FILE + ".jinja")).unlink()
    source = folder / KERNEL_SOURCE
    source.write_text(NEW_FIRST_LINE + source.read_text().split("\n", 1)[1])
    return Catalog.load(templates, kernels)


GIT_IDENTITY = {
    "GIT_AUTHOR_NAME": "kernelgen tests",
    "GIT_AUTHOR_EMAIL": "tests@kernelgen.invalid",
    "GIT_COMMITTER_NAME": "kernelgen tests",
    "GIT_COMMITTER_EMAIL": "tests@kernelgen.invalid",
}


def git(root: Path, *args: str) -> str:
    result = subprocess.run(
        ["git", "-C", str(root), *args],
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **GIT_IDENTITY},
    )
    return result.stdout


def commit_all(root: Path, message: str = "state") -> None:
    """Make `root` a git repository if it is not one, and commit everything in it."""
    if not (root / ".git").exists():
        git(root, "init", "-q")
    git(root, "add", "-A")
    git(root, "commit", "-q", "--allow-empty", "-m", message)
