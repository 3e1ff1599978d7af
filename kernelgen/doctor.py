"""`kernelgen doctor`: check whether this machine can build a PyTorch CUDA extension.

Each check reports ok / warning / error with one line saying what to do. Errors are tagged
with what they block: the CUDA build only (the CPU extension can still be built) or every
build. The exit status follows: 0 when a CUDA build can proceed, 1 when only a CPU build can,
2 when nothing can.

Torch is inspected in a subprocess, so the CLI itself never imports it. Every check is a
function of a Machine description, so tests can fake each failure (a wrapper nvcc, a toolkit
without headers, no ninja, mismatched versions) without touching the real machine.
"""

from __future__ import annotations

import contextlib
import enum
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path

from kernelgen import __version__, cuda_env, journal
from kernelgen.errors import KernelgenError
from kernelgen.manifest import find_project_root, read_manifest
from kernelgen.options import (
    ARCH_PATTERN,
    STABLE_ABI_MIN_TORCH,
    compute_capability,
    torch_target_version,
)

TORCH_PROBE_TIMEOUT_S = 120  # importing a CUDA torch the first time can take a minute
COMPILE_TIMEOUT_S = 60  # a test kernel; skipped at once if nvcc already hung


class Status(str, enum.Enum):
    OK = "ok"
    WARNING = "warning"
    ERROR = "error"


class Blocks(str, enum.Enum):
    """What an error prevents."""

    NOTHING = "nothing"
    CUDA = "cuda"
    ALL = "all"


@dataclass(frozen=True)
class Check:
    name: str
    status: Status
    message: str
    blocks: Blocks = Blocks.NOTHING


@dataclass(frozen=True)
class TorchInfo:
    """What doctor needs to know about the installed torch (None: not importable)."""

    version: str
    cuda: str | None
    gpus: tuple[str, ...] = ()  # compute capabilities of the visible GPUs, e.g. ("9.0",)
    error: str | None = None
    # The compute capabilities torch.utils.cpp_extension builds for (None: not known), and its
    # verdict on TORCH_CUDA_ARCH_LIST when that is set (None: accepted or not known).
    accepted_archs: frozenset[str] | None = None
    arch_list_error: str | None = None


@dataclass
class Machine:
    """The environment the checks look at; tests build fake ones."""

    env: Mapping[str, str]
    torch: TorchInfo | None
    cpu_count: int = 1
    memory_gb: float | None = None
    extra: dict[str, str] = field(default_factory=dict)


# torch keeps the arch names its extension builder accepts inside a private function, so the
# probe asks that function (with a grid of candidates) rather than copying its list.
_TORCH_PROBE = """
import json, os, torch
gpus = []
try:
    for i in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(i)
        gpus.append(f"{major}.{minor}")
except Exception:
    pass
accepted, arch_list_error = None, None
try:
    from torch.utils.cpp_extension import _get_cuda_arch_flags
    user_value = os.environ.get("TORCH_CUDA_ARCH_LIST")
    if user_value and user_value != "native":
        try:
            _get_cuda_arch_flags()
        except ValueError as exc:
            arch_list_error = str(exc)
    accepted = []
    for arch in (f"{M}.{m}{s}" for M in range(1, 20) for m in range(10) for s in ("", "a", "f")):
        os.environ["TORCH_CUDA_ARCH_LIST"] = arch
        try:
            _get_cuda_arch_flags()
            accepted.append(arch)
        except ValueError:
            pass
except Exception:
    accepted = None
print(json.dumps({"version": torch.__version__, "cuda": torch.version.cuda, "gpus": gpus,
                  "accepted_archs": accepted, "arch_list_error": arch_list_error}))
"""


