"""Regenerate kernelgen/cpp_global_names.py: the names torch's and CUDA's headers declare at
C++ global scope, which a new package must not take.

Every generated source wraps its code in `namespace <package> { ... }`, so a package named
after something those headers already declare at global scope (`all` and `any` in CUDA's
device_atomic_functions.h, `sin` and `index` in the C library, `cuda` and `cub` as CUDA's
own namespaces) renders fine and then fails every build. This script asks the compiler
rather than guessing: it generates a project with every reference kernel for each ABI,
includes every system header their sources include into one probe .cu, and compiles it
twice with every identifier of the preprocessed probe declared once as a namespace and once
as a struct. A name that either declaration collides with is taken. One nvcc front-end
pass sees host and device declarations alike.

Run it after moving the torch that CI pins, or the CUDA toolkit:
    CUDA_HOME=/usr/local/cuda python scripts/find_cpp_global_names.py
The test suite reruns it (tests/test_cpp_global_names.py) where the machine's headers match
the HEADERS stamp written into the list (torch, nvcc, Python, c++, libc), so a stale list
fails there; that test is the check, so this script only writes.
"""

from __future__ import annotations

import argparse
import platform
import re
import subprocess
import sys
import sysconfig
import tempfile
from collections.abc import Iterable
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from kernelgen import cuda_env  # noqa: E402
from kernelgen.catalog import all_kernels  # noqa: E402
from kernelgen.options import (  # noqa: E402
    C_MACROS,
    CPP_KEYWORDS,
    STABLE_ABI_MIN_TORCH,
    torch_target_version,
)

OUTPUT = REPO / "kernelgen" / "cpp_global_names.py"
SOURCE_SUFFIXES = (".cu", ".cuh", ".cpp", ".h")
_SYSTEM_INCLUDE = re.compile(r"^\s*#\s*include\s*<([^>]+)>", re.MULTILINE)
# Names a user could give a package: no leading '_' and no '__' (both reserved in C++).
_CANDIDATE = re.compile(r"\b[A-Za-z](?:[A-Za-z0-9]|_(?!_))*\b")
_ERROR_LINE = re.compile(r"^probe\.cu\((\d+)\): error", re.MULTILINE)


def generated_sources(abi: str, workdir: Path) -> list[Path]:
    """The C++/CUDA sources of a project on `abi` with every reference kernel."""
    kernels = [arg for name in all_kernels() for arg in ("--kernel", name)]
    target = workdir / abi
    command = [sys.executable, "-m", "kernelgen", "new", str(target), "--no-input", "--abi", abi]
    subprocess.run(
        [*command, "--package", "probe_pkg", *kernels], cwd=REPO, check=True, capture_output=True
    )
    return [p for p in sorted(target.rglob("*")) if p.suffix in SOURCE_SUFFIXES]


def abi_defines(abi: str) -> list[str]:
    """The -D flags a generated setup.py compiles that ABI's sources with."""
    defines = ["-DWITH_CUDA", "-DUSE_CUDA"]
    if abi == "stable":
        defines.append(f"-DTORCH_TARGET_VERSION={torch_target_version(STABLE_ABI_MIN_TORCH)}")
    return defines


def system_headers(sources: Iterable[Path]) -> list[str]:
    """Every `#include <...>` of the sources, once each, in a stable order."""
    headers: set[str] = set()
    for source in sources:
        headers.update(_SYSTEM_INCLUDE.findall(source.read_text()))
    return sorted(headers)


def include_dirs() -> list[Path]:
    """The folders a generated project's build searches: torch's, Python's, the pip CUDA
    wheels'."""
    from torch.utils.cpp_extension import include_paths

    torch_dirs = [Path(p) for p in include_paths(device_type="cuda")]
    python_dir = Path(sysconfig.get_paths()["include"])
    return [*torch_dirs, python_dir, *cuda_env.pip_cuda_include_dirs()]


def nvcc_command(cuda_home: Path, dirs: list[Path], *args: str) -> list[str]:
    flags = ["-std=c++20", "--expt-relaxed-constexpr", "-arch=sm_90"]
    return [str(cuda_home / "bin" / "nvcc"), *flags, *(f"-I{d}" for d in dirs), *args]