def probe_torch(python: str = sys.executable) -> TorchInfo | None:
    """Import torch in a subprocess and report its version, CUDA version and visible GPUs."""
    try:
        result = subprocess.run(
            [python, "-c", _TORCH_PROBE],
            capture_output=True,
            text=True,
            errors="replace",
            timeout=TORCH_PROBE_TIMEOUT_S,
            check=False,
        )
    except (OSError, subprocess.SubprocessError) as exc:
        return TorchInfo(version="", cuda=None, error=str(exc))
    if result.returncode != 0:
        if "No module named 'torch'" in result.stderr:
            return None
        last = (result.stderr.strip().splitlines() or ["unknown error"])[-1]
        return TorchInfo(version="", cuda=None, error=last)
    try:
        data = json.loads(result.stdout.strip().splitlines()[-1])
        cuda = None if data["cuda"] is None else str(data["cuda"])
        accepted = data.get("accepted_archs")
        return TorchInfo(
            version=str(data["version"]),
            cuda=cuda,
            gpus=tuple(map(str, data["gpus"])),
            accepted_archs=None if not accepted else frozenset(map(str, accepted)),
            arch_list_error=data.get("arch_list_error"),
        )
    except (ValueError, IndexError, KeyError, TypeError):
        return TorchInfo(
            version="", cuda=None, error=f"torch's probe printed {result.stdout[-200:]!r}"
        )


def _memory_gb() -> float | None:
    try:
        pages, page_size = os.sysconf("SC_PHYS_PAGES"), os.sysconf("SC_PAGE_SIZE")
    except (ValueError, OSError, AttributeError):
        return None
    return pages * page_size / 2**30


def this_machine() -> Machine:
    return Machine(
        env=dict(os.environ),
        torch=probe_torch(),
        cpu_count=os.cpu_count() or 1,
        memory_gb=_memory_gb(),
    )


# ---- The checks -------------------------------------------------------------------------


def check_torch(machine: Machine) -> list[Check]:
    info = machine.torch
    if info is None:
        return [
            Check("torch", Status.ERROR, "torch is not installed: pip install torch", Blocks.ALL)
        ]
    if info.error:
        return [Check("torch", Status.ERROR, f"torch fails to import: {info.error}", Blocks.ALL)]
    if info.cuda is None:
        return [
            Check(
                "torch",
                Status.WARNING,
                f"torch {info.version} is a CPU-only build: only the CPU extension will be built; "
                "install a CUDA build of torch for GPU kernels",
                Blocks.CUDA,
            )
        ]
    return [Check("torch", Status.OK, f"torch {info.version}, built with CUDA {info.cuda}")]


def check_cuda_home(machine: Machine) -> tuple[list[Check], Path | None]:
    home = cuda_env.locate_cuda_home(machine.env)
    if home.path is None:
        return [
            Check(
                "CUDA_HOME",
                Status.ERROR,
                f"no CUDA toolkit found ({home.found_by}); install one (nvcc) or set CUDA_HOME to its root",
                Blocks.CUDA,
            )
        ], None
    checks = []
    if home.torch_would_fail:
        checks.append(
            Check(
                "CUDA_HOME",
                Status.WARNING,
                f"torch alone would use CUDA_HOME={home.torch_guess}, which is not a toolkit "
                f"({home.found_by}); export CUDA_HOME={home.path} (kernelgen projects' setup.py "
                "does this itself)",
            )
        )
    else:
        checks.append(Check("CUDA_HOME", Status.OK, f"{home.path} (found by {home.found_by})"))
    libcudart = [
        home.path / d / "libcudart.so" for d in ("lib64", "lib", "targets/x86_64-linux/lib")
    ]
    if not any(p.exists() for p in libcudart):
        checks.append(
            Check(
                "libcudart",
                Status.ERROR,
                f"no libcudart.so under {home.path}/lib64: linking will fail (-lcudart); "
                "install the toolkit's cudart development package",
                Blocks.CUDA,
            )
        )
    return checks, home.path


def check_nvcc_version(machine: Machine, cuda_home: Path) -> list[Check]:
    toolkit = cuda_env.nvcc_version(cuda_home)
    if toolkit is None:
        return [
            Check("nvcc", Status.ERROR, f"{cuda_home}/bin/nvcc --version does not run", Blocks.CUDA)
        ]
    found = f"{toolkit[0]}.{toolkit[1]}"
    if machine.torch is None or not machine.torch.cuda:
        return [Check("nvcc", Status.OK, f"nvcc is CUDA {found}")]
    mismatch = cuda_env.cuda_major_mismatch(toolkit, machine.torch.cuda)
    if mismatch is not None:
        return [Check("nvcc", Status.ERROR, mismatch, Blocks.CUDA)]
    if toolkit[1] != int(machine.torch.cuda.split(".")[1]):  # MAJOR.MINOR, checked above
        return [
            Check(
                "nvcc",
                Status.WARNING,
                f"nvcc is CUDA {found}, torch was built with {machine.torch.cuda}: minor mismatches usually "
                "work; match them if you see odd link or runtime errors",
            )
        ]
    return [Check("nvcc", Status.OK, f"nvcc is CUDA {found}, matching torch")]


def check_headers(cuda_home: Path) -> list[Check]:
    toolkit = [cuda_home / "include"]
    wheels = cuda_env.pip_cuda_include_dirs()
    checks = []
    for header in cuda_env.TORCH_CUDA_HEADERS:
        if cuda_env.find_header(header, toolkit):
            continue
        supplier = cuda_env.find_header(header, wheels)
        if header == "cuda_runtime.h" and supplier is None:
            checks.append(
                Check(
                    header,
                    Status.ERROR,
                    f"{cuda_home}/include has no {header}: not a usable toolkit",
                    Blocks.CUDA,
                )
            )
        elif supplier is not None:
            checks.append(
                Check(
                    header,
                    Status.OK,
                    f"not in the toolkit; the pip wheel's {supplier} has it (kernelgen projects add it)",
                )
            )
        else:
            checks.append(
                Check(
                    header,
                    Status.WARNING,
                    "missing from the toolkit and the pip wheels; code that includes "
                    "ATen/cuda/CUDAContext.h will not compile: install the toolkit's library headers",
                )
            )
    if not checks:
        checks.append(
            Check("headers", Status.OK, "the toolkit has every header torch's CUDA headers include")
        )
    return checks


def check_host_compiler(machine: Machine, cuda_home: Path | None) -> list[Check]:
    compiler = machine.env.get("CXX") or "c++"
    path = shutil.which(compiler, path=machine.env.get("PATH"))
    if path is None:
        return [
            Check(
                "host compiler",
                Status.ERROR,
                f"no C++ compiler ({compiler}) on PATH: install g++ (e.g. apt-get install g++)",
                Blocks.ALL,
            )
        ]
    checks = [Check("host compiler", Status.OK, path)]
    if cuda_env.links_libstdcxx_statically(path):
        checks.append(
            Check(
                "C++ runtime",
                Status.WARNING,
                f"{path} finds no shared libstdc++, so extensions would carry a static copy that "
                "segfaults when an error message formats a number; kernelgen projects link torch's "
                "libstdc++ instead (other builds: add it to the link line, or use the system g++)",
            )
        )
    if cuda_home is None:
        return checks
    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp) / "probe.cu"
        source.write_text("__global__ void probe() {}\n")
        result = cuda_env.run_probe(
            [
                str(cuda_home / "bin" / "nvcc"),
                "-ccbin",
                path,
                "-c",
                str(source),
                "-o",
                str(Path(tmp) / "probe.o"),
            ],
            timeout=COMPILE_TIMEOUT_S,
            env=machine.env,
        )
        if result is None:
            ok, detail = False, f"it did not finish in {COMPILE_TIMEOUT_S:.0f} s, or does not run"
        else:
            ok, detail = result.returncode == 0, (result.stderr.strip().splitlines() or [""])[0]
    if ok:
        checks.append(
            Check("nvcc + host compiler", Status.OK, "nvcc compiles a test kernel with it")
        )
    else:
        checks.append(
            Check(
                "nvcc + host compiler",
                Status.ERROR,
                f"nvcc cannot compile with {path}: {detail}; install a gcc version this CUDA supports "
                "and point CXX (or nvcc -ccbin) at it",
                Blocks.CUDA,
            )
        )
    return checks