def candidate_names(nvcc: list[str], prelude: str, workdir: Path) -> list[str]:
    """Identifiers of the preprocessed headers that a user could pick as a package name."""
    probe = workdir / "probe.cu"
    probe.write_text(prelude)
    result = subprocess.run([*nvcc, "-E", str(probe)], capture_output=True, text=True)
    if result.returncode != 0:
        raise RuntimeError(f"nvcc could not preprocess the headers:\n{result.stderr[-3000:]}")
    preprocessed = result.stdout
    code = "\n".join(line for line in preprocessed.splitlines() if not line.startswith("#"))
    # Keywords and macros would fail the probe for their own reasons (kernelgen refuses both).
    return sorted(set(_CANDIDATE.findall(code)) - CPP_KEYWORDS - C_MACROS)


def colliding(
    nvcc: list[str], prelude: str, names: list[str], declaration: str, workdir: Path
) -> set[str]:
    """The names whose global-scope `declaration` ("namespace {} {{}}") nvcc rejects."""
    probe = workdir / "probe.cu"
    first_line = prelude.count("\n") + 1
    probe.write_text(prelude + "".join(declaration.format(name) + "\n" for name in names))
    result = subprocess.run(
        [*nvcc, "-Xcudafe", "--error_limit=1000000", "-c", "probe.cu"],
        capture_output=True,
        text=True,
        cwd=workdir,
    )
    lines = {int(n) for n in _ERROR_LINE.findall(result.stdout + result.stderr)}
    found = {
        names[line - first_line] for line in lines if first_line <= line < first_line + len(names)
    }
    if result.returncode != 0 and not found:
        raise RuntimeError(f"the probe failed for another reason:\n{result.stderr[-3000:]}")
    return found


def headers_in_use(cuda_home: Path) -> str:
    """What the list is read from: torch's, nvcc's, Python's, the C++ compiler's and the C
    library's headers, by version."""
    import torch

    version = cuda_env.nvcc_version(cuda_home)
    nvcc = "unknown" if version is None else f"{version[0]}.{version[1]}"
    compiler = subprocess.run(["c++", "-dumpfullversion"], capture_output=True, text=True)
    libc, libc_version = platform.libc_ver()
    return (
        f"torch {torch.__version__}, nvcc {nvcc}, Python {sys.version_info[0]}.{sys.version_info[1]}, "
        f"c++ {compiler.stdout.strip() or 'unknown'}, {libc or 'libc'} {libc_version}"
    )


def find_global_names(cuda_home: Path) -> set[str]:
    taken: set[str] = set()
    dirs = include_dirs()
    for abi in ("standard", "stable"):
        with tempfile.TemporaryDirectory() as tmp:
            workdir = Path(tmp)
            headers = system_headers(generated_sources(abi, workdir))
            prelude = "".join(f"#include <{header}>\n" for header in headers)
            nvcc = nvcc_command(cuda_home, dirs, *abi_defines(abi))
            names = candidate_names(nvcc, prelude, workdir)
            taken |= colliding(nvcc, prelude, names, "namespace {} {{}}", workdir)
            taken |= colliding(nvcc, prelude, names, "struct {} {{}};", workdir)
    return taken


def render_module(names: set[str], stamp: str) -> str:
    lines = [
        '"""Names that torch\'s and CUDA\'s headers declare at C++ global scope.',
        "",
        "A package name becomes the C++ namespace of every generated source, so `kernelgen new`",
        "refuses these. Generated by scripts/find_cpp_global_names.py; do not edit by hand.",
        '"""',
        "",
        f'HEADERS = "{stamp}"',
        "",
        "CPP_GLOBAL_NAMES = frozenset(",
        '    """',
    ]
    line = "    "
    for name in sorted(names):
        if len(line) + len(name) + 1 > 96:
            lines.append(line.rstrip())
            line = "    "
        line += name + " "
    lines += [line.rstrip(), '    """.split()', ")", ""]
    return "\n".join(lines)


def main() -> int:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    cuda_home = cuda_env.locate_cuda_home().path
    if cuda_home is None:
        print("no CUDA toolkit found: set CUDA_HOME", file=sys.stderr)
        return 2
    OUTPUT.write_text(render_module(find_global_names(cuda_home), headers_in_use(cuda_home)))
    print(f"wrote {OUTPUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