def check_ninja(machine: Machine) -> list[Check]:
    memory = machine.memory_gb
    # An nvcc job on torch headers can take 2-4 GB; keep one core free for everything else.
    jobs = max(1, min(machine.cpu_count, int(memory // 3) if memory else machine.cpu_count))
    advice = f"MAX_JOBS={jobs} suits {machine.cpu_count} cores" + (
        f" and {memory:.0f} GB" if memory else ""
    )
    if shutil.which("ninja", path=machine.env.get("PATH")) is None:
        return [
            Check(
                "ninja",
                Status.WARNING,
                f"ninja not found: builds are serial and slow; pip install ninja. {advice}",
            )
        ]
    current = machine.env.get("MAX_JOBS")
    return [
        Check(
            "ninja",
            Status.OK,
            f"ninja found; {advice}" + (f" (MAX_JOBS={current} set)" if current else ""),
        )
    ]


def check_arch_list_variable(machine: Machine, cuda_home: Path | None) -> list[Check]:
    """TORCH_CUDA_ARCH_LIST, when set: accepted by torch, and every entry one this nvcc targets."""
    value = machine.env.get("TORCH_CUDA_ARCH_LIST")
    if not value:
        return []
    torch_judged = machine.torch is not None and machine.torch.accepted_archs is not None
    if machine.torch is not None and machine.torch.arch_list_error:
        return [
            Check(
                "TORCH_CUDA_ARCH_LIST",
                Status.ERROR,
                f"torch {machine.torch.version} rejects {value!r}: "
                f"{machine.torch.arch_list_error}; fix or unset it",
                Blocks.CUDA,
            )
        ]
    archs = [a for a in re.split(r"[;\s,]+", value) if a]
    # Names such as "Hopper" are torch's to judge; without its verdict only numbers pass.
    malformed = [] if torch_judged else [a for a in archs if not ARCH_PATTERN.fullmatch(a)]
    if malformed or not archs:
        return [
            Check(
                "TORCH_CUDA_ARCH_LIST",
                Status.ERROR,
                f'{value!r} is not a list of compute capabilities like "8.0;9.0" '
                f"(bad: {', '.join(malformed) or 'empty'}); fix or unset it",
                Blocks.CUDA,
            )
        ]
    numeric = [a for a in archs if ARCH_PATTERN.fullmatch(a)]
    if cuda_home is not None and (unsupported := cuda_env.unsupported_archs(cuda_home, numeric)):
        return [
            Check(
                "TORCH_CUDA_ARCH_LIST",
                Status.ERROR,
                f"nvcc in {cuda_home} cannot compile for {', '.join(unsupported)} "
                "(`nvcc --list-gpu-arch`); set TORCH_CUDA_ARCH_LIST to newer ones",
                Blocks.CUDA,
            )
        ]
    return [Check("TORCH_CUDA_ARCH_LIST", Status.OK, value)]


def torch_unknown_archs(info: TorchInfo | None, archs: Iterable[str]) -> list[str]:
    """The archs (like "9.0a" or "8.6+PTX") the installed torch's extension builder refuses."""
    if info is None or info.accepted_archs is None:
        return []
    return [a for a in archs if a.removesuffix("+PTX") not in info.accepted_archs]


def check_gpus(machine: Machine, default_arch: str | None) -> list[Check]:
    arch_list = machine.env.get("TORCH_CUDA_ARCH_LIST")
    gpus = machine.torch.gpus if machine.torch else ()
    if gpus:
        message = f"{len(gpus)} GPU(s), compute capability {', '.join(sorted(set(gpus)))}"
        if arch_list:
            message += f"; TORCH_CUDA_ARCH_LIST={arch_list} overrides them"
        return [Check("GPUs", Status.OK, message)]
    if arch_list:
        return [
            Check("GPUs", Status.OK, f"none visible; building for TORCH_CUDA_ARCH_LIST={arch_list}")
        ]
    fallback = (
        f"kernelgen projects build for their default arch list ({default_arch})"
        if default_arch
        else "kernelgen projects build for the arch list chosen at `kernelgen new`"
    )
    return [
        Check(
            "GPUs",
            Status.WARNING,
            f"none visible and TORCH_CUDA_ARCH_LIST unset (torch alone fails with an IndexError); {fallback}, "
            'or set TORCH_CUDA_ARCH_LIST, e.g. "9.0"',
        )
    ]


# What a project's README gives as the rebuild after an edit or an add-kernel.
REBUILD = "python setup.py build_ext --inplace (in the project folder)"


def check_project(machine: Machine, project: Path) -> tuple[list[Check], str | None]:
    try:
        project = find_project_root(project)  # any folder inside it will do, as for add-kernel
        manifest = read_manifest(project)
    except KernelgenError as exc:
        return [Check("project", Status.ERROR, exc.message, Blocks.ALL)], None
    options = manifest.options
    checks = [
        Check(
            "project",
            Status.OK,
            f"{project}: package {options.package}, ops from {len(options.kernels)} kernel(s)",
        )
    ]
    checks += check_kernelgen_version(manifest.kernelgen_version)
    if journal.pending(project):
        checks.append(
            Check(
                "interrupted change",
                Status.WARNING,
                f"a kernelgen change was interrupted in {project} ({journal.TRANSACTION_DIR}/); the "
                "next add-kernel there rolls it back first",
            )
        )
    checks += check_abi(machine, options.abi)
    if list((project / options.package).glob("_C*.so")):
        result = subprocess.run(
            [sys.executable, "-c", f"import {options.package}"],
            cwd=project,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if result.returncode == 0:
            checks.append(
                Check("built extension", Status.OK, f"{options.package} imports with this torch")
            )
        elif "undefined symbol" in result.stderr:
            checks.append(
                Check(
                    "built extension",
                    Status.ERROR,
                    "the built extension does not match the installed torch (undefined symbol): "
                    f"rebuild with {REBUILD}",
                    Blocks.NOTHING,
                )
            )
        elif "was built before" in result.stderr or "does not exist" in result.stderr:
            checks.append(
                Check(
                    "built extension",
                    Status.ERROR,
                    "the built extension predates kernels added since (an op it should define is "
                    f"missing): rebuild with {REBUILD}",
                    Blocks.NOTHING,
                )
            )
        else:
            last = (result.stderr.strip().splitlines() or [""])[-1]
            checks.append(
                Check("built extension", Status.WARNING, f"import {options.package} fails: {last}")
            )
    else:
        checks.append(Check("built extension", Status.OK, "not built yet"))
    checks += _stale_locks(machine)
    home = cuda_env.locate_cuda_home(machine.env).path
    if home is not None and (unsupported := cuda_env.unsupported_archs(home, options.arch_list)):
        checks.append(
            Check(
                "arch list",
                Status.ERROR,
                f"the project compiles for {', '.join(unsupported)} when no GPU is visible, which nvcc in "
                f"{home} cannot target (`nvcc --list-gpu-arch`); set TORCH_CUDA_ARCH_LIST to newer ones",
                Blocks.CUDA,
            )
        )
    if machine.torch is not None and (
        unknown := torch_unknown_archs(machine.torch, options.arch_list)
    ):
        checks.append(
            Check(
                "arch list",
                Status.ERROR,
                f"the project compiles for {', '.join(unknown)} when no GPU is visible, which torch "
                f"{machine.torch.version} does not know (it builds for "
                f"{', '.join(sorted(machine.torch.accepted_archs or (), key=_arch_order_key))}); "
                "set TORCH_CUDA_ARCH_LIST to known ones",
                Blocks.CUDA,
            )
        )
    return checks, ";".join(options.arch_list)


def _arch_order_key(arch: str) -> tuple[tuple[int, int], str]:
    return compute_capability(arch), arch


def _version_key(version: str) -> tuple[int, ...] | None:
    """(0, 2, 1) for "0.2.1"; None when a part is not a number."""
    parts = version.split("+")[0].split(".")
    return tuple(int(part) for part in parts) if all(p.isdigit() for p in parts) else None


def check_kernelgen_version(recorded: str) -> list[Check]:
    """Whether the installed kernelgen is newer than the one that last wrote the project."""
    installed, written = _version_key(__version__), _version_key(recorded)
    if installed is None or written is None or installed <= written:
        return [Check("kernelgen version", Status.OK, f"project written by kernelgen {recorded}")]
    return [
        Check(
            "kernelgen version",
            Status.WARNING,
            f"the project was written by kernelgen {recorded}; this is {__version__}: "
            "`kernelgen update` brings it up to this version's templates, keeping your edits",
        )
    ]


def _release(version: str) -> tuple[int, int] | None:
    """(2, 11) for "2.11.0+cu130"; None for a version string that is not X.Y..."""
    parts = version.split("+")[0].split(".")
    if len(parts) < 2 or not (parts[0].isdigit() and parts[1].isdigit()):
        return None
    return int(parts[0]), int(parts[1])


def check_abi(machine: Machine, abi: str) -> list[Check]:
    """For a stable-ABI project: its target torch, and whether the installed one is as new."""
    if abi != "stable":
        return [
            Check(
                "ABI",
                Status.OK,
                "standard: the extension must be built with the torch it runs with",
            )
        ]
    target = f"stable, TORCH_TARGET_VERSION {STABLE_ABI_MIN_TORCH} ({torch_target_version(STABLE_ABI_MIN_TORCH)})"
    info = machine.torch
    if info is None or info.error:
        return [Check("ABI", Status.OK, f"{target}; no importable torch to compare with")]
    installed = _release(info.version)
    if installed is None:
        return [
            Check("ABI", Status.WARNING, f"{target}; cannot read torch's version {info.version!r}")
        ]
    minimum = _release(STABLE_ABI_MIN_TORCH)
    assert minimum is not None
    if installed < minimum:
        return [
            Check(
                "ABI",
                Status.ERROR,
                f"{target}, but torch {info.version} is older: install torch>={STABLE_ABI_MIN_TORCH}",
                Blocks.ALL,
            )
        ]
    return [
        Check("ABI", Status.OK, f"{target}; torch {info.version} is new enough to build and run it")
    ]


def _stale_locks(machine: Machine, max_age_s: float = 600) -> list[Check]:
    root = Path(
        machine.env.get("TORCH_EXTENSIONS_DIR") or Path.home() / ".cache" / "torch_extensions"
    )
    now = time.time()
    stale = []
    try:
        for lock in root.glob("**/lock") if root.is_dir() else []:
            with contextlib.suppress(OSError):  # a build may delete it while we look
                if now - lock.stat().st_mtime > max_age_s:
                    stale.append(lock)
    except OSError:  # a folder vanished mid-scan
        pass
    if stale:
        listed = ", ".join(str(p) for p in stale[:3])
        return [
            Check(
                "build locks",
                Status.WARNING,
                f"stale torch extension build lock(s) left by an interrupted build: {listed}; delete them "
                "if no build is running",
            )
        ]
    return []


# ---- Running them ------------------------------------------------------------------------


def run_checks(machine: Machine, project: Path | None = None) -> list[Check]:
    checks = check_torch(machine)
    default_arch = None
    if project is not None:
        project_checks, default_arch = check_project(machine, project)
        checks += project_checks
    home_checks, cuda_home = check_cuda_home(machine)
    checks += home_checks
    if cuda_home is not None:
        checks += check_nvcc_version(machine, cuda_home)
        checks += check_headers(cuda_home)
    checks += check_host_compiler(machine, cuda_home)
    checks += check_ninja(machine)
    checks += check_arch_list_variable(machine, cuda_home)
    checks += check_gpus(machine, default_arch)
    return checks


def exit_code(checks: list[Check]) -> int:
    """0: a CUDA build can proceed; 1: only a CPU build can; 2: nothing can."""
    blocked = {c.blocks for c in checks if c.status is not Status.OK}
    if Blocks.ALL in blocked:
        return 2
    if Blocks.CUDA in blocked:
        return 1
    return 0


def to_json(checks: list[Check]) -> str:
    code = exit_code(checks)
    return json.dumps(
        {
            "checks": [
                {**asdict(c), "status": c.status.value, "blocks": c.blocks.value} for c in checks
            ],
            "cuda_build": code == 0,
            "cpu_build": code <= 1,
            "exit_code": code,
        },
        indent=2,
    )
